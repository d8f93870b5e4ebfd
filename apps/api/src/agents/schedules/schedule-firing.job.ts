import { Inject, Injectable, Logger } from '@nestjs/common';
import { MeteredLanguageModels } from '@strata/ai/llm/metered-language-models';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import {
  AgentRecord,
  AgentScheduleRecord,
  AgentStreams,
  budgetExhaustion,
  decideFiring,
  renderTemplate,
  runEnded,
  scheduleSessionTitle,
  utcDay,
  utcMonth,
} from '@strata/domain/agents';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import type { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler } from '@strata/jobs/runner/job-runner';
import { Schedule } from '@strata/jobs/schedules/schedule';
import { Scheduler, SlotReport } from '@strata/jobs/schedules/scheduler';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AgentsStore } from '../agents-store';
import { AgentRuns } from '../runtime/agent-runs';
import { RunControl, stageRunCancel } from '../runtime/run-control';
import { AGENT_SCHEDULE_JOB } from './schedule-timers';
import { ToolApprovals } from '@strata/mcp/approvals';

/** missed slots recorded per report (the newest); the count says how many there were */
const MISSED_RECORDED = 10;

interface FireInput {
  schedule_id: string;
  slot: number;
}

/**
 * A schedule's slot (REFERENCE §16.11), as a durable job the platform scheduler enqueues once
 * per slot: it decides the outcome from what it finds (plan, the agent's state, the overlap
 * policy, the budget, the provider) and records it. A firing that starts opens a session
 * (`source:"schedule"`) whose first message is the rendered template, in one append with
 * `AgentScheduleFired`, then enqueues the run. Slots that passed while no scheduler ran are
 * recorded `missed`. A job claimed again after a crash finds its slot recorded and does nothing.
 */
@Injectable()
export class ScheduleFiringJob implements JobHandler {
  private readonly log = new Logger('AgentSchedules');

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly store: AgentsStore,
    private readonly plans: PlanLimits,
    private readonly models: MeteredLanguageModels,
    private readonly runs: AgentRuns,
    private readonly control: RunControl,
    private readonly approvals: ToolApprovals,
    scheduler: Scheduler,
  ) {
    runs.register(AGENT_SCHEDULE_JOB, this);
    scheduler.onMissed(AGENT_SCHEDULE_JOB, (s, report) => this.missed(s, report));
  }

  private ctxOf(s: AgentScheduleRecord, slot: number): CommandContext {
    return { org: s.org_id, principal: { kind: 'system', id: `schedule:${s.id}` }, credential_id: null, agent_id: s.agent_id, request_id: `schedule-${s.id}-${slot}` };
  }

  /** the schedule if this slot is still to be recorded */
  private pending(org: string, id: string, slot: number): AgentScheduleRecord | null {
    const s = this.store.read.schedule(org, id);
    if (!s || s.deleted_at !== null) return null;
    if (s.last_slot !== null && slot <= s.last_slot) return null;
    return s;
  }

  async run(job: QueuedJob, _ctx: JobContext): Promise<unknown> {
    const { schedule_id, slot } = job.input as FireInput;
    return this.fire(job.org, schedule_id, slot);
  }

  private exhausted(agent: AgentRecord): boolean {
    const now = this.clock.now();
    return (
      budgetExhaustion(
        {
          daily_credit_budget: agent.daily_credit_budget,
          used_today: this.store.read.creditsOnDay(agent.org_id, agent.id, utcDay(now)),
          month_limit: this.plans.planOf({ org: agent.org_id }).limits.agent_credits_per_month,
          month_used: this.store.read.creditsInMonth(agent.org_id, utcMonth(now)),
        },
        now,
      ) !== null
    );
  }

  async fire(org: string, id: string, slot: number): Promise<{ outcome: string | null }> {
    const s = this.pending(org, id, slot);
    if (!s || !s.enabled) return { outcome: null };
    const agent = this.store.read.agent(org, s.agent_id);
    if (!agent) return { outcome: null };
    const previous = s.last_run_id ? this.store.read.run(org, s.last_run_id) : null;
    const decision = decideFiring({
      planAllows: this.plans.planOf({ org }).limits.managed_agents,
      agent,
      previousActive: !!previous && !runEnded(previous),
      budgetExhausted: this.exhausted(agent),
      providerConfigured: this.models.forOrganization(org) !== null,
      overlap: s.overlap_policy,
    });
    const stream = AgentStreams.schedule(org, id);
    const base = { org_id: org, agent_id: s.agent_id, schedule_id: id, scheduled_for: slot };
    if (decision.outcome !== 'started' && decision.outcome !== 'replaced_previous') {
      const outcome = decision.outcome;
      await this.uow.run(this.ctxOf(s, slot), async (tx) => {
        if (!this.pending(org, id, slot)) return;
        tx.emit(stream, 'AgentScheduleSkipped', { ...base, outcome, reason: decision.reason, at: tx.now });
      });
      return { outcome };
    }
    const sessionId = this.ids.uuid();
    const runId = this.ids.uuid();
    const messageId = this.ids.uuid();
    const outcome = decision.outcome;
    const staged = await this.uow.run(this.ctxOf(s, slot), async (tx) => {
      if (!this.pending(org, id, slot)) return null;
      let replaced: string | null = null;
      if (decision.cancelPrevious && s.last_session_id) {
        const prev = this.store.read.session(org, s.last_session_id);
        if (prev && prev.current_run === s.last_run_id) replaced = (await stageRunCancel(tx, prev, 'interrupted', this.approvals))?.run_id ?? null;
      }
      const title = scheduleSessionTitle(s.name, slot, s.timezone);
      const content = renderTemplate(s.message_template, { at: slot, timezone: s.timezone, schedule_name: s.name, agent_name: agent.name });
      const node = createNode(tx, { label: title, props: { session_type: 'agent', started_at: tx.now } }, { forcedType: 'Session' });
      const sstream = AgentStreams.session(org, sessionId);
      const sbase = { org_id: org, agent_id: agent.id, session_id: sessionId, at: tx.now };
      tx.emit(sstream, 'AgentSessionCreated', { ...sbase, run_id: null, title, metadata: null, node_uid: node.uid, source: 'schedule', schedule_id: id, created_by: { kind: 'schedule', id } }, 'no_stream');
      const sender = { kind: 'schedule' as const, id };
      tx.emit(sstream, 'AgentMessageReceived', { ...sbase, run_id: runId, message_id: messageId, content, metadata: null, sender, queued: false });
      tx.emit(sstream, 'AgentRunQueued', { ...sbase, run_id: runId, trigger: { kind: 'schedule', message_id: messageId }, model: agent.model, number: 1 });
      tx.emit(stream, 'AgentScheduleFired', { ...base, outcome, session_id: sessionId, run_id: runId, message_id: messageId, replaced_run_id: replaced, at: tx.now });
      return { replaced };
    });
    if (!staged) return { outcome: null };
    if (staged.replaced) this.control.abort([staged.replaced]);
    await this.runs.enqueue(org, { session_id: sessionId, run_id: runId });
    return { outcome };
  }

  /** Slots that passed unfired (downtime): the newest few recorded `missed`, oldest first. */
  private async missed(t: Schedule, report: SlotReport): Promise<void> {
    let s: AgentScheduleRecord | null;
    try {
      s = this.store.read.schedule(t.org, t.id);
    } catch {
      return;
    }
    if (!s || s.deleted_at !== null) return;
    const slots = [...report.missed].sort((a, b) => a - b).slice(-MISSED_RECORDED);
    const rec = s;
    await this.uow.run(this.ctxOf(rec, slots[slots.length - 1] ?? 0), async (tx) => {
      for (const slot of slots) {
        if (!this.pending(t.org, t.id, slot)) continue;
        tx.emit(AgentStreams.schedule(t.org, t.id), 'AgentScheduleSkipped', {
          org_id: t.org, agent_id: rec.agent_id, schedule_id: t.id, scheduled_for: slot, outcome: 'missed',
          reason: report.missed_count > slots.length ? `${report.missed_count} slots missed while the service was down` : 'the service was down', at: tx.now,
        });
      }
    });
    this.log.warn(`schedule ${t.id}: ${report.missed_count} slot(s) missed`);
  }
}
