import { JobRecord, assertCancellable, pageOfJobs, readJobListQuery } from './job-record';

function job(id: string, created_at: number, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id, kind: 'embed_all', title: id, status: 'completed', document_uid: null,
    progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 0, edges_created: 0, total_nodes: 0, processed_nodes: 0, embedded_nodes: 0, failed_nodes: 0 },
    result: null, error: null, created_at, updated_at: created_at, started_at: created_at, completed_at: created_at, ...over,
  };
}

describe('job records', () => {
  it('page newest first, ties by id, filtered before paging, with has_more exact', () => {
    const jobs = [job('b', 10), job('a', 10), job('c', 20, { status: 'failed' }), job('d', 5, { document_uid: 'doc-1' })];
    const page = (q: Record<string, unknown>) => pageOfJobs(jobs, readJobListQuery(q));
    expect(page({}).items.map((j) => j.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(page({ limit: 2, offset: 1 })).toMatchObject({ has_more: true, limit: 2, offset: 1 });
    expect(page({ limit: 2, offset: 1 }).items.map((j) => j.id)).toEqual(['a', 'b']);
    expect(page({ limit: 2, offset: 2 })).toMatchObject({ has_more: false });
    expect(page({ status: 'completed' }).items.map((j) => j.id)).toEqual(['a', 'b', 'd']);
    expect(page({ document_uid: 'doc-1' }).items.map((j) => j.id)).toEqual(['d']);
    expect(page({ limit: 99_999 }).limit).toBe(1000);
  });

  it('refuse unknown statuses and kinds, and cancelling a finished job', () => {
    expect(() => readJobListQuery({ status: 'done' })).toThrow(expect.objectContaining({ code: 'invalid_field', status: 400 }));
    expect(() => readJobListQuery({ kind: 'x' })).toThrow(expect.objectContaining({ code: 'invalid_field' }));
    for (const status of ['completed', 'failed', 'cancelled'] as const)
      expect(() => assertCancellable(job('j', 1, { status }))).toThrow(expect.objectContaining({ code: 'invalid_transition', status: 409, context: { from_status: status, allowed: [] } }));
    expect(() => assertCancellable(job('j', 1, { status: 'processing' }))).not.toThrow();
    expect(() => assertCancellable(job('j', 1, { status: 'pending' }))).not.toThrow();
  });
});
