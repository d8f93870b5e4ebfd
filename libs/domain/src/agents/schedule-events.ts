import type { EventOf } from '../events/envelope';

/**
 * Agent schedules (REFERENCE §16.11): a cron pattern in a time zone that opens a session with
 * the agent and sends it a rendered message. A schedule's configuration and every firing
 * outcome live on `agent-schedule-<org>:<id>`.
 */
export const OVERLAP_POLICIES = ['forbid', 'allow', 'replace'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export const FIRED_OUTCOMES = ['started', 'replaced_previous'] as const;
export type FiredOutcome = (typeof FIRED_OUTCOMES)[number];
export const SKIPPED_OUTCOMES = ['skipped_overlap', 'skipped_paused', 'skipped_budget', 'skipped_plan', 'failed', 'missed'] as const;
export type SkippedOutcome = (typeof SKIPPED_OUTCOMES)[number];
export type ScheduleOutcome = FiredOutcome | SkippedOutcome;

/** What a schedule is configured to do; the record adds what its firings did. */
export interface AgentScheduleConfig {
  id: string;
  org_id: string;
  agent_id: string;
  name: string;
  cron: string;
  timezone: string;
  message_template: string;
  enabled: boolean;
  overlap_policy: OverlapPolicy;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface AgentScheduleCreatedData {
  schedule: AgentScheduleConfig;
  by: string;
  at: number;
}

export interface AgentScheduleUpdatedData {
  schedule: AgentScheduleConfig;
  /** the fields the PATCH moved */
  changed: string[];
  by: string;
  at: number;
}

export interface AgentScheduleDeletedData {
  org_id: string;
  agent_id: string;
  schedule_id: string;
  /** `agent_archived`: deleted with its agent */
  reason: 'deleted' | 'agent_archived';
  by: string;
  at: number;
}

/** A firing that opened a session (in the same append as the session's first events). */
export interface AgentScheduleFiredData {
  org_id: string;
  agent_id: string;
  schedule_id: string;
  /** the slot (Unix seconds) the firing is for */
  scheduled_for: number;
  outcome: FiredOutcome;
  session_id: string;
  run_id: string;
  message_id: string;
  /** `replaced_previous`: the run of the previous firing that was cancelled */
  replaced_run_id: string | null;
  at: number;
}

/** A slot that opened nothing, and why. */
export interface AgentScheduleSkippedData {
  org_id: string;
  agent_id: string;
  schedule_id: string;
  scheduled_for: number;
  outcome: SkippedOutcome;
  /** a code (`llm_not_configured`, `budget_exhausted`, `previous_run_active`, …) */
  reason: string | null;
  at: number;
}

export type ScheduleEvent =
  | EventOf<'AgentScheduleCreated', AgentScheduleCreatedData>
  | EventOf<'AgentScheduleUpdated', AgentScheduleUpdatedData>
  | EventOf<'AgentScheduleDeleted', AgentScheduleDeletedData>
  | EventOf<'AgentScheduleFired', AgentScheduleFiredData>
  | EventOf<'AgentScheduleSkipped', AgentScheduleSkippedData>;

/** One entry of a schedule's `recent` list (the last 10 outcomes, newest first). */
export interface ScheduleRecentEntry {
  scheduled_for: number;
  fired_at: number;
  outcome: ScheduleOutcome;
  session_id: string | null;
  reason: string | null;
}

/** A schedule with what its firings did (the read model's record). */
export interface AgentScheduleRecord extends AgentScheduleConfig {
  last_fired_at: number | null;
  last_outcome: ScheduleOutcome | null;
  last_session_id: string | null;
  /** the run the latest firing started: the one `forbid` and `replace` look at */
  last_run_id: string | null;
  /** firings that opened a session */
  fire_count: number;
  /** the latest slot an outcome was recorded for (a firing job claimed twice records once) */
  last_slot: number | null;
  recent: ScheduleRecentEntry[];
  deleted_at: number | null;
}

export const RECENT_KEPT = 10;

export function newScheduleRecord(c: AgentScheduleConfig): AgentScheduleRecord {
  return { ...c, last_fired_at: null, last_outcome: null, last_session_id: null, last_run_id: null, fire_count: 0, last_slot: null, recent: [], deleted_at: null };
}

/** A schedule after one of its events (the only place that says what each changes). */
export function foldSchedule(s: AgentScheduleRecord | null, e: ScheduleEvent): AgentScheduleRecord | null {
  switch (e.type) {
    case 'AgentScheduleCreated':
      return newScheduleRecord(e.data.schedule);
    case 'AgentScheduleUpdated':
      return s ? { ...s, ...e.data.schedule } : null;
    case 'AgentScheduleDeleted':
      return s ? { ...s, deleted_at: e.data.at, enabled: false, updated_at: e.data.at } : null;
    case 'AgentScheduleFired': {
      if (!s) return null;
      const d = e.data;
      const entry: ScheduleRecentEntry = { scheduled_for: d.scheduled_for, fired_at: d.at, outcome: d.outcome, session_id: d.session_id, reason: null };
      return {
        ...s,
        last_fired_at: d.at,
        last_outcome: d.outcome,
        last_session_id: d.session_id,
        last_run_id: d.run_id,
        fire_count: s.fire_count + 1,
        last_slot: Math.max(s.last_slot ?? d.scheduled_for, d.scheduled_for),
        recent: [entry, ...s.recent].slice(0, RECENT_KEPT),
      };
    }
    case 'AgentScheduleSkipped': {
      if (!s) return null;
      const d = e.data;
      const entry: ScheduleRecentEntry = { scheduled_for: d.scheduled_for, fired_at: d.at, outcome: d.outcome, session_id: null, reason: d.reason };
      return {
        ...s,
        last_fired_at: d.at,
        last_outcome: d.outcome,
        last_slot: Math.max(s.last_slot ?? d.scheduled_for, d.scheduled_for),
        recent: [entry, ...s.recent].slice(0, RECENT_KEPT),
      };
    }
  }
}
