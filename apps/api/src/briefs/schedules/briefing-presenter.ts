import { BriefingRun, BriefingSchedule } from '@strata/domain/briefs';

const iso = (s: number | null) => (s === null ? null : new Date(Math.round(s * 1000)).toISOString());

/** A schedule on the wire (REFERENCE §12.7): ISO times; the secret never, only its hint. */
export function presentSchedule(s: BriefingSchedule, runs?: BriefingRun[]) {
  return {
    id: s.id,
    project_uid: s.project_uid,
    channel: s.channel,
    recipient: s.recipient,
    cron: s.cron,
    interval_secs: s.interval_secs,
    timezone: s.timezone,
    mode: s.mode,
    only_on_change: s.only_on_change,
    status: s.status,
    paused_reason: s.paused_reason,
    next_run_at: iso(s.next_run_at),
    consecutive_failures: s.consecutive_failures,
    secret_hint: s.secret_hint,
    created_by: s.created_by,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    ...(runs ? { runs: runs.map(presentRun) } : {}),
  };
}

export function presentRun(r: BriefingRun) {
  return {
    id: r.id,
    schedule_id: r.schedule_id,
    trigger: r.trigger,
    status: r.status,
    scheduled_for: iso(r.scheduled_for),
    started_at: iso(r.started_at),
    completed_at: iso(r.completed_at),
    brief_version: r.brief_version,
    reused: r.reused,
    material_change_count: r.material_change_count,
    skip_reason: r.skip_reason,
    attempts: r.attempts,
    error: r.error,
    http_status: r.http_status,
  };
}
