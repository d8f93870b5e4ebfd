import { CheckpointWatcher } from './checkpoint-watcher';

// The watcher's polls and timeouts run on timers: fake ones here, moved by the tests.
describe('CheckpointWatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** the promise's outcome so far, without waiting for it */
  function outcome<T>(p: Promise<T>): { settled: boolean; value?: T } {
    const o: { settled: boolean; value?: T } = { settled: false };
    void p.then((v) => Object.assign(o, { settled: true, value: v }));
    return o;
  }

  it('reads the checkpoints again for every wait: a rebuild moves them back', async () => {
    let checkpoint = 10;
    let reads = 0;
    const w = new CheckpointWatcher(async () => {
      reads++;
      return checkpoint;
    }, 2);
    expect(await w.waitFor(5, 1000)).toBe(true);
    checkpoint = 0; // a worker rebuilding the projections from the start of the log
    const second = w.waitFor(5, 50);
    await jest.advanceTimersByTimeAsync(50);
    expect(await second).toBe(false);
    expect(w.position).toBe(0);
    expect(reads).toBeGreaterThan(1);
  });

  it('answers a wait only from a read that started after it', async () => {
    let checkpoint = 10;
    let release: () => void = () => undefined;
    const w = new CheckpointWatcher(async () => {
      const seen = checkpoint; // the value as of the start of the read
      await new Promise<void>((r) => (release = r));
      return seen;
    }, 2);
    const first = w.waitFor(5, 1000);
    await jest.advanceTimersByTimeAsync(5);
    checkpoint = 0; // reset while the first read is in flight
    const second = w.waitFor(5, 100);
    release(); // the in-flight read answers 10: enough for the first wait only
    expect(await first).toBe(true);
    const pump = setInterval(() => release(), 5);
    try {
      await jest.advanceTimersByTimeAsync(100);
      expect(await second).toBe(false);
    } finally {
      clearInterval(pump);
    }
  });

  it('resolves when the projections reach the position', async () => {
    let checkpoint = 0;
    const w = new CheckpointWatcher(async () => checkpoint, 2);
    const waiting = outcome(w.waitFor(7, 2000));
    await jest.advanceTimersByTimeAsync(30);
    expect(waiting.settled).toBe(false);
    checkpoint = 7;
    await jest.advanceTimersByTimeAsync(2);
    expect(waiting).toEqual({ settled: true, value: true });
    expect(w.position).toBe(7);
  });

  it('answers false when the timeout passes first, not before', async () => {
    const w = new CheckpointWatcher(async () => 3, 2);
    const waiting = outcome(w.waitFor(4, 50));
    await jest.advanceTimersByTimeAsync(49);
    expect(waiting.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(waiting).toEqual({ settled: true, value: false });
  });

  it('serves concurrent waiters with one read loop and treats read failures as not yet', async () => {
    let checkpoint = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let failing = true;
    const w = new CheckpointWatcher(async () => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((r) => setTimeout(r, 1)); // a read takes a moment (fake time)
      concurrent--;
      if (failing) throw new Error('mongo unreachable');
      return checkpoint;
    }, 2);
    const all = Promise.all([w.waitFor(1, 2000), w.waitFor(2, 2000), w.waitFor(9, 100)]);
    await jest.advanceTimersByTimeAsync(20);
    failing = false;
    checkpoint = 2;
    await jest.advanceTimersByTimeAsync(100);
    expect(await all).toEqual([true, true, false]);
    expect(maxConcurrent).toBe(1);
  });

  it('releases waiters as not caught up on stop', async () => {
    const w = new CheckpointWatcher(async () => 0, 2);
    const waiting = w.waitFor(1, 10_000);
    w.stop();
    expect(await waiting).toBe(false);
  });
});
