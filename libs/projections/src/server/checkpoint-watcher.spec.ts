import { CheckpointWatcher } from './checkpoint-watcher';

describe('CheckpointWatcher', () => {
  it('answers from the last position it saw, without reading again, once a position is reached', async () => {
    let reads = 0;
    const w = new CheckpointWatcher(async () => {
      reads++;
      return 10;
    });
    expect(await w.waitFor(5, 1000)).toBe(true);
    expect(await w.waitFor(5, 1000)).toBe(true);
    expect(reads).toBe(1);
  });

  it('resolves when the projections reach the position', async () => {
    let checkpoint = 0;
    const w = new CheckpointWatcher(async () => checkpoint, 2);
    const waiting = w.waitFor(7, 2000);
    setTimeout(() => (checkpoint = 7), 30);
    expect(await waiting).toBe(true);
    expect(w.position).toBe(7);
  });

  it('answers false when the timeout passes first', async () => {
    const w = new CheckpointWatcher(async () => 3, 2);
    const t0 = Date.now();
    expect(await w.waitFor(4, 50)).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
  });

  it('serves concurrent waiters with one read loop and treats read failures as not yet', async () => {
    let checkpoint = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let failing = true;
    const w = new CheckpointWatcher(async () => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((r) => setTimeout(r, 1));
      concurrent--;
      if (failing) throw new Error('mongo unreachable');
      return checkpoint;
    }, 2);
    const all = Promise.all([w.waitFor(1, 2000), w.waitFor(2, 2000), w.waitFor(9, 100)]);
    setTimeout(() => {
      failing = false;
      checkpoint = 2;
    }, 20);
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
