/**
 * A round of work repeated every few seconds on a timer that does not keep the process alive,
 * never overlapping itself: a round still running when the timer fires again is not started
 * twice. Shared by the job runner, the scheduler and the briefing ticker; tests drive their
 * rounds directly instead of starting the loop.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly round: () => Promise<unknown>,
    /** told of a round that threw; the loop goes on */
    private readonly onError: (err: Error) => void,
  ) {}

  get polling(): boolean {
    return this.timer !== null;
  }

  start(everySeconds: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runNow(), everySeconds * 1000);
    this.timer.unref();
  }

  /** A round now, unless one is under way; resolves when that round (this one or the one under way) ends. */
  runNow(): Promise<void> {
    return (this.running ??= this.round()
      .then(() => undefined, (err: Error) => this.onError(err))
      .finally(() => (this.running = null)));
  }

  /** Stops the timer and waits for the round under way, if any. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
