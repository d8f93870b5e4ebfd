import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClockIds, FixedClock } from '@strata/domain/time';
import { SqliteJobQueue } from '../queue/sqlite-job-queue';
import { JobContext, JobRunner, JobStopped } from './job-runner';
import { QueuedJob } from '../queue/job-queue.port';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** resolves when the signal aborts, with its reason */
const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => (signal.aborted ? reject(signal.reason) : signal.addEventListener('abort', () => reject(signal.reason))));

describe('JobRunner', () => {
  let dir: string;
  let file: string;
  let clock: FixedClock;
  let queue: SqliteJobQueue;
  const opened: SqliteJobQueue[] = [];
  const open = () => {
    const q = new SqliteJobQueue(file, clock, new ClockIds(clock));
    opened.push(q);
    return q;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-runner-'));
    file = path.join(dir, 'ops.db');
    clock = new FixedClock();
    queue = open();
  });
  afterEach(async () => {
    for (const q of opened.splice(0)) await q.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs a job to completion with its handler, recording progress and the result', async () => {
    const runner = new JobRunner(queue, clock, { owner: 'r1' });
    runner.register('count', {
      run: async (job, ctx) => {
        const n = (job.input as { n: number }).n;
        for (let i = 1; i <= n; i++) await ctx.progress({ done: i, total: n });
        return { counted: n };
      },
    });
    const { job } = await queue.enqueue({ kind: 'count', org: 'org-1', input: { n: 3 } });
    await runner.tick();
    await runner.settled();
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed', result: { counted: 3 }, progress: { done: 3, total: 3 }, attempts: 1 });
  });

  it('starts a job at once when woken after an enqueue, not at its next poll; a runner that is not polling ignores the wake', async () => {
    const ran = deferred<string>();
    const runner = new JobRunner(queue, clock, { owner: 'r1' }).register('now', { run: async (job) => ran.resolve(job.id) });
    const { job } = await queue.enqueue({ kind: 'now', org: 'org-1', input: null });
    runner.wake();
    expect((await queue.get('org-1', job.id))!.status).toBe('pending');
    runner.start(3600);
    try {
      runner.wake();
      expect(await ran.promise).toBe(job.id);
      await runner.settled();
      expect((await queue.get('org-1', job.id))!.status).toBe('completed');
    } finally {
      await runner.stop();
    }
  });

  it('fails a job whose handler throws, with the error message', async () => {
    const runner = new JobRunner(queue, clock, { owner: 'r1' }).register('broken', { run: async () => Promise.reject(new Error('model not found')) });
    const { job } = await queue.enqueue({ kind: 'broken', org: 'org-1', input: null });
    await runner.tick();
    await runner.settled();
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'failed', error: 'model not found' });
  });

  it('tells of each job it ran to its end, by kind and outcome, and counts the ones it runs by kind', async () => {
    const ended: { kind: string; outcome: string; seconds: number }[] = [];
    const gate = deferred();
    const runner = new JobRunner(queue, clock, { owner: 'r1', onJobEnded: (e) => ended.push(e) })
      .register('slow', { run: async () => gate.promise })
      .register('broken', { run: async () => Promise.reject(new Error('no')) });
    await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await queue.enqueue({ kind: 'broken', org: 'org-1', input: null });
    await runner.tick();
    expect(Object.fromEntries(runner.runningByKind())).toEqual({ slow: 1, broken: 1 });
    gate.resolve();
    await runner.settled();
    expect(ended.map((e) => `${e.kind}:${e.outcome}`).sort()).toEqual(['broken:failed', 'slow:completed']);
    for (const e of ended) expect(e.seconds).toBeGreaterThanOrEqual(0);
    expect(runner.runningByKind().size).toBe(0);
  });

  it('resumes a job from its checkpoint after its runner died, once the lease has expired', async () => {
    // the first process: processes items from the checkpoint on, and dies after item 2
    const died = deferred();
    const firstSeen: number[] = [];
    const first = new JobRunner(queue, clock, { owner: 'first', leaseSeconds: 30 });
    first.register('items', {
      run: async (job, ctx) => {
        const items = (job.input as { items: number[] }).items;
        const from = (job.checkpoint as { next: number } | null)?.next ?? 0;
        for (let i = from; i < items.length; i++) {
          if (i === 2) {
            died.resolve();
            return new Promise(() => undefined); // the process stops here: nothing more is written
          }
          firstSeen.push(items[i]!);
          await ctx.checkpoint({ next: i + 1 }, { done: i + 1 });
        }
        return null;
      },
    });
    const { job } = await queue.enqueue({ kind: 'items', org: 'org-1', input: { items: [10, 20, 30, 40, 50] } });
    await first.tick();
    await died.promise;

    // the restarted process, on the same ops.db
    const secondSeen: number[] = [];
    const second = new JobRunner(open(), clock, { owner: 'second', leaseSeconds: 30 });
    second.register('items', {
      run: async (j, ctx: JobContext) => {
        const items = (j.input as { items: number[] }).items;
        for (let i = (j.checkpoint as { next: number }).next; i < items.length; i++) {
          secondSeen.push(items[i]!);
          await ctx.checkpoint({ next: i + 1 }, { done: i + 1 });
        }
        return { sum: items.reduce((a, b) => a + b, 0) };
      },
    });
    await second.tick();
    expect(second.runningIds()).toEqual([]); // the dead runner's lease still holds
    clock.advance(30);
    await second.tick();
    await second.settled();

    expect(firstSeen).toEqual([10, 20]);
    expect(secondSeen).toEqual([30, 40, 50]);
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed', attempts: 2, result: { sum: 150 }, progress: { done: 5 }, checkpoint: { next: 5 } });
  });

  it('starts a job it enqueues at once, claimed in the enqueue itself, with a lease another runner honours until it lapses', async () => {
    const died = deferred();
    const first = new JobRunner(queue, clock, { owner: 'first', leaseSeconds: 30 }).register('slow', {
      run: () => (died.resolve(), new Promise(() => undefined)), // the process stops inside the job
    });
    const started = await first.enqueueAndStart({ kind: 'slow', org: 'org-1', input: null, dedupeKey: 'k' });
    expect(started).toMatchObject({ created: true, started: true, job: { status: 'running', owner: 'first', attempts: 1, lease_until: clock.now() + 30 } });
    await died.promise;
    expect(first.runningIds()).toEqual([started.job.id]);
    // the same key while it runs: the running job, not a second one
    expect(await first.enqueueAndStart({ kind: 'slow', org: 'org-1', input: null, dedupeKey: 'k' })).toMatchObject({ created: false, started: false, job: { id: started.job.id } });

    const second = new JobRunner(open(), clock, { owner: 'second', leaseSeconds: 30 }).register('slow', { run: async () => 'taken over' });
    await second.tick();
    expect(second.runningIds()).toEqual([]);
    clock.advance(30);
    await second.tick();
    await second.settled();
    expect(await queue.get('org-1', started.job.id)).toMatchObject({ status: 'completed', result: 'taken over', attempts: 2 });
  });

  it('leaves a job it enqueues pending behind an earlier job of its serial group, and claims it once that one ended', async () => {
    const release = deferred();
    const ran: string[] = [];
    const runner = new JobRunner(queue, clock, { owner: 'r1', concurrency: 4 }).register('step', {
      run: async (job) => {
        ran.push((job.input as { n: string }).n);
        if ((job.input as { n: string }).n === 'a') await release.promise;
      },
    });
    const a = await runner.enqueueAndStart({ kind: 'step', org: 'org-1', input: { n: 'a' }, serialGroup: 's' });
    const b = await runner.enqueueAndStart({ kind: 'step', org: 'org-1', input: { n: 'b' }, serialGroup: 's' });
    const other = await runner.enqueueAndStart({ kind: 'step', org: 'org-2', input: { n: 'c' }, serialGroup: 's' });
    expect([a.started, b.started, other.started]).toEqual([true, false, true]);
    expect(await queue.get('org-1', b.job.id)).toMatchObject({ status: 'pending', owner: null, attempts: 0 });
    release.resolve();
    await runner.settled();
    await runner.tick();
    await runner.settled();
    expect(ran).toEqual(['a', 'c', 'b']);
  });

  it('enqueues without starting when it runs `concurrency` jobs already, and claims the job in a later round', async () => {
    const release = deferred();
    const runner = new JobRunner(queue, clock, { owner: 'r1', concurrency: 1 }).register('slow', { run: () => release.promise });
    expect((await runner.enqueueAndStart({ kind: 'slow', org: 'org-1', input: null })).started).toBe(true);
    const queued = await runner.enqueueAndStart({ kind: 'slow', org: 'org-1', input: null });
    expect(queued).toMatchObject({ started: false, job: { status: 'pending' } });
    release.resolve();
    await runner.settled();
    await runner.tick();
    await runner.settled();
    expect(await queue.get('org-1', queued.job.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('keeps its lease while a job runs, so no other runner takes it', async () => {
    const release = deferred();
    const runner = new JobRunner(queue, clock, { owner: 'r1', leaseSeconds: 30 }).register('slow', { run: () => release.promise });
    const other = new JobRunner(open(), clock, { owner: 'r2', leaseSeconds: 30 }).register('slow', { run: async () => 'stolen' });
    const { job } = await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await runner.tick();
    for (let i = 0; i < 5; i++) {
      clock.advance(20);
      await runner.tick();
      await other.tick();
      expect(other.runningIds()).toEqual([]);
    }
    release.resolve();
    await runner.settled();
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it("tells a job through its signal when another runner took it over, and drops the stale runner's writes", async () => {
    let reason: unknown;
    const stale = new JobRunner(queue, clock, { owner: 'stale', leaseSeconds: 30 }).register('slow', {
      run: (_job, ctx) => aborted(ctx.signal).catch((r) => ((reason = r), Promise.reject(r))),
    });
    const fresh = new JobRunner(open(), clock, { owner: 'fresh', leaseSeconds: 30 }).register('slow', { run: async () => 'mine' });
    const { job } = await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await stale.tick();
    clock.advance(31); // the stale runner stalled past its lease
    await fresh.tick();
    await fresh.settled();
    await stale.tick();
    await stale.settled();
    expect(reason).toEqual(new JobStopped('lease_lost'));
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed', result: 'mine', owner: null });
  });

  it('stops a running job when cancel is requested, and records it cancelled', async () => {
    const started = deferred();
    let reason: unknown;
    const runner = new JobRunner(queue, clock, { owner: 'r1' }).register('slow', {
      run: (_job, ctx) => (started.resolve(), aborted(ctx.signal).catch((r) => ((reason = r), Promise.reject(r)))),
    });
    const { job } = await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await runner.tick();
    await started.promise;
    await queue.requestCancel('org-1', job.id);
    await runner.tick();
    await runner.settled();
    expect((reason as JobStopped).why).toBe('cancelled');
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'cancelled' });
  });

  it('cancels a job it runs at once when asked here, without waiting for its next round; nothing for a job it does not run', async () => {
    const started = deferred();
    const runner = new JobRunner(queue, clock, { owner: 'r1' }).register('slow', { run: (_job, ctx) => (started.resolve(), aborted(ctx.signal)) });
    const { job } = await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await runner.tick();
    await started.promise;
    expect(runner.cancelHere('another-job')).toBeNull();
    await runner.cancelHere(job.id);
    expect(runner.runningIds()).toEqual([]);
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'cancelled' });
    await runner.settledJob(job.id); // at once: the job no longer runs here
  });

  it('runs at most `concurrency` jobs at once, oldest first', async () => {
    const gates = new Map<string, () => void>();
    const runner = new JobRunner(queue, clock, { owner: 'r1', concurrency: 2 }).register('slow', {
      run: (job: QueuedJob) => new Promise<void>((r) => gates.set(job.id, r)),
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await queue.enqueue({ kind: 'slow', org: 'org-1', input: i })).job.id);
      clock.advance(1);
    }
    await runner.tick();
    expect(runner.runningIds()).toEqual(ids.slice(0, 2));
    await runner.tick();
    expect(runner.runningIds()).toEqual(ids.slice(0, 2));
    await Promise.resolve(); // the handlers have registered their gates
    gates.get(ids[0]!)!();
    while (runner.runningIds().length === 2) await new Promise((r) => setImmediate(r));
    await runner.tick();
    expect(runner.runningIds()).toEqual([ids[1], ids[2]]);
    gates.get(ids[1]!)!();
    await new Promise((r) => setImmediate(r)); // the third handler has registered its gate
    gates.get(ids[2]!)!();
    await runner.settled();
    expect((await queue.list('org-1')).map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('hands its jobs back to the queue when it stops, for another runner to resume at once', async () => {
    const runner = new JobRunner(queue, clock, { owner: 'r1', leaseSeconds: 300 }).register('slow', { run: (_j, ctx) => aborted(ctx.signal) });
    const next = new JobRunner(open(), clock, { owner: 'r2', leaseSeconds: 300 }).register('slow', { run: async (j) => j.attempts });
    const { job } = await queue.enqueue({ kind: 'slow', org: 'org-1', input: null });
    await runner.tick();
    await runner.stop();
    await runner.tick(); // a stopped runner claims nothing
    expect(runner.runningIds()).toEqual([]);
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'pending', owner: null });
    await next.tick();
    await next.settled();
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed', result: 2 });
  });

  it('stops without waiting forever for a handler that ignores its signal, leaving the job to lapse to another runner', async () => {
    jest.useFakeTimers();
    try {
      const runner = new JobRunner(queue, clock, { owner: 'r1', leaseSeconds: 30, stopWaitMs: 500 }).register('stubborn', { run: () => new Promise(() => undefined) });
      const { job } = await queue.enqueue({ kind: 'stubborn', org: 'org-1', input: null });
      await runner.tick();
      const stopped = runner.stop();
      await jest.advanceTimersByTimeAsync(500);
      await stopped;
      expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'running', owner: 'r1' });
      clock.advance(30);
      expect(await queue.claim(['stubborn'], 'r2', 30)).toMatchObject({ id: job.id, attempts: 2 });
    } finally {
      jest.useRealTimers();
    }
  });

  it('fails a job instead of running it once its runner died more than `maxAttempts` times', async () => {
    const runner = new JobRunner(queue, clock, { owner: 'r', leaseSeconds: 10, maxAttempts: 2 }).register('crashy', { run: () => new Promise(() => undefined) });
    const { job } = await queue.enqueue({ kind: 'crashy', org: 'org-1', input: null });
    for (let i = 0; i < 2; i++) {
      await queue.claim(['crashy'], `dead-${i}`, 10);
      clock.advance(10);
    }
    await runner.tick();
    expect(runner.runningIds()).toEqual([]);
    expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'failed', error: 'gave up after 2 attempts: its runner stopped each time', attempts: 3 });
  });

  it('refuses two handlers for one kind', () => {
    const runner = new JobRunner(queue, clock, { owner: 'r' }).register('a', { run: async () => null });
    expect(() => runner.register('a', { run: async () => null })).toThrow('already registered');
  });

  it('polls on a timer once started, and stops polling when stopped', async () => {
    jest.useFakeTimers();
    try {
      const runner = new JobRunner(queue, clock, { owner: 'r' }).register('quick', { run: async () => 'ok' });
      const { job } = await queue.enqueue({ kind: 'quick', org: 'org-1', input: null });
      runner.start(1);
      await jest.advanceTimersByTimeAsync(1000);
      await runner.settled();
      expect(await queue.get('org-1', job.id)).toMatchObject({ status: 'completed' });
      await runner.stop();
      const { job: later } = await queue.enqueue({ kind: 'quick', org: 'org-1', input: null });
      await jest.advanceTimersByTimeAsync(5000);
      expect(await queue.get('org-1', later.id)).toMatchObject({ status: 'pending' });
    } finally {
      jest.useRealTimers();
    }
  });
});
