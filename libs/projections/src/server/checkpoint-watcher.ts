/**
 * Lets server-mode writes wait (bounded) until the projections have applied their position:
 * read-your-writes over asynchronous projections. One poll loop per process serves every
 * waiting request, and runs only while someone waits.
 *
 * Every wait reads the checkpoints again: they move BACK when a worker rebuilds a projection
 * (a new projection version starts it from position 0), so a position seen earlier says
 * nothing about the read model now, and a wait for the log's head (a clear, a lost race)
 * must not pass on an emptied read model.
 */
export class CheckpointWatcher {
  private known = 0;
  private polling = false;
  /** reads started so far: a waiter is answered only by a read started after it came */
  private reads = 0;
  private readonly waiters = new Set<{ position: number; after: number; settle: (caughtUp: boolean) => void }>();

  /** `read` returns the position every awaited projection has reached (the lowest checkpoint) */
  constructor(
    private readonly read: () => Promise<number>,
    private readonly pollMs = 10,
  ) {}

  /** The position last read. */
  get position(): number {
    return this.known;
  }

  /** true once the projections reach `position`; false if `timeoutMs` passes first. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter = {
        position,
        after: this.reads,
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
        const read = ++this.reads;
        try {
          this.known = await this.read();
          for (const w of [...this.waiters]) if (w.after < read && w.position <= this.known) w.settle(true);
        } catch {
          // an unreachable store counts as "not yet": the waiter's timeout answers for us
        }
        if (this.waiters.size) await new Promise((r) => setTimeout(r, this.pollMs));
      }
    } finally {
      this.polling = false;
    }
  }
}
