/**
 * Lets server-mode writes wait (bounded) until the projections have applied their position:
 * read-your-writes over asynchronous projections. One poll loop per process serves every
 * waiting request, and runs only while someone waits.
 */
export class CheckpointWatcher {
  private known = 0;
  private polling = false;
  private readonly waiters = new Set<{ position: number; settle: (caughtUp: boolean) => void }>();

  /** `read` returns the position every awaited projection has reached (the lowest checkpoint) */
  constructor(
    private readonly read: () => Promise<number>,
    private readonly pollMs = 10,
  ) {}

  /** The highest position seen so far. */
  get position(): number {
    return this.known;
  }

  /** true once the projections reach `position`; false if `timeoutMs` passes first. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.known >= position) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        position,
        settle: (caughtUp: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(caughtUp);
        },
      };
      const timer = setTimeout(() => waiter.settle(false), timeoutMs);
      this.waiters.add(waiter);
      void this.poll();
    });
  }

  /** Releases every waiter as not caught up (shutdown). */
  stop(): void {
    for (const w of [...this.waiters]) w.settle(false);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size) {
        try {
          this.known = Math.max(this.known, await this.read());
        } catch {
          // an unreachable store counts as "not yet": the waiter's timeout answers for us
        }
        for (const w of [...this.waiters]) if (w.position <= this.known) w.settle(true);
        if (this.waiters.size) await new Promise((r) => setTimeout(r, this.pollMs));
      }
    } finally {
      this.polling = false;
    }
  }
}
