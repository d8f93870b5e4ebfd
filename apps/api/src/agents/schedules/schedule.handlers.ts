import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { AgentStreams, ScheduleErrors, ScheduleInput, ScheduleRules, assertScheduleFields, decideCreateSchedule, decideUpdateSchedule } from '@strata/domain/agents';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AgentsStore } from '../agents-store';
import { paginated, presentSchedule } from '../agent-presenters';
import { ScheduleTimers } from './schedule-timers';

/** Agent schedules (REFERENCE §16.11): create, list, PATCH, delete. */
@Injectable()
export class ScheduleHandlers {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    private readonly store: AgentsStore,
    private readonly plans: PlanLimits,
    private readonly timers: ScheduleTimers,
  ) {}

  private rules(now: number): ScheduleRules {
    return { now, minIntervalS: this.config.scheduleMinIntervalS, nextFor: ScheduleTimers.firingsOf };
  }

  /** the organization's live schedule; 404 for an unknown, deleted or another agent's (to a bound key) */
  private schedule(auth: AuthContext, id: string) {
    const s = this.store.read.schedule(auth.org_id, id);
    if (!s || s.deleted_at !== null || (auth.bound_agent_id !== null && auth.bound_agent_id !== s.agent_id)) throw ScheduleErrors.notFound(id);
    return s;
  }

  async create(auth: AuthContext, rid: string, input: ScheduleInput) {
    this.store.assertAvailable();
    const id = this.ids.uuid();
    const created = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const counted = await this.store.planClaim(tx, 'schedules');
      const agent = input.agent_id ? this.store.read.agent(auth.org_id, input.agent_id) : null;
      const config = decideCreateSchedule(input, id, auth.org_id, auth.principal.id, agent, this.rules(tx.now));
      const plan = this.plans.planOf(auth);
      const max = plan.limits.schedules;
      const current = this.store.read.liveScheduleCount(auth.org_id);
      if (max !== null && current >= max) throw AuthErrors.planLimitReached('schedules', max, current, plan.id);
      tx.emit(AgentStreams.schedule(auth.org_id, id), 'AgentScheduleCreated', { schedule: config, by: auth.principal.id, at: tx.now }, 'no_stream');
      counted(id);
      return config;
    });
    await this.timers.put(created);
    return this.present(auth.org_id, id);
  }

  private present(org: string, id: string) {
    return presentSchedule(this.store.read.schedule(org, id)!, this.clock.now());
  }

  list(auth: AuthContext, agentId: string | undefined, limit: number, offset: number) {
    if (auth.bound_agent_id !== null && agentId !== undefined && agentId !== auth.bound_agent_id) return paginated([], limit, offset, false);
    const rows = this.store.read.schedules(auth.org_id, { agent_id: auth.bound_agent_id ?? agentId, limit: limit + 1, offset });
    const now = this.clock.now();
    return paginated(rows.slice(0, limit).map((s) => presentSchedule(s, now)), limit, offset, rows.length > limit);
  }

  async update(auth: AuthContext, rid: string, id: string, input: ScheduleInput) {
    // the body is refused before the schedule is looked for (REFERENCE §16.1)
    assertScheduleFields(input);
    this.schedule(auth, id);
    const decided = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const before = this.schedule(auth, id);
      const d = decideUpdateSchedule(before, input, this.rules(tx.now));
      if (d.changed.length) tx.emit(AgentStreams.schedule(auth.org_id, id), 'AgentScheduleUpdated', { schedule: d.schedule, changed: d.changed, by: auth.principal.id, at: tx.now });
      return d;
    });
    if (decided.retimed) await this.timers.put(decided.schedule);
    return this.present(auth.org_id, id);
  }

  async remove(auth: AuthContext, rid: string, id: string) {
    this.schedule(auth, id);
    const s = await this.uow.run(commandContext(auth, rid), async (tx) => {
      const fresh = this.schedule(auth, id);
      tx.emit(AgentStreams.schedule(auth.org_id, id), 'AgentScheduleDeleted', { org_id: auth.org_id, agent_id: fresh.agent_id, schedule_id: id, reason: 'deleted', by: auth.principal.id, at: tx.now });
      return fresh;
    });
    await this.timers.remove(s.org_id, id);
    return { id, deleted: true };
  }
}
