import { Clock } from '@strata/domain/time';
import { JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { GaugeReading, StrataMetrics } from '@strata/observability';

/**
 * The job side of /metrics, read when Prometheus scrapes: active jobs by kind and status (the
 * durable queue, shared by every replica in servers mode), the age of the oldest of each, and what this process's runner runs now. Durations
 * are observed by the runner as each job ends (`strata_job_duration_seconds`).
 */
export function instrumentJobs(metrics: StrataMetrics, queue: JobQueue, runner: JobRunner, clock: Clock): void {
  // one grouped read of the queue's index per gauge and scrape
  const activity = () => queue.activity();
  metrics.gauge('strata_job_queue_jobs', 'Active jobs by kind and status (pending, running), queue-wide', ['kind', 'status'], async (): Promise<GaugeReading[]> =>
    (await activity()).map((r) => ({ labels: { kind: r.kind, status: r.status }, value: r.count })),
  );
  metrics.gauge('strata_job_queue_oldest_age_seconds', 'Age of the oldest active job, by kind and status', ['kind', 'status'], async (): Promise<GaugeReading[]> => {
    const now = clock.now();
    return (await activity()).map((r) => ({ labels: { kind: r.kind, status: r.status }, value: Math.max(0, now - r.oldest_created_at) }));
  });
  metrics.gauge('strata_job_runner_running_jobs', "Jobs this process's runner is running, by kind", ['kind'], () =>
    [...runner.runningByKind()].map(([kind, n]) => ({ labels: { kind }, value: n })),
  );
}
