import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.port';

/**
 * At most `limit` calls of the wrapped model in flight in this process
 * (STRATA_LLM_CONCURRENCY); the others queue in arrival order. A queued call whose signal
 * aborts leaves the queue at once; the call's timeout starts when it runs.
 */
export class ConcurrencyLimitedChatModel implements ChatModel {
  private running = 0;
  private readonly queue: { start: () => void }[] = [];

  constructor(
    private readonly inner: ChatModel,
    readonly limit: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('concurrency must be a positive integer');
  }

  get provider(): ChatModel['provider'] {
    return this.inner.provider;
  }
  get model(): string {
    return this.inner.model;
  }

  /** calls running now, and calls waiting for a slot */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    await this.acquire(req.signal);
    try {
      return await this.inner.chat(req);
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.start();
  }
}
