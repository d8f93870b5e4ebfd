import { FixedClock } from '@strata/domain/time';
import { DomainError } from '@strata/domain/errors';
import { JobRegistry } from './job-registry';
import { QueuedJob } from './queue/job-queue.port';
import { SqliteJobQueue } from './queue/sqlite-job-queue';
import { SqliteJobStore } from './store/sqlite-job-store';
import { JobRunner } from './runner/job-runner';

function setup() {
  const clock = new FixedClock(1000);
  let n = 0;
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  const queue = new SqliteJobQueue(':memory:', clock, ids as never);
  const jobs = new JobRegistry(clock, new SqliteJobStore(':memory:'), { ownsAllJobs: true }, queue);
  const heard: QueuedJob[] = [];
  jobs.onDurableKind('ingest_document', { cancelledBeforeStart: async (j) => void heard.push(j) });
  const enqueue = async (title: string, org = 'org-1') => {
    const { job } = await queue.enqueue({ kind: 'ingest_document', org, input: { title, document_uid: `doc-${title}` }, serialGroup: 'ingestion' });
    clock.advance(1);
    return job;
  };
  return { clock, queue, jobs, heard, enqueue };
}

describe('durable jobs shown by the JobRegistry', () => {
  it('shows a queued job as its REFERENCE record: title, document, processing while running, progress, result', async () => {
    const { queue, jobs, enqueue } = setup();
    const a = await enqueue('a');
    const b = await enqueue('b');
    expect(await jobs.get('org-1', b.id)).toMatchObject({ id: b.id, kind: 'ingest_document', title: 'b', document_uid: 'doc-b', status: 'pending', queue_position: 2, result: null, error: null });
    await queue.claim(['ingest_document'], 'r1', 60);
    await queue.progress(a.id, 'r1', { total_chunks: 4, processed_chunks: 1, nodes_created: 3, edges_created: 5 });
    const running = await jobs.get('org-1', a.id);
    expect(running).toMatchObject({ status: 'processing', progress: { total_chunks: 4, processed_chunks: 1, nodes_created: 3, edges_created: 5 } });
    expect(running).not.toHaveProperty('queue_position');
    expect((await jobs.get('org-1', b.id)).queue_position).toBe(1);
    await queue.complete(a.id, 'r1', { chunks_completed: 4 });
    expect(await jobs.get('org-1', a.id)).toMatchObject({ status: 'completed', result: { chunks_completed: 4 }, completed_at: 1002 });
    const page = await jobs.list('org-1', { limit: 50, offset: 0 });
    expect(page.items.map((j) => j.id)).toEqual([b.id, a.id]);
    await expect(jobs.get('org-2', a.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('cancels a pending job at once (its kind hears of it), flags a running one, and refuses a finished one', async () => {
    const { queue, jobs, heard, enqueue } = setup();
    const a = await enqueue('a');
    const b = await enqueue('b');
    await queue.claim(['ingest_document'], 'r1', 60);
    expect((await jobs.cancel('org-1', b.id)).status).toBe('cancelled');
    expect(heard.map((j) => j.id)).toEqual([b.id]);
    const flagged = await jobs.cancel('org-1', a.id);
    expect(flagged.status).toBe('processing');
    expect((await queue.get('org-1', a.id))!.cancel_requested).toBe(true);
    expect(heard).toHaveLength(1);
    const err = await jobs.cancel('org-1', b.id).catch((e: DomainError) => e);
    expect(err).toMatchObject({ status: 409, code: 'invalid_transition' });
  });

  it('cancels every active durable job of an organization and forgets those that ended (POST /clear)', async () => {
    const { queue, jobs, enqueue } = setup();
    const a = await enqueue('a');
    const b = await enqueue('b');
    const c = await enqueue('c', 'org-2');
    await queue.claim(['ingest_document'], 'r1', 60);
    expect(await jobs.cancelDurableOf('org-1')).toBe(2);
    expect((await jobs.activeDurable('org-1', ['ingest_document'])).map((j) => j.id)).toEqual([a.id]);
    expect((await jobs.activeDurable('org-2', ['ingest_document'])).length).toBe(1);
    // the pending one ended at once and is forgotten; the running one ends after its step, and stays listed until then
    await expect(jobs.get('org-1', b.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await queue.get('org-1', a.id))!.cancel_requested).toBe(true);
    expect((await jobs.get('org-2', c.id)).status).toBe('pending');
  });

  it('stops a running job of a `stopsAtOnce` kind that runs in this process before answering the cancel', async () => {
    const clock = new FixedClock(1000);
    let n = 0;
    const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
    const queue = new SqliteJobQueue(':memory:', clock, ids as never);
    const runner = new JobRunner(queue, clock, { owner: 'r1' });
    const jobs = new JobRegistry(clock, new SqliteJobStore(':memory:'), { ownsAllJobs: true }, queue, runner);
    let stoppedMidway = false;
    runner.register('embed_all', {
      run: (_job, ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            stoppedMidway = true;
            reject(ctx.signal.reason);
          }),
        ),
    });
    jobs.onDurableKind('embed_all', { stopsAtOnce: true });
    const { job } = await queue.enqueue({ kind: 'embed_all', org: 'org-1', input: { title: 'Embed' } });
    await runner.tick();
    const answer = await jobs.cancel('org-1', job.id);
    expect(stoppedMidway).toBe(true);
    expect(answer).toMatchObject({ status: 'cancelled', completed_at: 1000 });
    expect(await jobs.cancelDurableOf('org-1')).toBe(0);
    await expect(jobs.get('org-1', job.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
