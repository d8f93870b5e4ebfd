import { JobRecord, JobStatus } from '@strata/domain/jobs';
import { JobRegistry } from './job-registry';
import { SqliteJobStore } from './store/sqlite-job-store';

function registry(opts: { store?: SqliteJobStore; ownsAllJobs?: boolean; start?: number } = {}) {
  const clock = { now: () => opts.start ?? 1000 };
  const store = opts.store ?? new SqliteJobStore(':memory:');
  const jobs = new JobRegistry(clock as never, store, { ownsAllJobs: opts.ownsAllJobs ?? true });
  return { jobs, store };
}

let n = 0;
/** A record as an earlier version's in-process jobs wrote it to the job store. */
async function stored(store: SqliteJobStore, org: string, status: JobStatus, at = 1000): Promise<JobRecord> {
  const ended = status === 'completed' || status === 'failed' || status === 'cancelled';
  const job: JobRecord = {
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    kind: 'embed_all',
    title: `job ${n}`,
    status,
    document_uid: null,
    progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 0, edges_created: 0, total_nodes: 2, processed_nodes: 0, embedded_nodes: 0, failed_nodes: 0 },
    result: status === 'completed' ? { embedded_nodes: 2 } : null,
    error: null,
    created_at: at,
    updated_at: at,
    started_at: status === 'pending' ? null : at,
    completed_at: ended ? at : null,
  };
  await store.save(org, job);
  return job;
}

describe('JobRegistry over the job store (records of earlier versions)', () => {
  it('shows stored records, pending ones with their place in their organization only', async () => {
    const { jobs, store } = registry();
    const a = await stored(store, 'org-1', 'pending', 1000);
    const b = await stored(store, 'org-1', 'pending', 1001);
    await stored(store, 'org-2', 'pending', 999);
    expect((await jobs.get('org-1', a.id)).queue_position).toBe(1);
    expect((await jobs.get('org-1', b.id)).queue_position).toBe(2);
    await expect(jobs.get('org-2', a.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('at start-up, fails the records a stop left active, keeps the finished ones, and refuses to cancel those', async () => {
    const store = new SqliteJobStore(':memory:');
    const done = await stored(store, 'org-1', 'completed');
    const interrupted = await stored(store, 'org-1', 'processing');
    const second = registry({ store, start: 2000 });
    await second.jobs.recover();
    expect(await second.jobs.get('org-1', done.id)).toMatchObject({ status: 'completed', result: { embedded_nodes: 2 } });
    expect(await second.jobs.get('org-1', interrupted.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted'), completed_at: 2000 });
    expect((await second.jobs.list('org-1', { limit: 50, offset: 0 })).items.map((j) => j.id)).toEqual([done.id, interrupted.id]);
    await expect(second.jobs.cancel('org-1', done.id)).rejects.toMatchObject({ code: 'invalid_transition' });
  });

  it("in servers mode leaves other replicas' records alone, and cancels an active one in the store", async () => {
    const { jobs, store } = registry({ ownsAllJobs: false, start: 500 });
    const running = await stored(store, 'org-1', 'processing');
    await jobs.recover();
    expect((await jobs.get('org-1', running.id)).status).toBe('processing');
    expect((await jobs.cancel('org-1', running.id)).status).toBe('cancelled');
    expect((await store.get('org-1', running.id))?.status).toBe('cancelled');
  });

  it("on clear, forgets the organization's stored records, not another's", async () => {
    const { jobs, store } = registry();
    const done = await stored(store, 'org-1', 'completed');
    const other = await stored(store, 'org-2', 'completed');
    jobs.forgetStored('org-1');
    await jobs.flush();
    await expect(jobs.get('org-1', done.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await jobs.get('org-2', other.id)).status).toBe('completed');
  });
});

describe('JobRegistry over the durable queue', () => {
  async function withQueue() {
    const { FixedClock, ClockIds } = await import('@strata/domain/time');
    const { SqliteJobQueue } = await import('./queue/sqlite-job-queue');
    const clock = new FixedClock(5000);
    const ids = new ClockIds(clock);
    const queue = new SqliteJobQueue(':memory:', clock, ids);
    const jobs = new JobRegistry(clock, new SqliteJobStore(':memory:'), { ownsAllJobs: true }, queue);
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
