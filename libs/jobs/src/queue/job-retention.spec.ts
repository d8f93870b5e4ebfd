import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClockIds, FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { JobRunner } from '../runner/job-runner';
import { Scheduler, enqueueSlotJob } from '../schedules/scheduler';
import { SqliteScheduleStore } from '../schedules/sqlite-schedule-store';
import { JOB_RETENTION_JOB, JOB_RETENTION_SCHEDULE, JobRetention } from './job-retention';
import { SqliteJobQueue } from './sqlite-job-queue';

const DAY = 86_400;

describe('JobRetention', () => {
  let dir: string;
  let clock: FixedClock;
  let queue: SqliteJobQueue;
  let schedules: SqliteScheduleStore;
  let scheduler: Scheduler;
  let runner: JobRunner;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-retention-'));
    clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    const ids = new ClockIds(clock);
    queue = new SqliteJobQueue(path.join(dir, 'ops.db'), clock, ids);
    schedules = new SqliteScheduleStore(path.join(dir, 'ops.db'));
    scheduler = new Scheduler(schedules, clock, ids, enqueueSlotJob(queue));
    runner = new JobRunner(queue, clock, { owner: 'this-process' });
    await new JobRetention(queue, null, clock, 8).install(runner, scheduler);
  });
  afterEach(async () => {
    await runner.stop();
    await queue.close();
    await schedules.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Moves the clock to `iso`, then to the retention schedule's next slot, and runs what fires there. */
  async function pruneAfter(iso: string): Promise<void> {
    clock.set(at(iso));
    await scheduler.tick(); // slots passed meanwhile are reported missed
    clock.set((await scheduler.get(JOB_RETENTION_SCHEDULE.org, JOB_RETENTION_SCHEDULE.id))!.next_run_at!);
    expect((await scheduler.tick()).map((r) => r.fired)).toEqual([clock.now()]);
    await runner.tick();
    await runner.settled();
  }

  async function ended(kind: string, how: 'complete' | 'fail' | 'cancel'): Promise<string> {
    const { job } = await queue.enqueue({ kind, org: 'org-1', input: {} });
    if (how === 'cancel') await queue.requestCancel('org-1', job.id);
    else {
      await queue.claim([kind], 'someone', 30);
      if (how === 'complete') await queue.complete(job.id, 'someone', null);
      else await queue.fail(job.id, 'someone', 'broke');
    }
    return job.id;
  }

  const ids = async () => (await queue.list('org-1')).map((j) => j.id);

  it('forgets jobs ended more than the retention ago, every ending alike, and never an active one', async () => {
    const completed = await ended('work', 'complete');
    const cancelled = await ended('work', 'cancel');
    const pending = (await queue.enqueue({ kind: 'idle', org: 'org-1', input: {} })).job.id;
    clock.advance(2 * DAY);
    const failed = await ended('work', 'fail');

    await pruneAfter('2030-01-08T22:00:00Z'); // 7 days and 23 hours on: all kept
    expect(await ids()).toEqual([completed, cancelled, pending, failed]);
    await pruneAfter('2030-01-09T01:00:00Z'); // 8 days on: the first two go
    expect(await ids()).toEqual([pending, failed]);
    await pruneAfter('2030-01-11T01:00:00Z');
    expect(await ids()).toEqual([pending]);
    // the pruning jobs themselves are jobs of the platform, and end completed with what they removed
    const runs = await queue.list(JOB_RETENTION_SCHEDULE.org, { kind: JOB_RETENTION_JOB });
    expect(new Set(runs.map((r) => r.status))).toEqual(new Set(['completed']));
    expect(runs.reduce((n, r) => n + (r.result as { removed_jobs: number }).removed_jobs, 0)).toBe(3);
  });

  it('keeps one hourly schedule however many replicas install it', async () => {
    const before = await scheduler.get(JOB_RETENTION_SCHEDULE.org, JOB_RETENTION_SCHEDULE.id);
    clock.advance(600);
    await new JobRetention(queue, null, clock, 8).install(new JobRunner(queue, clock, { owner: 'another-replica' }), scheduler);
    const after = await schedules.list(JOB_RETENTION_SCHEDULE.org);
    expect(after).toHaveLength(1);
    // an unchanged timing keeps its next slot: a replica starting does not push the pruning back
    expect(after[0]).toMatchObject({ interval_s: 3600, next_run_at: before!.next_run_at });
  });
});
