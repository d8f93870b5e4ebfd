import { Errors } from '../errors';
import type { AgentRecord } from './agent-record';
import { AgentErrors } from './agent-decider';
import { NextFiring, assertCronFirings, assertCronSyntax, assertTimeZone } from './schedule-cron';
import { AgentScheduleConfig, AgentScheduleRecord, OverlapPolicy, ScheduleOutcome } from './schedule-events';

/** The create and PATCH fields of a schedule (REFERENCE §16.11) once their shapes are checked. */
export interface ScheduleInput {
  agent_id?: string;
  name?: string;
  cron?: string;
  timezone?: string;
  message_template?: string;
  enabled?: boolean;
  overlap_policy?: OverlapPolicy;
}

/** What the schedule rules need from outside: now, the spacing floor, and when a pattern fires. */
export interface ScheduleRules {
  now: number;
  /** STRATA_SCHEDULE_MIN_INTERVAL_S */
  minIntervalS: number;
  /** the firings of a pattern in a zone (the platform scheduler's slots) */
  nextFor(cron: string, timezone: string): NextFiring;
}

export const TEMPLATE_PLACEHOLDERS = ['date', 'time', 'datetime', 'schedule_name', 'agent_name'] as const;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export const ScheduleErrors = {
  notFound: (id: string) => Errors.notFound(`schedule ${id} not found`, { field: 'id', id }),
};

/** 400 `invalid_field` (`message_template`) for a `{{…}}` that is not one of the placeholders. */
export function assertTemplate(template: string): void {
  for (const m of template.matchAll(PLACEHOLDER)) {
    const name = m[1].trim();
    if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name))
      throw Errors.invalidField('message_template', `unknown placeholder {{${m[1]}}}: use ${TEMPLATE_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`, {
        allowed: [...TEMPLATE_PLACEHOLDERS],
      });
  }
}

/** The wall-clock fields of an instant in a zone, and the zone's offset then. */
export function localTime(at: number, timezone: string): { date: string; time: string; datetime: string } {
  const ms = Math.round(at * 1000);
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const p: Record<string, string> = {};
  for (const part of fmt.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = part.value;
  const date = `${p.year}-${p.month}-${p.day}`;
  const time = `${p.hour}:${p.minute}`;
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  const offsetMin = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return { date, time, datetime: `${date}T${time}:${p.second}${offset}` };
}

/** The message a firing sends: the placeholders filled for the slot, in the schedule's zone. */
export function renderTemplate(template: string, v: { at: number; timezone: string; schedule_name: string; agent_name: string }): string {
  const local = localTime(v.at, v.timezone);
  const values: Record<string, string> = { ...local, schedule_name: v.schedule_name, agent_name: v.agent_name };
  return template.replace(PLACEHOLDER, (whole, name: string) => values[name.trim()] ?? whole);
}

/** A firing's session title: `<name> · <local date time>`. */
export function scheduleSessionTitle(name: string, at: number, timezone: string): string {
  const l = localTime(at, timezone);
  return `${name} · ${l.date} ${l.time}`;
}

function assertTiming(cron: string, timezone: string, rules: ScheduleRules): string {
  assertTimeZone(timezone);
  const pattern = assertCronSyntax(cron);
  assertCronFirings(rules.nextFor(pattern, timezone), rules.now, rules.minIntervalS, pattern);
  return pattern;
}

function assertAgentOpen(agent: AgentRecord): void {
  if (agent.status === 'archived') throw Errors.invalidField('agent_id', `agent ${agent.id} is archived`);
}

/** A new schedule; `agent` is the organization's agent named by `agent_id` (null: 404). */
export function decideCreateSchedule(input: ScheduleInput, id: string, org: string, by: string, agent: AgentRecord | null, rules: ScheduleRules): AgentScheduleConfig {
  if (!input.agent_id) throw Errors.missingField('agent_id');
  if (!input.name) throw Errors.missingField('name');
  if (input.cron === undefined) throw Errors.missingField('cron');
  if (input.message_template === undefined) throw Errors.missingField('message_template');
  const timezone = input.timezone ?? 'UTC';
  const cron = assertTiming(input.cron, timezone, rules);
  assertTemplate(input.message_template);
  if (!agent) throw AgentErrors.notFound(input.agent_id);
  assertAgentOpen(agent);
  return {
    id,
    org_id: org,
    agent_id: agent.id,
    name: input.name,
    cron,
    timezone,
    message_template: input.message_template,
    enabled: input.enabled ?? true,
    overlap_policy: input.overlap_policy ?? 'forbid',
    created_by: by,
    created_at: rules.now,
    updated_at: rules.now,
  };
}

const CONFIG_FIELDS = ['name', 'cron', 'timezone', 'message_template', 'enabled', 'overlap_policy'] as const;

/**
 * The body rules of a PATCH that need no schedule (400): the pattern's syntax, the zone, the
 * template's placeholders. Checked before the schedule is looked for (REFERENCE §16.1: body,
 * then existence); how often the pattern fires in the zone is decided with the schedule.
 */
export function assertScheduleFields(input: ScheduleInput): void {
  if (input.timezone !== undefined) assertTimeZone(input.timezone);
  if (input.cron !== undefined) assertCronSyntax(input.cron);
  if (input.message_template !== undefined) assertTemplate(input.message_template);
}

/** A PATCH: the configuration after it and the fields it moved (none: nothing is written). */
export function decideUpdateSchedule(s: AgentScheduleRecord, input: ScheduleInput, rules: ScheduleRules): { schedule: AgentScheduleConfig; changed: string[]; retimed: boolean } {
  assertScheduleFields(input);
  if (s.deleted_at !== null) throw ScheduleErrors.notFound(s.id);
  if (input.agent_id !== undefined && input.agent_id !== s.agent_id) throw Errors.immutableField('agent_id');
  if (input.message_template !== undefined) assertTemplate(input.message_template);
  const next: AgentScheduleConfig = {
    id: s.id,
    org_id: s.org_id,
    agent_id: s.agent_id,
    name: input.name ?? s.name,
    cron: input.cron ?? s.cron,
    timezone: input.timezone ?? s.timezone,
    message_template: input.message_template ?? s.message_template,
    enabled: input.enabled ?? s.enabled,
    overlap_policy: input.overlap_policy ?? s.overlap_policy,
    created_by: s.created_by,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
  if (input.cron !== undefined || input.timezone !== undefined) next.cron = assertTiming(next.cron, next.timezone, rules);
  const changed = CONFIG_FIELDS.filter((k) => next[k] !== s[k]);
  if (changed.length) next.updated_at = rules.now;
  const retimed = changed.some((k) => k === 'cron' || k === 'timezone' || k === 'enabled');
  return { schedule: next, changed, retimed };
}

/** What a firing finds when its slot comes. */
export interface FiringState {
  /** the organization's plan has managed agents */
  planAllows: boolean;
  agent: AgentRecord;
  /** the run the previous firing started is queued, running or waiting */
  previousActive: boolean;
  budgetExhausted: boolean;
  /** a chat model is configured */
  providerConfigured: boolean;
  overlap: OverlapPolicy;
}

export interface FiringDecision {
  outcome: ScheduleOutcome;
  reason: string | null;
  /** `replace`: cancel the previous firing's run before starting */
  cancelPrevious: boolean;
}

/**
 * What a slot does (REFERENCE §16.11), in the route check order of §16.1: plan, the agent's
 * state, the overlap policy, the budget, the provider; then it starts (replacing the previous
 * firing's run under `replace`).
 */
export function decideFiring(f: FiringState): FiringDecision {
  const skip = (outcome: ScheduleOutcome, reason: string): FiringDecision => ({ outcome, reason, cancelPrevious: false });
  if (!f.planAllows) return skip('skipped_plan', 'plan_required');
  if (f.agent.status !== 'active') return skip('skipped_paused', f.agent.status === 'archived' ? 'agent_archived' : 'agent_paused');
  if (f.previousActive && f.overlap === 'forbid') return skip('skipped_overlap', 'previous_run_active');
  if (f.budgetExhausted) return skip('skipped_budget', 'budget_exhausted');
  if (!f.providerConfigured) return skip('failed', 'llm_not_configured');
  if (f.previousActive && f.overlap === 'replace') return { outcome: 'replaced_previous', reason: null, cancelPrevious: true };
  return { outcome: 'started', reason: null, cancelPrevious: false };
}
