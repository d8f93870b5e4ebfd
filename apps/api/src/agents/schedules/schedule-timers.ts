import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AgentScheduleConfig } from '@strata/domain/agents';
import { nextSlot } from '@strata/jobs/schedules/schedule-slots';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { AgentsStore } from '../agents-store';

/** the durable job a schedule's slot enqueues (run on the agents' runner) */
export const AGENT_SCHEDULE_JOB = 'agent_schedule_fire';

/**
 * A schedule's slots on the platform scheduler (libs/jobs): under the schedule's own id, with
 * its pattern, zone and `enabled`. The log holds what a schedule is; the scheduler only when
 * its next slot comes, so at start every live schedule's slot record is checked against the
 * read model (an append whose scheduler write was lost to a crash is repaired here).
 */
@Injectable()
export class ScheduleTimers implements OnApplicationBootstrap {
  private readonly log = new Logger('AgentSchedules');

  constructor(
    private readonly scheduler: Scheduler,
    private readonly store: AgentsStore,
  ) {}

  /** The next firing after `now` (null while disabled), as the scheduler computes it. */
  static nextRunAt(s: Pick<AgentScheduleConfig, 'cron' | 'timezone' | 'enabled'>, now: number): number | null {
    return s.enabled ? nextSlot({ cron: s.cron, timezone: s.timezone }, now) : null;
  }

  /** The firings of a pattern in a zone: what the cron rules check. */
  static firingsOf(cron: string, timezone: string): (after: number) => number | null {
    return (after) => nextSlot({ cron, timezone }, after);
  }

  async put(s: AgentScheduleConfig): Promise<void> {
    await this.scheduler.put({ id: s.id, upsert: true, org: s.org_id, cron: s.cron, timezone: s.timezone, enabled: s.enabled, job_kind: AGENT_SCHEDULE_JOB, job_input: null });
  }

  async remove(org: string, id: string): Promise<void> {
    await this.scheduler.remove(org, id);
  }

  async onApplicationBootstrap(): Promise<void> {
    let schedules;
    try {
      schedules = this.store.read.allLiveSchedules();
    } catch {
      return; // servers mode: no agents read model
    }
    for (const s of schedules) {
      const slot = await this.scheduler.get(s.org_id, s.id);
      if (slot && slot.cron === s.cron && slot.timezone === s.timezone && slot.enabled === s.enabled) continue;
      await this.put(s).catch((err: Error) => this.log.error(`schedule ${s.id}: could not restore its slots: ${err.message}`));
    }
  }
}
