import { performance } from 'node:perf_hooks';

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

/**
 * Reads the lists of an organization's frequent words (`TermLists`) while the index is idle, so
 * that the first queries after a restart or a bulk write do not each pay for reading them (a word
 * in 40 % of 100,000 rows takes ~20 ms to read, of 1,000,000 rows ~200 ms).
 *
 * The work is cut into steps (a slice of the vocabulary scanned for frequent words, or one list
 * read) run one at a time on the event loop, only while nothing else is happening: the process's
 * event loop was nearly idle over the last quiet period (`idleMs`) and the gap after the last
 * step, and no write or query reached the index. Otherwise it waits for another quiet period.
 * It never runs inside a transaction, and stops an organization's warming at half the lists'
 * budget.
 */
export class TermListWarmer {
  /** organizations written since they were last warmed, oldest first */
  private readonly pending = new Map<string, WarmState>();
  private activity = 0;
  private seen = -1;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** the event loop's use since the last check (`performance.eventLoopUtilization`) */
  private loop = performance.eventLoopUtilization();

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

  /**
   * An organization the index holds rows of, met when it is opened: none of its lists is in
   * memory yet, so the first queries after a restart would each read theirs.
   */
  opened(org: string): void {
    if (this.pending.has(org)) return;
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

  /** Whether the event loop was at most `limit` busy since the last call (requests, other timers). */
  private loopQuiet(limit: number): boolean {
    const used = performance.eventLoopUtilization(this.loop);
    this.loop = performance.eventLoopUtilization();
    return used.utilization < limit;
  }

  private tick(): void {
    this.timer = null;
    const quiet = this.loopQuiet(QUIET_LOOP);
    if (this.activity !== this.seen || !quiet || this.host.busy()) {
      this.seen = this.activity;
      if (this.pending.size) this.arm();
      return;
    }
    this.running = true;
    const start = this.activity;
    const next = (first: boolean) => {
      // the gap since the last step must have been quiet too: a request waits behind a step
      if (this.activity !== start || (!first && !this.loopQuiet(QUIET_GAP)) || this.host.busy()) {
        this.running = false;
        this.seen = -1;
        if (this.pending.size) this.arm();
        return;
      }
      if (this.runStep()) {
        this.loop = performance.eventLoopUtilization();
        setTimeout(() => next(false), STEP_GAP_MS).unref();
      } else this.running = false;
    };
    next(true);
  }
}

/** Event loop utilization under which the process counts as idle over `idleMs`. */
const QUIET_LOOP = 0.05;
/**
 * The pause after each step, and the utilization under which the loop counts as quiet in it:
 * over a few milliseconds timers and collection alone reach a few per cent, one request ~20 %.
 */
const STEP_GAP_MS = 10;
const QUIET_GAP = 0.15;
