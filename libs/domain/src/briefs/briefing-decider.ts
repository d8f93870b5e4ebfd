import { isIP } from 'node:net';
import { DomainError, Errors } from '../errors';
import { isPublicAddress } from '../mcp/mcp-url';
import { BriefingTiming, assertBriefingTiming, nextFireAfter } from './briefing-timing';
import type {
  BriefingDeliveryAttemptedData,
  BriefingRunFinishedData,
  BriefingRunQueuedData,
  BriefingRunStartedData,
  BriefingScheduleCreatedData,
  BriefingScheduleDeletedData,
  BriefingScheduleReplacedData,
  BriefingScheduleSettings,
  BriefingScheduleUpdatedData,
  BriefingSecretRotatedData,
} from './briefing-events';
import {
  BRIEFING_CHANNELS,
  BRIEFING_MODES,
  BriefingChannel,
  BriefingMode,
  BriefingPausedReason,
  BriefingRun,
  BriefingRunEnd,
  BriefingRunTrigger,
  BriefingSchedule,
} from './briefing-records';
import { WEBHOOK_RETRY_DELAYS_SECS } from './webhook-signature';

/** One event a briefing decision stages, typed by its name. */
export type BriefingEventOut =
  | { type: 'BriefingScheduleCreated'; data: BriefingScheduleCreatedData }
  | { type: 'BriefingScheduleReplaced'; data: BriefingScheduleReplacedData }
  | { type: 'BriefingScheduleUpdated'; data: BriefingScheduleUpdatedData }
  | { type: 'BriefingSecretRotated'; data: BriefingSecretRotatedData }
  | { type: 'BriefingScheduleDeleted'; data: BriefingScheduleDeletedData }
  | { type: 'BriefingRunQueued'; data: BriefingRunQueuedData }
  | { type: 'BriefingRunStarted'; data: BriefingRunStartedData }
  | { type: 'BriefingDeliveryAttempted'; data: BriefingDeliveryAttemptedData }
  | { type: 'BriefingRunFinished'; data: BriefingRunFinishedData };

export const MAX_SCHEDULES_PER_PROJECT = 100;
/** A failing schedule pauses after this many failed runs in a row. */
export const FAILURES_BEFORE_PAUSE = 5;
/** How long the secret a rotation replaced still signs. */
export const SECRET_OVERLAP_SECS = 24 * 3600;
/** E-mail: 3 attempts, 1 minute apart. */
export const EMAIL_ATTEMPTS = 3;
export const EMAIL_RETRY_SECS = 60;
export const MAX_WEBHOOK_URL = 2048;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A schedule as POST reads it (fields checked, recipient normalised; membership is the handler's). */
export interface ScheduleInput {
  project_uid: string;
  channel: BriefingChannel;
  recipient: string;
  cron: string | null;
  interval_secs: number | null;
  timezone: string;
  mode: BriefingMode;
  only_on_change: boolean;
  paused: boolean;
  rotate_secret: boolean;
}

const present = (v: unknown) => v !== undefined && v !== null;

function bool(body: Record<string, unknown>, field: string, def: boolean): boolean {
  const v = body[field];
  if (!present(v)) return def;
  if (typeof v !== 'boolean') throw Errors.invalidField(field, `${field} must be a boolean`);
  return v;
}

function oneOf<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[], def: T | null): T {
  const v = body[field];
  if (!present(v)) {
    if (def === null) throw Errors.missingField(field);
    return def;
  }
  if (typeof v !== 'string' || !allowed.includes(v as T)) throw Errors.invalidField(field, `${field} must be one of ${allowed.join(', ')}`, { allowed: [...allowed] });
  return v as T;
}

/**
 * A webhook target (§12.7): `https://`, at most 2048 characters, no userinfo, and a host that is
 * not loopback, link-local or private, unless private targets are allowed (self-hosted networks,
 * tests), which also admits `http://`. Names are resolved and checked again at delivery.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_WEBHOOK_URL) throw Errors.invalidField('recipient', `a webhook URL has at most ${MAX_WEBHOOK_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw Errors.invalidField('recipient', 'a webhook recipient must be an https:// URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw Errors.invalidField('recipient', 'a webhook recipient must be an https:// URL');
  if (url.username || url.password) throw Errors.invalidField('recipient', 'a webhook URL carries no credentials');
  if (!allowPrivate) {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // `localhost.` is the same name, fully qualified
    const lower = host.toLowerCase().replace(/\.$/, '');
    if ((isIP(host) && !isPublicAddress(host)) || lower === 'localhost' || lower.endsWith('.localhost'))
      throw Errors.invalidField('recipient', 'a webhook URL may not point at a loopback, link-local or private address');
  }
  return url;
}

/** Reads and checks a POST body; the recipient is normalised (e-mail lowercased). */
export function readScheduleInput(body: Record<string, unknown>, allowPrivateWebhooks: boolean): ScheduleInput {
  const project_uid = body.project_uid;
  if (!present(project_uid) || project_uid === '') throw Errors.missingField('project_uid');
  if (typeof project_uid !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(project_uid)) throw Errors.invalidUid('project_uid');
  const channel = oneOf(body, 'channel', BRIEFING_CHANNELS, null);
  const r = body.recipient;
  if (!present(r) || (typeof r === 'string' && r.trim() === '')) throw Errors.missingField('recipient');
  if (typeof r !== 'string') throw Errors.invalidField('recipient', 'recipient must be a string');
  let recipient = r.trim();
  if (channel === 'in_app') {
    if (!/^user:[A-Za-z0-9._:-]{1,128}$/.test(recipient)) throw Errors.invalidField('recipient', 'an in_app recipient is user:<user_id> of an organization member');
  } else if (channel === 'email') {
    recipient = recipient.toLowerCase();
    if (recipient.length > 320 || !EMAIL_RE.test(recipient)) throw Errors.invalidField('recipient', 'an email recipient must be an e-mail address');
  } else {
    recipient = checkWebhookUrl(recipient, allowPrivateWebhooks).toString();
  }
  assertBriefingTiming(body);
  return {
    project_uid,
    channel,
    recipient,
    cron: present(body.cron) ? (body.cron as string).trim() : null,
    interval_secs: present(body.interval_secs) ? (body.interval_secs as number) : null,
    timezone: present(body.timezone) ? (body.timezone as string) : 'UTC',
    mode: oneOf(body, 'mode', BRIEFING_MODES, 'auto'),
    only_on_change: bool(body, 'only_on_change', true),
    paused: bool(body, 'paused', false),
    rotate_secret: bool(body, 'rotate_secret', false),
  };
}

/** The fields PATCH may change; the key fields are immutable. */
export interface SchedulePatch {
  paused?: boolean;
  cron?: string;
  interval_secs?: number;
  timezone?: string;
  mode?: BriefingMode;
  only_on_change?: boolean;
  rotate_secret: boolean;
}

export function readSchedulePatch(body: Record<string, unknown>): SchedulePatch {
  for (const f of ['project_uid', 'channel', 'recipient']) if (present(body[f])) throw Errors.immutableField(f);
  if (present(body.cron) && present(body.interval_secs)) throw Errors.invalidField('cron', 'a schedule has exactly one of cron and interval_secs');
  const out: SchedulePatch = { rotate_secret: bool(body, 'rotate_secret', false) };
  if (present(body.paused)) out.paused = bool(body, 'paused', false);
  if (present(body.only_on_change)) out.only_on_change = bool(body, 'only_on_change', true);
  if (present(body.mode)) out.mode = oneOf(body, 'mode', BRIEFING_MODES, 'auto');
  if (present(body.cron) || present(body.interval_secs) || present(body.timezone)) {
    // checked as the whole timing it would make; the zone alone keeps the current cadence
    if (present(body.timezone) && !present(body.cron) && !present(body.interval_secs)) assertBriefingTiming({ interval_secs: 3600, timezone: body.timezone });
    else assertBriefingTiming({ cron: body.cron, interval_secs: body.interval_secs, timezone: body.timezone });
    if (present(body.cron)) out.cron = (body.cron as string).trim();
    if (present(body.interval_secs)) out.interval_secs = body.interval_secs as number;
    if (present(body.timezone)) out.timezone = body.timezone as string;
  }
  return out;
}

export function timingOf(s: Pick<BriefingSchedule, 'cron' | 'interval_secs' | 'timezone' | 'created_at'>): BriefingTiming {
  return { cron: s.cron, interval_secs: s.interval_secs, timezone: s.timezone, created_at: s.created_at };
}

function settingsOf(s: BriefingSchedule): BriefingScheduleSettings {
  return {
    cron: s.cron,
    interval_secs: s.interval_secs,
    timezone: s.timezone,
    mode: s.mode,
    only_on_change: s.only_on_change,
    status: s.status,
    paused_reason: s.paused_reason,
    next_run_at: s.next_run_at,
    consecutive_failures: s.consecutive_failures,
  };
}

export interface BriefingActor {
  org: string;
  by: string;
  now: number;
}

/**
 * POST: a new schedule, or the replacement of the one with the same key (same id, runs kept;
 * its interval still counts from its creation). `secretHint` is the new secret's hint when one
 * was made (a new webhook schedule, or `rotate_secret`).
 */
export function decidePutSchedule(
  existing: BriefingSchedule | null,
  input: ScheduleInput,
  a: BriefingActor & { schedule_id: string; schedule_count: number; secret_hint: string | null },
): BriefingEventOut[] {
  if (!existing && a.schedule_count >= MAX_SCHEDULES_PER_PROJECT) throw Errors.invalidField('project_uid', `a Project has at most ${MAX_SCHEDULES_PER_PROJECT} schedules`);
  const createdAt = existing?.created_at ?? a.now;
  const timing = { cron: input.cron, interval_secs: input.interval_secs, timezone: input.timezone, created_at: createdAt };
  const settings: BriefingScheduleSettings = {
    cron: input.cron,
    interval_secs: input.interval_secs,
    timezone: input.timezone,
    mode: input.mode,
    only_on_change: input.only_on_change,
    status: input.paused ? 'paused' : 'active',
    paused_reason: input.paused ? 'requested' : null,
    next_run_at: input.paused ? null : nextFireAfter(timing, a.now),
    consecutive_failures: existing && !input.paused ? existing.consecutive_failures : 0,
  };
  const base = { org_id: a.org, schedule_id: existing?.id ?? a.schedule_id, at: a.now };
  const out: BriefingEventOut[] = existing
    ? [{ type: 'BriefingScheduleReplaced', data: { ...base, ...settings, replaced_by: a.by } }]
    : [
        {
          type: 'BriefingScheduleCreated',
          data: { ...base, ...settings, project_uid: input.project_uid, channel: input.channel, recipient: input.recipient, secret_hint: a.secret_hint, created_by: a.by },
        },
      ];
  if (existing && a.secret_hint !== null) out.push(rotated(base, a.secret_hint, a.by, a.now));
  return out;
}

function rotated(base: { org_id: string; schedule_id: string; at: number }, hint: string, by: string, now: number): BriefingEventOut {
  return { type: 'BriefingSecretRotated', data: { ...base, secret_hint: hint, previous_valid_until: now + SECRET_OVERLAP_SECS, rotated_by: by } };
}

/** PATCH: settings changed; resuming (or a new timing) sets `next_run_at` to the next slot after now. */
export function decidePatchSchedule(s: BriefingSchedule, p: SchedulePatch, a: BriefingActor & { secret_hint: string | null }): BriefingEventOut[] {
  if (p.rotate_secret && s.channel !== 'webhook') throw Errors.invalidField('rotate_secret', 'only a webhook schedule has a signing secret');
  const before = settingsOf(s);
  const next = settingsOf(s);
  if (p.cron !== undefined) [next.cron, next.interval_secs] = [p.cron, null];
  if (p.interval_secs !== undefined) [next.cron, next.interval_secs] = [null, p.interval_secs];
  if (p.timezone !== undefined) next.timezone = p.timezone;
  if (p.mode !== undefined) next.mode = p.mode;
  if (p.only_on_change !== undefined) next.only_on_change = p.only_on_change;
  const retimed = p.cron !== undefined || p.interval_secs !== undefined || p.timezone !== undefined;
  if (p.paused === true && s.status === 'active') [next.status, next.paused_reason, next.next_run_at] = ['paused', 'requested', null];
  if (p.paused === false && s.status === 'paused') [next.status, next.paused_reason, next.consecutive_failures] = ['active', null, 0];
  if (next.status === 'active' && (retimed || s.status === 'paused')) next.next_run_at = nextFireAfter({ ...next, created_at: s.created_at }, a.now);
  const base = { org_id: a.org, schedule_id: s.id, at: a.now };
  // a PATCH that changes nothing appends nothing (§12.9)
  const changed = (Object.keys(next) as (keyof BriefingScheduleSettings)[]).some((k) => next[k] !== before[k]);
  const out: BriefingEventOut[] = changed ? [{ type: 'BriefingScheduleUpdated', data: { ...base, ...next, updated_by: a.by } }] : [];
  if (p.rotate_secret) out.push(rotated(base, a.secret_hint!, a.by, a.now));
  return out;
}

export function decideDeleteSchedule(s: BriefingSchedule, pending: BriefingRun | null, a: BriefingActor): BriefingEventOut[] {
  return [{ type: 'BriefingScheduleDeleted', data: { org_id: a.org, schedule_id: s.id, at: a.now, deleted_by: a.by, cancelled_run_id: pending?.status === 'pending' ? pending.id : null } }];
}

/** send-now: a run at once, even when paused; 409 `run_active` while one is pending or running. */
export function decideSendNow(s: BriefingSchedule, active: BriefingRun | null, a: BriefingActor & { run_id: string }): BriefingEventOut[] {
  if (active) throw new DomainError(409, 'run_active', `run ${active.id} of this schedule is ${active.status}`, { run_id: active.id });
  return [{ type: 'BriefingRunQueued', data: { org_id: a.org, schedule_id: s.id, at: a.now, run_id: a.run_id, trigger: 'send_now', scheduled_for: a.now, next_run_at: s.next_run_at } }];
}

/**
 * A cadence or catch-up slot fires: a queued run, or, while a run of the schedule is pending or
 * running, a run recorded as skipped (`run_active`). Either way the schedule moves past `slot`.
 */
export function decideFire(
  s: BriefingSchedule,
  active: BriefingRun | null,
  slot: number,
  trigger: Exclude<BriefingRunTrigger, 'send_now'>,
  a: BriefingActor & { run_id: string },
): BriefingEventOut[] {
  const next = nextFireAfter(timingOf(s), Math.max(slot, a.now));
  const base = { org_id: a.org, schedule_id: s.id, at: a.now, run_id: a.run_id };
  const out: BriefingEventOut[] = [{ type: 'BriefingRunQueued', data: { ...base, trigger, scheduled_for: slot, next_run_at: next } }];
  if (active)
    out.push({
      type: 'BriefingRunFinished',
      data: { ...base, status: 'skipped', brief_version: null, reused: null, material_change_count: 0, skip_reason: 'run_active', error: null, consecutive_failures: s.consecutive_failures },
    });
  return out;
}

/** Start-up: the missed slots were dropped (too old); only `next_run_at` moves. */
export function decideRetime(s: BriefingSchedule, nextRunAt: number | null, a: BriefingActor): BriefingEventOut[] {
  return [{ type: 'BriefingScheduleUpdated', data: { org_id: a.org, schedule_id: s.id, at: a.now, ...settingsOf(s), next_run_at: nextRunAt, updated_by: 'system' } }];
}

/**
 * A run ends. A failure counts towards the five that pause the schedule (`failing`); a gone
 * endpoint or a recipient who left pauses it at once; a delivery resets the count.
 */
export function decideRunEnd(s: BriefingSchedule, runId: string, end: BriefingRunEnd, a: BriefingActor, pause: BriefingPausedReason | null = null): BriefingEventOut[] {
  const failures = end.status === 'failed' ? s.consecutive_failures + 1 : end.status === 'delivered' ? 0 : s.consecutive_failures;
  const base = { org_id: a.org, schedule_id: s.id, at: a.now };
  const out: BriefingEventOut[] = [{ type: 'BriefingRunFinished', data: { ...base, run_id: runId, ...end, consecutive_failures: failures } }];
  const reason = pause ?? (end.status === 'failed' && failures >= FAILURES_BEFORE_PAUSE ? 'failing' : null);
  if (reason && s.status === 'active')
    out.push({ type: 'BriefingScheduleUpdated', data: { ...base, ...settingsOf(s), status: 'paused', paused_reason: reason, next_run_at: null, consecutive_failures: failures, updated_by: 'system' } });
  return out;
}

/** What one delivery attempt's answer means for the run. */
export type AttemptVerdict = { kind: 'delivered' } | { kind: 'retry'; at: number } | { kind: 'failed'; pause: BriefingPausedReason | null };

/** Webhooks: 2xx delivers; 410 fails at once and pauses (`endpoint_gone`); else retried after 1 min, 5 min, 30 min, 2 h, 6 h. */
export function webhookVerdict(attempt: number, httpStatus: number | null, now: number, delays: readonly number[] = WEBHOOK_RETRY_DELAYS_SECS): AttemptVerdict {
  if (httpStatus !== null && httpStatus >= 200 && httpStatus < 300) return { kind: 'delivered' };
  if (httpStatus === 410) return { kind: 'failed', pause: 'endpoint_gone' };
  return attempt <= delays.length ? { kind: 'retry', at: now + delays[attempt - 1]! } : { kind: 'failed', pause: null };
}

/** E-mail: accepted delivers; otherwise up to 3 attempts, 1 minute apart. */
export function emailVerdict(attempt: number, accepted: boolean, now: number, retrySecs = EMAIL_RETRY_SECS): AttemptVerdict {
  if (accepted) return { kind: 'delivered' };
  return attempt < EMAIL_ATTEMPTS ? { kind: 'retry', at: now + retrySecs } : { kind: 'failed', pause: null };
}
