import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeJobStoreConformance, jobRecord } from '../testing/job-store.conformance';
import { SqliteJobStore } from './sqlite-job-store';

describeJobStoreConformance('SqliteJobStore', async () => ({ store: new SqliteJobStore(':memory:'), cleanup: async () => undefined }));

describe('SqliteJobStore', () => {
  it('keeps its records in the file across reopening (ops.db outlives the process)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-jobs-'));
    try {
      const file = path.join(dir, 'ops.db');
      const first = new SqliteJobStore(file);
      await first.save('org-1', jobRecord('j1', { status: 'completed', completed_at: 7 }));
      await first.close();
      const second = new SqliteJobStore(file);
      expect(await second.get('org-1', 'j1')).toMatchObject({ id: 'j1', status: 'completed' });
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
