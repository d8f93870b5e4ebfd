import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { AgentStreams, RUN_TIMEOUT_S, RunRecord, SessionRecord, runEnded, runningSeconds } from '@strata/domain/agents';
import { CLOCK, Clock } from '@strata/domain/time';
import { PollingLoop } from '@strata/jobs/polling-loop';
import { ToolApprovals } from '@strata/mcp/approvals';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AgentsStore } from '../agents-store';
import { AgentRunJob } from './agent-run.job';
import { RunControl, stageRunCancel } from './run-control';

/** how often deadlines are looked for */
const SWEEP_S = 1;

/**
 * The deadlines of runs that nobody else enforces, read from the agents' read model against the
 * injected clock (so they survive a restart, and a test moves a FixedClock and sweeps):
 *
 * - a question (`ask_user`) unanswered for 24 h expires: `input.provided` with `expired:true`,
 *   and the waiting run gives the model `{code:"input_expired"}` (REFERENCE §16.6);
 * - a run `running` for 30 minutes in all (waits on people excluded) fails `run_timeout`;
 * - an organization whose plan no longer has managed agents has its runs cancelled
 *   (`plan_changed`) with their pending approvals (REFERENCE §17).
 *
 * Each outcome is one unit of work that checks the state again inside it; the in-flight model
 * request of a run ended here is aborted when it runs in this process (on another replica,
 * RunControl sees the event in its mirror). In servers mode every replica sweeps, each on its
 * own mirror: the session stream is appended at the revision read before deciding, so of two
 * replicas ending the same run or expiring the same question one commits and the other, deciding
 * again at the log's head, finds nothing left to do.
 */
@Injectable()
export class RunDeadlines implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('RunDeadlines');
  private readonly loop = new PollingLoop(() => this.once(), (err) => this.log.warn(`run deadline sweep failed: ${err.message}`));

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: AgentsStore,
    private readonly plans: PlanLimits,
    private readonly control: RunControl,
    private readonly approvals: ToolApprovals,
    private readonly job: AgentRunJob,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start(SWEEP_S);
  }

  /** One sweep (also called directly); a sweep still going on is not doubled. */
  sweep(): Promise<void> {
    return this.loop.runNow();
  }

  private async once(): Promise<void> {
    const now = this.clock.now();
    const done = new Set<string>();
    for (const r of this.store.read.unfinishedRuns()) {
      if (done.has(r.session_id)) continue;
      const s = this.store.read.session(r.org_id, r.session_id);
      if (!s) continue;
      if (!this.plans.planOf({ org: r.org_id }).limits.managed_agents) {
        // the session's current run and the runs queued behind it go together
        done.add(s.id);
        await this.cancelForPlan(s).catch((err: Error) => this.log.warn(`cancelling run ${r.id} after a plan change failed: ${err.message}`));
        continue;
      }
      const p = s.pending_input;
      if (p && p.run_id === r.id && p.expires_at <= now) await this.expireInput(s, r).catch((err: Error) => this.log.warn(`expiring input of run ${r.id} failed: ${err.message}`));
      else if (r.status === 'running' && runningSeconds(r, now) >= RUN_TIMEOUT_S) {
        const failed = await this.job
          .fail(r.org_id, r.session_id, r.id, 'run_timeout', `the run was running for more than ${RUN_TIMEOUT_S / 60} minutes`, true)
          .then(() => true, (err: Error) => (this.log.warn(`timing out run ${r.id} failed: ${err.message}`), false));
        if (failed) this.control.abort([r.id]);
      }
    }
  }

  private ctx(org: string, what: string): CommandContext {
    return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: what };
  }

  private async expireInput(s: SessionRecord, r: RunRecord): Promise<void> {
    const stream = AgentStreams.session(s.org_id, s.id);
    await this.uow.run(this.ctx(s.org_id, `input-expiry:${r.id}`), async (tx) => {
      const expected = await this.store.expectedRevision(stream);
      const fresh = this.store.read.session(s.org_id, s.id);
      const p = fresh?.pending_input;
      const run = this.store.read.run(s.org_id, r.id);
      if (!fresh || !p || p.run_id !== r.id || p.expires_at > tx.now || !run || runEnded(run)) return;
      tx.emit(stream, 'AgentInputProvided', {
        org_id: s.org_id, agent_id: s.agent_id, session_id: s.id, run_id: r.id, at: tx.now,
        request_id: p.request_id, tool_call_id: p.tool_call_id, response: null, responded_by: null, expired: true,
      }, expected);
    });
  }

  private async cancelForPlan(s: SessionRecord): Promise<void> {
    const cancelled = await this.uow.run(this.ctx(s.org_id, `plan-changed:${s.id}`), async (tx) => {
      if (this.plans.planOf({ org: s.org_id }).limits.managed_agents) return null;
      const expected = await this.store.expectedRevision(AgentStreams.session(s.org_id, s.id));
      const fresh = this.store.read.session(s.org_id, s.id);
      return fresh ? stageRunCancel(tx, fresh, 'plan_changed', this.approvals, expected) : null;
    });
    if (cancelled) this.control.abort([cancelled.run_id]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
