import { FixedClock } from '@strata/domain/time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobRunner } from '@strata/jobs/runner/job-runner';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { startTestApp } from '../support/test-app';

/** Ticks the service's runner until the job has finished (the service also ticks on its own timer). */
async function runToEnd(runner: JobRunner, queue: JobQueue, org: string, id: string): Promise<QueuedJob> {
  for (let i = 0; i < 20; i++) {
    await runner.tick();
    await runner.settled();
    const job = (await queue.get(org, id))!;
    if (job.status !== 'pending' && job.status !== 'running') return job;
  }
  throw new Error(`job ${id} did not finish`);
}

describe('durable jobs in the service', () => {
  it("resume from their checkpoint in the next service on the data dir once the dead process's lease lapsed", async () => {
    const clock = new FixedClock(1_800_000_000);
    const first = await startTestApp({ clock });
    const dataDir = first.dataDir;
    let id: string;
    try {
      const queue = first.app.get<JobQueue>(JOB_QUEUE);
      ({ job: { id } } = await queue.enqueue({ kind: 'test_items', org: 'org-1', input: { items: [1, 2, 3, 4] } }));
      // a process that died mid-job: it claimed the job and checkpointed after two items
      await queue.claim(['test_items'], 'dead-process', 60);
      await queue.progress(id, 'dead-process', { done: 2 }, { next: 2 });
    } finally {
      await first.close({ keepData: true });
    }

    clock.advance(61);
    const second = await startTestApp({ clock, dataDir });
    try {
      const seen: number[] = [];
      const runner = second.app.get(JobRunner);
      runner.register('test_items', {
        run: async (job: QueuedJob, ctx: JobContext) => {
          const items = (job.input as { items: number[] }).items;
          for (let i = (job.checkpoint as { next: number }).next; i < items.length; i++) {
            seen.push(items[i]!);
            await ctx.checkpoint({ next: i + 1 }, { done: i + 1 });
          }
          return { resumed_at: (job.checkpoint as { next: number }).next };
        },
      });
      const done = await runToEnd(runner, second.app.get<JobQueue>(JOB_QUEUE), 'org-1', id);
      expect(done).toMatchObject({ status: 'completed', attempts: 2, result: { resumed_at: 2 }, progress: { done: 4 } });
      expect(seen).toEqual([3, 4]);
    } finally {
      await second.close();
    }
  });

  it("fire a schedule's slot as a job that the service's runner runs", async () => {
    const clock = new FixedClock(Date.parse('2026-05-04T08:59:00Z') / 1000);
    const app = await startTestApp({ clock });
    try {
      const scheduler = app.app.get(Scheduler);
      const runner = app.app.get(JobRunner);
      const queue = app.app.get<JobQueue>(JOB_QUEUE);
      runner.register('test_digest', { run: async (job) => ({ slot: (job.input as { slot: number }).slot }) });
      const s = await scheduler.put({ org: 'org-1', cron: '0 9 * * *', timezone: 'Europe/Paris', job_kind: 'test_digest' });
      expect(await scheduler.tick()).toEqual([]);
      clock.set(Date.parse('2026-05-05T07:00:01Z') / 1000);
      // the platform's own schedules (job retention) come due beside it
      const report = (await scheduler.tick()).find((r) => r.schedule_id === s.id);
      expect(report).toMatchObject({ schedule_id: s.id, fired: Date.parse('2026-05-05T07:00:00Z') / 1000 });
      const [job] = await queue.list('org-1', { kind: 'test_digest' });
      expect(await runToEnd(runner, queue, 'org-1', job!.id)).toMatchObject({ status: 'completed', result: { slot: report!.fired } });
    } finally {
      await app.close();
    }
  });
});
