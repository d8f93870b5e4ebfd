import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClockIds, FixedClock } from '@strata/domain/time';
import { describeJobQueueConformance } from '../testing/job-queue.conformance';
import { SqliteJobQueue } from './sqlite-job-queue';

// a file, not ':memory:', so the two handles share it as the service and a CLI command do
describeJobQueueConformance('SqliteJobQueue', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-queue-'));
  const file = path.join(dir, 'ops.db');
  const clock = new FixedClock();
  const ids = new ClockIds(clock);
  return {
    queue: new SqliteJobQueue(file, clock, ids),
    other: new SqliteJobQueue(file, clock, ids),
    clock,
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
