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

describe('SqliteJobQueue.enqueueClaimed', () => {
  let dir: string;
  let queue: SqliteJobQueue;
  const clock = new FixedClock(1_700_000_000);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-queue-'));
    queue = new SqliteJobQueue(path.join(dir, 'ops.db'), clock, new ClockIds(clock));
  });
  afterEach(async () => {
    await queue.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('hands back the job exactly as stored, claimed or left pending', async () => {
    const claimed = await queue.enqueueClaimed({ kind: 'k', org: 'o', input: { a: [1] }, progress: { p: 1 }, dedupeKey: 'd1', serialGroup: 'g', payload: 'x' }, 'me', 30);
    const pending = await queue.enqueueClaimed({ kind: 'k', org: 'o', input: null, serialGroup: 'g' }, 'me', 30);
    expect(claimed).toMatchObject({ created: true, claimed: true });
    expect(pending).toMatchObject({ created: true, claimed: false });
    for (const r of [claimed, pending]) expect({ ...r.job, checkpoint: r.job.checkpoint }).toEqual({ ...(await queue.get('o', r.job.id))!, checkpoint: null });
    expect(claimed.job).toMatchObject({ status: 'running', owner: 'me', attempts: 1, lease_until: clock.now() + 30, started_at: clock.now() });
    expect(pending.job).toMatchObject({ status: 'pending', owner: null, attempts: 0, lease_until: null, started_at: null });
    expect(await queue.payload(claimed.job.id)).toBe('x');
  });
});
