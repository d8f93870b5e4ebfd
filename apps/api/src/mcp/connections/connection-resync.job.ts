import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { dueForAutoSync } from '@strata/domain/mcp';
import { CLOCK, Clock } from '@strata/domain/time';
import type { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler, JobRunner } from '@strata/jobs/runner/job-runner';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { ConnectionSync } from '@strata/mcp/connections';
import { SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';

/** the durable job that re-syncs connections in `error` */
export const MCP_RESYNC_JOB = 'mcp_connection_resync';
/** its one platform-wide schedule (the scheduler keys schedules by organization: this is none of them) */
const SCHEDULE = { org: '_platform', id: 'mcp-connection-resync' } as const;
/** a slot every minute, so each connection is tried within a minute of its five (REFERENCE §15.3) */
const SLOT_S = 60;

/**
 * The automatic sync of connections in `error` (REFERENCE §15.3): every five minutes after its
 * last failure, unless the failure was `auth_failed`. A job of the durable runner, fired by a
 * schedule of the platform scheduler (one slot fires once across replicas); what is due is
 * judged on the injected clock, so a test moves a FixedClock and the next slot syncs. A
 * successful sync brings the connection back to `active`; a failed one records the failure
 * again, which puts the next attempt five minutes later.
 */
@Injectable()
export class ConnectionResyncJob implements JobHandler, OnApplicationBootstrap {
  private readonly log = new Logger('McpConnections');

  constructor(
    runner: JobRunner,
    private readonly scheduler: Scheduler,
    private readonly reads: McpReadModel,
    private readonly sync: ConnectionSync,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    runner.register(MCP_RESYNC_JOB, this);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.scheduler.put({ ...SCHEDULE, upsert: true, interval_s: SLOT_S, job_kind: MCP_RESYNC_JOB, job_input: null });
  }

  async run(_job: QueuedJob, ctx: JobContext): Promise<unknown> {
    let synced = 0;
    let failed = 0;
    for (const row of this.reads.erroredConnections()) {
      if (ctx.signal.aborted) break;
      if (!dueForAutoSync(row, this.clock.now())) continue;
      const c = this.reads.connection(row.org_id, row.id);
      if (!c || !dueForAutoSync(c, this.clock.now())) continue;
      try {
        const r = await this.sync.run({ org: c.org_id, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: `mcp-resync:${c.id}` }, c);
        if (r.ok) synced++;
        else failed++;
      } catch (err) {
        failed++;
        this.log.warn(`automatic sync of MCP connection ${c.id} failed: ${(err as Error).message}`);
      }
    }
    return { synced, failed };
  }
}
