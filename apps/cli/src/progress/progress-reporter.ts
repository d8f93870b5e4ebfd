import { ProgressSnapshot, progressLine, terminalProgressLine } from './progress-format';

/** Where progress goes: stderr, so stdout stays clean for data. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * Shows progress on stderr: a bar redrawn in place (at most 10 times a second) on a
 * terminal, a plain line at most once a second otherwise, and always a final line.
 */
export class ProgressReporter {
  private readonly started: number;
  /** the first line waits as long as the next ones: a rate and an ETA need some time behind them */
  private lastDraw: number;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly out: ProgressStream = process.stderr,
    /** milliseconds; monotonic by default: the reporter shows elapsed times and rates, not times of day */
    private readonly clock: () => number = () => performance.now(),
    /** what is counted: events unless said (`MB`, `objects`) */
    private readonly unit = 'events',
  ) {
    this.started = clock();
    this.lastDraw = this.started;
  }

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  update(done: number, total: number): void {
    const now = this.clock();
    if (now - this.lastDraw < (this.tty ? 100 : 1000)) return;
    this.lastDraw = now;
    this.draw({ done, total, elapsedMs: now - this.started }, false);
  }

  finish(done: number, total: number): void {
    this.draw({ done, total, elapsedMs: this.clock() - this.started }, true);
  }

  private draw(p: ProgressSnapshot, final: boolean): void {
    if (this.tty) {
      this.out.write('\r' + terminalProgressLine(this.label, p, this.out.columns, this.unit) + (final ? '\n' : ''));
    } else {
      this.out.write(progressLine(this.label, p, { bar: false, unit: this.unit }) + '\n');
    }
    this.drawn = true;
  }

  /** Before other output on a terminal: ends the line the bar is drawn on. */
  breakLine(): void {
    if (this.tty && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
