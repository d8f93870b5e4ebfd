/**
 * Reads the lists of an organization's frequent words (`TermLists`) while the index is idle, so
 * that the first queries after a restart or a bulk write do not each pay for reading them (a word
 * in 40 % of 100,000 rows takes ~20 ms to read, of 1,000,000 rows ~200 ms).
 *
 * The work is cut into steps (a slice of the vocabulary scanned for frequent words, or one list
 * read) run one at a time on the event loop, only while nothing else is happening: a write or a
 * query since the previous check puts it back to waiting for a quiet period (`idleMs`). It never
 * runs inside a transaction, and stops an organization's warming at half the lists' budget.
 */
export interface WarmerHost {
  /** the connection is inside a transaction (a step then waits) */
  busy(): boolean;
  /**
   * One step of warming `org`: false when it has nothing left to do. `state` is the host's
   * per-organization progress, kept by the warmer between steps.
   */
  step(org: string, state: WarmState): boolean;
}

/** An organization's warming progress: the vocabulary scanned up to `cursor`, the words found (with their row counts), the next one to read. */
export interface WarmState {
  cursor: string | null;
  scanned: boolean;
  words: { term: string; doc: number }[];
  next: number;
}

export class TermListWarmer {
  /** organizations written since they were last warmed, oldest first */
  private readonly pending = new Map<string, WarmState>();
  private activity = 0;
  private seen = -1;
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly host: WarmerHost,
    private readonly idleMs: number,
  ) {}

  /** A write to `org`'s rows: its frequent words may have changed, and the index is not idle. */
  wrote(org: string): void {
    this.activity++;
    // a write starts the organization over: its lists may have been dropped
    this.pending.delete(org);
    this.pending.set(org, { cursor: null, scanned: false, words: [], next: 0 });
    this.arm();
  }

  /** A query: the index is not idle. */
  queried(): void {
    this.activity++;
  }

  /** Stops for good (the index is closed). */
  stop(): void {
    this.pending.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Whether an organization waits for warming. */
  get hasWork(): boolean {
    return this.pending.size > 0;
  }

  /** Runs one step of the oldest pending organization now; false when none is left. */
  runStep(): boolean {
    const [org, state] = this.pending.entries().next().value ?? [];
    if (org === undefined || !state) return false;
    let more = false;
    try {
      more = this.host.step(org, state);
    } catch {
      // a closed connection or dropped tables: warming is only ever an optimisation
      more = false;
    }
    if (!more) this.pending.delete(org);
    return this.pending.size > 0;
  }

  private arm(): void {
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => this.tick(), this.idleMs);
    this.timer.unref();
  }

  private tick(): void {
    this.timer = null;
    if (this.activity !== this.seen || this.host.busy()) {
      this.seen = this.activity;
      if (this.pending.size) this.arm();
      return;
    }
    this.running = true;
    const start = this.activity;
    const next = () => {
      if (this.activity !== start || this.host.busy()) {
        this.running = false;
        this.seen = -1;
        if (this.pending.size) this.arm();
        return;
      }
      if (this.runStep()) setImmediate(next).unref?.();
      else this.running = false;
    };
    next();
  }
}
