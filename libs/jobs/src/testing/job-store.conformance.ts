/// <reference types="jest" />
import { JobRecord } from '@strata/domain/jobs';
import { JobStore } from '../store/job-store.port';

export function jobRecord(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return {
    id, kind: 'embed_all', title: `job ${id}`, status: 'pending', document_uid: null,
    progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 0, edges_created: 0, total_nodes: 3, processed_nodes: 0, embedded_nodes: 0, failed_nodes: 0 },
    result: null, error: null, created_at: 100, updated_at: 100, started_at: null, completed_at: null, ...over,
  };
}

/** One conformance suite for every JobStore adapter (SQLite in ops.db, MongoDB). */
export function describeJobStoreConformance(name: string, open: () => Promise<{ store: JobStore; cleanup: () => Promise<void> }>): void {
  describe(`${name} (JobStore conformance)`, () => {
    let store: JobStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('saves a record and gives it back whole, replacing it on the next save', async () => {
      const job = jobRecord('j1', { result: { nested: { a: [1, 'x', null] } } });
      await store.save('org-1', job);
      expect(await store.get('org-1', 'j1')).toEqual(job);
      const done = { ...job, status: 'completed' as const, completed_at: 200, progress: { ...job.progress, embedded_nodes: 3 } };
      await store.save('org-1', done);
      expect(await store.get('org-1', 'j1')).toEqual(done);
      expect(await store.ofOrg('org-1')).toEqual([done]);
    });

    it("keeps organizations apart: another organization's job is not found", async () => {
      await store.save('org-1', jobRecord('j1'));
      await store.save('org-2', jobRecord('j2'));
      expect(await store.get('org-2', 'j1')).toBeNull();
      expect((await store.ofOrg('org-2')).map((j) => j.id)).toEqual(['j2']);
    });

    it('lists the active records of every organization', async () => {
      await store.save('org-1', jobRecord('a', { status: 'pending' }));
      await store.save('org-2', jobRecord('b', { status: 'processing' }));
      await store.save('org-1', jobRecord('c', { status: 'failed', completed_at: 5 }));
      const active = (await store.active()).map((s) => `${s.org}/${s.job.id}`).sort();
      expect(active).toEqual(['org-1/a', 'org-2/b']);
    });

    it('forgets an organization, and finished records older than a cut-off', async () => {
      await store.save('org-1', jobRecord('a'));
      await store.save('org-2', jobRecord('old', { status: 'completed', completed_at: 10 }));
      await store.save('org-2', jobRecord('new', { status: 'cancelled', completed_at: 30 }));
      await store.save('org-2', jobRecord('running', { status: 'processing' }));
      await store.removeOrg('org-1');
      expect(await store.ofOrg('org-1')).toEqual([]);
      await store.removeFinishedBefore(20);
      expect((await store.ofOrg('org-2')).map((j) => j.id).sort()).toEqual(['new', 'running']);
    });
  });
}
