import { JobRegistry } from './job-registry';
import { SqliteJobStore } from './store/sqlite-job-store';

function registry(opts: { store?: SqliteJobStore; ownsAllJobs?: boolean; start?: number } = {}) {
  let now = opts.start ?? 1000;
  let n = 0;
  const clock = { now: () => now };
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n + (opts.start ?? 0)).padStart(12, '0')}` };
  const store = opts.store ?? new SqliteJobStore(':memory:');
  const jobs = new JobRegistry(clock as never, ids as never, store, { ownsAllJobs: opts.ownsAllJobs ?? true });
  return { jobs, store, tick: (s = 1) => (now += s) };
}

describe('JobRegistry', () => {
  it('gives pending jobs their place in the queue of their organization only', async () => {
    const { jobs, tick } = registry();
    const a = jobs.create('org-1', 'embed_all', 'a', 0);
    tick();
    const b = jobs.create('org-1', 'embed_all', 'b', 0);
    jobs.create('org-2', 'embed_all', 'other', 0);
    expect((await jobs.get('org-1', b.id)).queue_position).toBe(2);
    jobs.update(a, { status: 'processing' });
    expect(await jobs.get('org-1', a.id)).not.toHaveProperty('queue_position');
    expect((await jobs.get('org-1', b.id)).queue_position).toBe(1);
  });

  it('keeps a cancelled job cancelled whatever its runner reports afterwards', async () => {
    const { jobs } = registry();
    const a = jobs.create('org-1', 'embed_all', 'a', 3);
    jobs.update(a, { status: 'processing' });
    expect((await jobs.cancel('org-1', a.id)).status).toBe('cancelled');
    jobs.update(a, { status: 'completed', progress: { embedded_nodes: 3 } });
    expect(await jobs.get('org-1', a.id)).toMatchObject({ status: 'cancelled', progress: { embedded_nodes: 0 } });
  });

  it('on clear, cancels the active jobs of the organization and forgets all of them, stored ones too', async () => {
    const { jobs, store } = registry();
    const done = jobs.create('org-1', 'embed_all', 'done', 0);
    jobs.update(done, { status: 'completed' });
    const running = jobs.create('org-1', 'embed_all', 'running', 0);
    jobs.update(running, { status: 'processing' });
    const other = jobs.create('org-2', 'embed_all', 'other', 0);
    expect(jobs.cancelAndForget('org-1')).toBe(1);
    expect(running.status).toBe('cancelled');
    await expect(jobs.get('org-1', done.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await jobs.list('org-1', { limit: 50, offset: 0 })).items).toEqual([]);
    expect(await store.ofOrg('org-1')).toEqual([]);
    expect((await jobs.get('org-2', other.id)).status).toBe('pending');
  });

  it('keeps finished jobs across a restart, and fails the ones a stop interrupted', async () => {
    const store = new SqliteJobStore(':memory:');
    const first = registry({ store });
    const done = first.jobs.create('org-1', 'embed_all', 'done', 2);
    first.jobs.update(done, { status: 'processing' });
    first.jobs.update(done, { status: 'completed', result: { embedded_nodes: 2 }, progress: { embedded_nodes: 2 } });
    const interrupted = first.jobs.create('org-1', 'embed_all', 'interrupted', 5);
    first.jobs.update(interrupted, { status: 'processing' });
    await first.jobs.flush();

    // a new process on the same store
    const second = registry({ store, start: 2000 });
    await second.jobs.recover();
    expect(await second.jobs.get('org-1', done.id)).toMatchObject({ status: 'completed', result: { embedded_nodes: 2 }, progress: { embedded_nodes: 2 } });
    expect(await second.jobs.get('org-1', interrupted.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted'), completed_at: 2000 });
    // same created_at: ties by id
    expect((await second.jobs.list('org-1', { limit: 50, offset: 0 })).items.map((j) => j.id)).toEqual([done.id, interrupted.id]);
    await expect(second.jobs.get('org-2', done.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(second.jobs.cancel('org-1', done.id)).rejects.toMatchObject({ code: 'invalid_transition' });
  });

  it('in servers mode leaves other replicas\' active jobs alone, shows them, and can cancel them in the store', async () => {
    const store = new SqliteJobStore(':memory:');
    const a = registry({ store, ownsAllJobs: false });
    const running = a.jobs.create('org-1', 'embed_all', 'on replica a', 5);
    a.jobs.update(running, { status: 'processing' });
    await a.jobs.flush();
    const b = registry({ store, ownsAllJobs: false, start: 500 });
    await b.jobs.recover();
    expect((await b.jobs.get('org-1', running.id)).status).toBe('processing');
    expect((await b.jobs.cancel('org-1', running.id)).status).toBe('cancelled');
    expect((await store.get('org-1', running.id))?.status).toBe('cancelled');
  });

  it('drops finished jobs after the retention period, never active ones', async () => {
    const { jobs, tick, store } = registry();
    const old = jobs.create('org-1', 'embed_all', 'old', 0);
    jobs.update(old, { status: 'failed', error: 'x' });
    const slow = jobs.create('org-1', 'embed_all', 'still running', 0);
    jobs.update(slow, { status: 'processing' });
    tick(7 * 86_400);
    jobs.create('org-1', 'embed_all', 'a week later', 0);
    await jobs.flush();
    expect((await store.ofOrg('org-1')).length).toBe(3); // kept at least 7 days
    tick(2 * 86_400);
    jobs.create('org-1', 'embed_all', 'nine days later', 0);
    await jobs.flush();
    const left = (await store.ofOrg('org-1')).map((j) => j.title).sort();
    expect(left).toEqual(['a week later', 'nine days later', 'still running']);
  });
});

describe('JobRegistry over the durable queue', () => {
  async function withQueue() {
    const { FixedClock, ClockIds } = await import('@strata/domain/time');
    const { SqliteJobQueue } = await import('./queue/sqlite-job-queue');
    const clock = new FixedClock(5000);
    const ids = new ClockIds(clock);
    const queue = new SqliteJobQueue(':memory:', clock, ids);
    const jobs = new JobRegistry(clock, ids, new SqliteJobStore(':memory:'), { ownsAllJobs: true }, queue);
    return { queue, jobs, clock };
  }

  it('shows, lists and cancels jobs of the runner as §9.4 records', async () => {
    const { queue, jobs, clock } = await withQueue();
    const { job: a } = await queue.enqueue({ kind: 'synthesis', org: 'org-1', input: { title: 'Synthesis of P' } });
    clock.advance(1);
    const { job: b } = await queue.enqueue({ kind: 'synthesis', org: 'org-1', input: { title: 'Synthesis of Q', document_uid: 'doc-1' } });
    await queue.enqueue({ kind: 'schedule_slot', org: 'org-1', input: {} });
    expect(await jobs.get('org-1', a.id)).toMatchObject({ id: a.id, kind: 'synthesis', title: 'Synthesis of P', status: 'pending', document_uid: null, result: null, queue_position: 1, created_at: 5000, started_at: null, completed_at: null });
    expect(await jobs.get('org-1', b.id)).toMatchObject({ document_uid: 'doc-1', queue_position: 2 });
    await expect(jobs.get('org-2', a.id)).rejects.toMatchObject({ code: 'not_found' });
    // jobs of other kinds than §9.4's are not shown
    expect((await jobs.list('org-1', { limit: 50, offset: 0 })).items.map((j) => j.id)).toEqual([b.id, a.id]);

    const claimed = (await queue.claim(['synthesis'], 'me', 60))!;
    await queue.progress(claimed.id, 'me', { nodes_created: 2, junk: 'x' });
    expect(await jobs.get('org-1', claimed.id)).toMatchObject({ status: 'processing', progress: { nodes_created: 2, edges_created: 0 }, started_at: 5001 });
    await queue.complete(claimed.id, 'me', { articles_created: 2 });
    expect(await jobs.get('org-1', claimed.id)).toMatchObject({ status: 'completed', result: { articles_created: 2 }, completed_at: 5001 });
    await expect(jobs.cancel('org-1', claimed.id)).rejects.toMatchObject({ code: 'invalid_transition' });

    const pending = claimed.id === a.id ? b : a;
    expect(await jobs.cancel('org-1', pending.id)).toMatchObject({ id: pending.id, status: 'cancelled' });
  });
});
