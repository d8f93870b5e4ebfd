import { jobRecord } from '../testing/job-store.conformance';
import { jobDocument, jobFilters, jobFromDocument } from './mongo-job-documents';

describe('MongoDB job documents', () => {
  it('key a record by its id with its organization, and give the same record back', () => {
    const job = { ...jobRecord('j1', { status: 'processing', started_at: 101 }), queue_position: 2 };
    const doc = jobDocument('org-1', job);
    expect(doc).toMatchObject({ _id: 'j1', org: 'org-1', status: 'processing', started_at: 101 });
    // the queue position is computed on every read, never stored
    expect(doc).not.toHaveProperty('queue_position');
    expect(doc).not.toHaveProperty('id');
    const { queue_position: _, ...stored } = job;
    expect(jobFromDocument(doc)).toEqual(stored);
  });

  it('filter by organization and id, active statuses, and finished records before a cut-off', () => {
    expect(jobFilters.byId('org-1', 'j1')).toEqual({ _id: 'j1', org: 'org-1' });
    expect(jobFilters.ofOrg('org-1')).toEqual({ org: 'org-1' });
    expect(jobFilters.active()).toEqual({ status: { $in: ['pending', 'processing'] } });
    expect(jobFilters.finishedBefore(50)).toEqual({ completed_at: { $ne: null, $lt: 50 } });
  });
});
