/** Timers a live connection runs on (heartbeats, lifetimes, auth deadlines); tests pass ManualTimers. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clear(handle: TimerHandle): void;
}
export type TimerHandle = { readonly __timer: true } | object;

export const systemTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  setInterval: (fn, ms) => {
    const t = setInterval(fn, ms);
    t.unref?.();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface Scheduled {
  at: number;
  fn: () => void;
  every: number | null;
}

/**
 * Timers that fire only when a test advances them: no sleeping, no wall clock. `onAdvance`
 * lets the test's Clock follow (a FixedClock's advance), so heartbeat timestamps agree.
 */
export class ManualTimers implements Timers {
  private now = 0;
  private readonly pending = new Set<Scheduled>();
  constructor(private readonly onAdvance: (seconds: number) => void = () => undefined) {}

  private scheduledWaiters: (() => void)[] = [];

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.schedule({ at: this.now + ms, fn, every: null });
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.schedule({ at: this.now + ms, fn, every: Math.max(1, ms) });
  }
  private schedule(s: Scheduled): TimerHandle {
    this.pending.add(s);
    for (const w of this.scheduledWaiters.splice(0)) w();
    return s;
  }
  /** resolves once at least `n` timers are pending (a test waits for the server to arm them) */
  whenPending(n: number): Promise<void> {
    if (this.pending.size >= n) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (this.pending.size >= n ? resolve() : this.scheduledWaiters.push(check));
      this.scheduledWaiters.push(check);
    });
  }
  clear(handle: TimerHandle): void {
    this.pending.delete(handle as Scheduled);
  }
  /** timers scheduled and not yet fired or cleared */
  get size(): number {
    return this.pending.size;
  }

  /** moves time forward, firing every timer that falls due, in time order */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let next: Scheduled | undefined;
      for (const s of this.pending) if (s.at <= end && (!next || s.at < next.at)) next = s;
      if (!next) break;
      this.onAdvance((next.at - this.now) / 1000);
      this.now = next.at;
      if (next.every === null) this.pending.delete(next);
      else next.at += next.every;
      next.fn();
    }
    this.onAdvance((end - this.now) / 1000);
    this.now = end;
  }
}

/** The timers live connections run on, when a process supplies its own (tests: ManualTimers); systemTimers otherwise. */
export const LIVE_TIMERS = Symbol('LIVE_TIMERS');
