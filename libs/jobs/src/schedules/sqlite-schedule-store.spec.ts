import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeScheduleStoreConformance } from '../testing/schedule-store.conformance';
import { SqliteScheduleStore } from './sqlite-schedule-store';

// a file, not ':memory:', so the two handles share it as two processes would
describeScheduleStoreConformance('SqliteScheduleStore', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-schedules-'));
  const file = path.join(dir, 'ops.db');
  return { store: new SqliteScheduleStore(file), other: new SqliteScheduleStore(file), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});
