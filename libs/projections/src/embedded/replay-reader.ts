import type { Worker } from 'node:worker_threads';
import { RecordedEvent } from '@strata/domain/events';
import { startModuleWorker } from './module-worker';
import type { ReplayPlannerName } from './replay-plan';

/** One event of a parallel replay: its position, the event itself when some plan is APPLY_EVENT (else 0), then one plan per projection. */
export type ReplayEntry = [position: number, event: RecordedEvent | 0, ...plans: unknown[]];
export type ReplayReaderMessage = { entries: ReplayEntry[] } | { done: true } | { failed: string };

export interface ReplayReaderData {
  file: string;
  /** read events after this position … */
  from: number;
  /** … up to this one */
  until: number;
  planners: ReplayPlannerName[];
  /** events per message */
  page: number;
  /** messages the reader may post ahead of the consumer */
  window: number;
  /** Int32Array[1]: messages consumed so far */
  credit: SharedArrayBuffer;
}

/**
 * A worker thread that reads and plans the log ahead of a replay (replay-reader.worker.ts),
 * seen as an async sequence of pages. Reading, JSON decoding and planning then run beside
 * the thread that writes the projections, which has the database work left.
 */
export class ReplayReader implements AsyncIterable<ReplayEntry[]> {
  private readonly worker: Worker;
  private readonly consumed: Int32Array;
  private readonly pages: ReplayEntry[][] = [];
  private done = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(options: Omit<ReplayReaderData, 'credit'>) {
    const credit = new SharedArrayBuffer(4);
    this.consumed = new Int32Array(credit);
    this.worker = startModuleWorker(__filename, './replay-reader.worker', { ...options, credit });
    this.worker.on('message', (m: ReplayReaderMessage) => {
      if ('failed' in m) this.fail(new Error(`the replay's log reader failed: ${m.failed}`));
      else if ('done' in m) this.done = true;
      else this.pages.push(m.entries);
      this.notify();
    });
    this.worker.on('error', (err: unknown) => this.fail(err instanceof Error ? err : new Error(`the replay's log reader failed: ${JSON.stringify(err)}`)));
    this.worker.on('exit', (code) => {
      if (!this.done && !this.failure) this.fail(new Error(`the replay's log reader stopped (exit code ${code}) before the end of the log`));
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ReplayEntry[]> {
    for (;;) {
      const page = this.pages.shift();
      if (page) {
        yield page;
        Atomics.add(this.consumed, 0, 1);
        Atomics.notify(this.consumed, 0);
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Stops the reader (at the end, or when the replay gives up). */
  async close(): Promise<void> {
    this.done = true;
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    if (!this.failure) this.failure = err;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
