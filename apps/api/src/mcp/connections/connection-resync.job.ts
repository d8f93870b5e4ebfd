import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { dueForAutoSync } from '@strata/domain/mcp';
import type { RecordedEvent } from '@strata/domain/events';
import { CLOCK, Clock } from '@strata/domain/time';
import type { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler, JobRunner } from '@strata/jobs/runner/job-runner';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { ConnectionSync } from '@strata/mcp/connections';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';

/** the durable job that re-syncs connections in `error` */
export const MCP_RESYNC_JOB = 'mcp_connection_resync';
/** its one platform-wide schedule (the scheduler keys schedules by organization: this is none of them) */
export const MCP_RESYNC_SCHEDULE = { org: '_platform', id: 'mcp-connection-resync' } as const;
/** a slot every minute, so each connection is tried within a minute of its five (REFERENCE §15.3) */
const SLOT_S = 60;

/**
 * The automatic sync of connections in `error` (REFERENCE §15.3): five minutes after its last
 * failure, unless the failure was `auth_failed`. A job of the durable runner, fired by a
 * schedule of the platform scheduler (one slot fires once across replicas); what is due is
 * judged on the injected clock, so a test moves a FixedClock and the next slot syncs. A
 * successful sync brings the connection back to `active`; a failed one records the failure
 * again, which puts the next attempt five minutes later.
 *
 * The schedule exists only while some connection waits for a re-sync: it is put or removed
 * after each commit that changes a connection (in servers mode, each one this replica's
 * mirror follows), so a healthy installation schedules nothing.
 */
@Injectable()
export class ConnectionResyncJob implements JobHandler, OnApplicationBootstrap {
  private readonly log = new Logger('McpConnections');
  /** whether the schedule is there, as last put or removed here (null: not known yet) */
  private scheduled: boolean | null = null;
  private adjusting: Promise<void> = Promise.resolve();

  constructor(
    runner: JobRunner,
    private readonly scheduler: Scheduler,
    private readonly reads: McpReadModel,
    private readonly sync: ConnectionSync,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
  ) {
    runner.register(MCP_RESYNC_JOB, this);
    const changed = (events: readonly RecordedEvent[]) => {
      if (events.some((e) => e.type.startsWith('McpConnection'))) this.adjust();
    };
    storage?.onCommitted(changed);
    if (!storage) mirror?.onFollowed((e) => changed([e]));
  }

  onApplicationBootstrap(): Promise<void> {
    this.adjust();
    return this.adjusting;
  }

  /** Puts the schedule when a connection waits for a re-sync, removes it when none does. */
  private adjust(): void {
    this.adjusting = this.adjusting.then(async () => {
      const needed = this.reads.hasResyncable();
      if (needed === this.scheduled) return;
      try {
        if (needed) await this.scheduler.put({ ...MCP_RESYNC_SCHEDULE, upsert: true, interval_s: SLOT_S, job_kind: MCP_RESYNC_JOB, job_input: null });
        else await this.scheduler.remove(MCP_RESYNC_SCHEDULE.org, MCP_RESYNC_SCHEDULE.id);
        this.scheduled = needed;
      } catch (err) {
        this.log.warn(`could not ${needed ? 'schedule' : 'unschedule'} the automatic re-sync of MCP connections: ${(err as Error).message}`);
      }
    });
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
