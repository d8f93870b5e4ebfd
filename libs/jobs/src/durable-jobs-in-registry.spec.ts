import { FixedClock } from '@strata/domain/time';
import { DomainError } from '@strata/domain/errors';
import { JobRegistry } from './job-registry';
import { QueuedJob } from './queue/job-queue.port';
import { SqliteJobQueue } from './queue/sqlite-job-queue';
import { SqliteJobStore } from './store/sqlite-job-store';

function setup() {
  const clock = new FixedClock(1000);
  let n = 0;
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  const queue = new SqliteJobQueue(':memory:', clock, ids as never);
  const jobs = new JobRegistry(clock, ids as never, new SqliteJobStore(':memory:'), { ownsAllJobs: true }, queue);
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

  it('cancels every active durable job of an organization (POST /clear)', async () => {
    const { jobs, enqueue } = setup();
    await enqueue('a');
    await enqueue('b');
    await enqueue('c', 'org-2');
    expect(await jobs.cancelDurableOf('org-1')).toBe(2);
    expect((await jobs.activeDurable('org-1', ['ingest_document'])).length).toBe(0);
    expect((await jobs.activeDurable('org-2', ['ingest_document'])).length).toBe(1);
  });
});
