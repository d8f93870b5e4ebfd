import { AgentRecord, AgentScheduleRecord, RunRecord, SessionRecord, isoOf, nextUtcMidnight, utcDay } from '@strata/domain/agents';
import { nextSlot } from '@strata/jobs/schedules/schedule-slots';
import { ActivityRow, AgentsReadModel } from '@strata/projections/agents/agents-read-model';

export const iso = isoOf;

export function paginated<T>(items: T[], limit: number, offset: number, hasMore: boolean) {
  return { items, has_more: hasMore, limit, offset };
}

/** An agent as the routes answer it (REFERENCE §16.3): its record, its budget today and its usage. */
export function presentAgent(a: AgentRecord, read: AgentsReadModel, now: number) {
  const used = read.creditsOnDay(a.org_id, a.id, utcDay(now));
  return {
    id: a.id,
    org_id: a.org_id,
    name: a.name,
    description: a.description,
    template_type: a.template_type,
    instructions: a.instructions,
    model: a.model,
    daily_credit_budget: a.daily_credit_budget,
    max_steps: a.max_steps,
    tools: a.tools,
    scope: a.scope,
    paused: a.paused,
    status: a.status,
    node_uid: a.node_uid,
    budget: { daily_credit_budget: a.daily_credit_budget, used_today: used, remaining_today: Math.max(0, a.daily_credit_budget - used), resets_at: iso(nextUtcMidnight(now)) },
    usage: read.usage(a.org_id, a.id),
    active_sessions: read.activeSessions(a.org_id, a.id).length,
    last_run_at: iso(read.lastRunAt(a.org_id, a.id)),
    created_by: a.created_by,
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
    archived_at: iso(a.archived_at),
  };
}

export function presentRun(r: RunRecord) {
  return {
    id: r.id,
    session_id: r.session_id,
    status: r.status,
    trigger: r.trigger,
    model: r.model,
    steps: r.steps,
    tool_calls: r.tool_calls,
    usage: r.usage,
    credits: r.credits,
    stop_reason: r.stop_reason,
    error: r.error,
    trace_uid: r.trace_uid,
    queued_at: iso(r.queued_at),
    started_at: iso(r.started_at),
    ended_at: iso(r.ended_at),
  };
}

/** A session (REFERENCE §16.6) with its current and last run. */
export function presentSession(s: SessionRecord, read: AgentsReadModel, now: number) {
  const current = s.current_run ? read.run(s.org_id, s.current_run) : null;
  const last = s.last_run ? read.run(s.org_id, s.last_run) : null;
  return {
    id: s.id,
    org_id: s.org_id,
    agent_id: s.agent_id,
    title: s.title,
    status: s.status,
    node_uid: s.node_uid,
    source: s.source,
    schedule_id: s.schedule_id,
    metadata: s.metadata,
    created_by: s.created_by,
    current_run: current ? presentRun(current) : null,
    last_run: last ? presentRun(last) : null,
    queued_messages: s.queued_runs.length,
    // an approval reads as expired from its expires_at on, before the sweep records it (REFERENCE §15.10)
    pending_approvals: (s.pending_approvals ?? []).filter((p) => p.expires_at === undefined || p.expires_at > now).length,
    pending_input: s.pending_input
      ? { request_id: s.pending_input.request_id, run_id: s.pending_input.run_id, prompt: s.pending_input.prompt, options: s.pending_input.options, requested_at: iso(s.pending_input.requested_at), expires_at: iso(s.pending_input.expires_at) }
      : null,
    usage: s.usage,
    message_count: s.message_count,
    last_seq: s.last_seq,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    last_activity_at: iso(s.last_activity_at),
    archived_at: iso(s.archived_at),
  };
}

/** A schedule (REFERENCE §16.11); `next_run_at` is the next firing after now (null while disabled). */
export function presentSchedule(s: AgentScheduleRecord, now: number) {
  return {
    id: s.id,
    org_id: s.org_id,
    agent_id: s.agent_id,
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    message_template: s.message_template,
    enabled: s.enabled,
    overlap_policy: s.overlap_policy,
    next_run_at: iso(s.enabled ? nextSlot({ cron: s.cron, timezone: s.timezone }, now) : null),
    last_fired_at: iso(s.last_fired_at),
    last_outcome: s.last_outcome,
    last_session_id: s.last_session_id,
    fire_count: s.fire_count,
    recent: s.recent.map((r) => ({ scheduled_for: iso(r.scheduled_for), fired_at: iso(r.fired_at), outcome: r.outcome, session_id: r.session_id, reason: r.reason })),
    created_by: s.created_by,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}

/** An activity item (REFERENCE §16.12). */
export function presentActivity(r: ActivityRow) {
  return {
    seq: r.seq,
    type: r.type,
    agent_id: r.agent_id,
    agent_name: r.agent_name,
    session_id: r.session_id,
    run_id: r.run_id,
    schedule_id: r.schedule_id,
    approval_id: r.approval_id,
    connection_id: r.connection_id,
    summary: r.summary,
    data: r.data,
    created_at: iso(r.created_at),
  };
}
