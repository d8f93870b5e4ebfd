import { Worker } from 'node:worker_threads';
import { terminalWidth } from './progress-format';
import { ProgressStream } from './progress-reporter';

/**
 * Runs in a worker thread: while the main thread is busy in one long synchronous step (an
 * import's single transaction), it still says on stderr that the step is running and for how
 * long. Shared flags: [0] stopped, [1] a terminal line was drawn, [2] the stderr lock (a beat
 * is written only while holding it, and stop() takes it for good, so no beat follows a stop).
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { flags, label, tty, width, everyMs, fd } = workerData;
const state = new Int32Array(flags);
const t0 = performance.now();
const duration = (s) => { const m = Math.floor(s / 60); return m >= 60 ? Math.floor(m / 60) + ':' + String(m % 60).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0') : m + ':' + String(s % 60).padStart(2, '0'); };
const timer = setInterval(() => {
  if (Atomics.compareExchange(state, 2, 0, 1) !== 0) return clearInterval(timer);
  try {
    const text = label + '  ' + duration(Math.round((performance.now() - t0) / 1000));
    fs.writeSync(fd, tty ? '\\r' + text.slice(0, width).padEnd(width) : text + '\\n');
    Atomics.store(state, 1, 1);
  } catch {
    clearInterval(timer);
  } finally {
    Atomics.store(state, 2, 0);
    Atomics.notify(state, 2);
  }
}, everyMs);
`;

/**
 * `label  0:07`, redrawn every second on a terminal, a line every 2 s otherwise, for a step
 * that gives no progress of its own. The main thread may be blocked throughout: the clock runs
 * in a worker thread, which never keeps the process alive.
 */
export class Heartbeat {
  private readonly flags = new SharedArrayBuffer(12);
  private stopped = false;
  private readonly worker: Worker | null;
  // monotonic: an elapsed time to show, not a time of day
  private readonly started = performance.now();
  /** resolves once the worker runs (its beats come from then on), or at once without one */
  readonly running: Promise<void>;
  private exited: Promise<unknown> = Promise.resolve();

  constructor(
    readonly label: string,
    private readonly out: ProgressStream = process.stderr,
    /** `fd`: the file descriptor `out` writes to (stderr: 2; others get no beats unless given); `everyMs`: the beat */
    opts: { fd?: number; everyMs?: number } = {},
  ) {
    const tty = out.isTTY === true;
    const fd = opts.fd ?? (out === process.stderr ? 2 : null);
    this.worker =
      fd === null
        ? null
        : new Worker(WORKER, { eval: true, workerData: { flags: this.flags, label, tty, fd, width: terminalWidth(out.columns) - 1, everyMs: opts.everyMs ?? (tty ? 1000 : 2000) } });
    this.worker?.unref();
    const worker = this.worker;
    this.running = worker ? new Promise((resolve) => worker.once('online', () => resolve())) : Promise.resolve();
  }

  /** Seconds since the step began. */
  get elapsedSeconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Stops the beats (at once: no line is drawn after this returns) and ends a terminal line. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const state = new Int32Array(this.flags);
    // take the lock and keep it: a beat being written finishes first, none comes after
    while (Atomics.compareExchange(state, 2, 0, 1) !== 0) Atomics.wait(state, 2, 1, 10);
    Atomics.store(state, 0, 1);
    if (this.out.isTTY && Atomics.load(state, 1)) this.out.write('\n');
    if (this.worker) this.exited = this.worker.terminate();
  }

  /** Resolves once the worker thread is gone after stop(): nothing can be written after that. */
  finished(): Promise<void> {
    return this.exited.then(() => undefined);
  }
}
