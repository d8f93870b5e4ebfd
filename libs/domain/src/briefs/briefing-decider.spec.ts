import {
  FAILURES_BEFORE_PAUSE,
  checkWebhookUrl,
  decideDeleteSchedule,
  decideFire,
  decidePatchSchedule,
  decidePutSchedule,
  decideRunEnd,
  decideSendNow,
  emailVerdict,
  readSchedulePatch,
  readScheduleInput,
  webhookVerdict,
} from './briefing-decider';
import { BriefingRun, BriefingSchedule } from './briefing-records';
import { at } from '@strata/domain/testing/fixed-time';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return `${(e as { code: string }).code}:${(e as { context?: { field?: string } }).context?.field ?? ''}`;
  }
  return null;
};

const T0 = at('2026-05-04T08:10:00Z');
const actor = { org: 'org-1', by: 'user:u1', now: T0 };

function schedule(over: Partial<BriefingSchedule> = {}): BriefingSchedule {
  return {
    id: 's1', project_uid: 'p1', channel: 'webhook', recipient: 'https://hooks.example.com/x', cron: null, interval_secs: 3600, timezone: 'UTC', mode: 'auto',
    only_on_change: true, status: 'active', paused_reason: null, next_run_at: T0 + 3600, consecutive_failures: 0, secret_hint: 'abcd', created_by: 'user:u1',
    created_at: T0, updated_at: T0, ...over,
  };
}

function run(over: Partial<BriefingRun> = {}): BriefingRun {
  return {
    id: 'r1', schedule_id: 's1', trigger: 'cadence', status: 'pending', scheduled_for: T0, started_at: null, completed_at: null, brief_version: null, reused: null,
    material_change_count: 0, skip_reason: null, attempts: 0, error: null, http_status: null, next_attempt_at: null, ...over,
  };
}

describe('briefing schedule input (REFERENCE §12.7)', () => {
  const base = { project_uid: 'p1', channel: 'in_app', recipient: 'user:u2', interval_secs: 3600 };

  it('normalises recipients and applies the defaults', () => {
    expect(readScheduleInput(base, false)).toEqual({ ...base, cron: null, timezone: 'UTC', mode: 'auto', only_on_change: true, paused: false, rotate_secret: false });
    expect(readScheduleInput({ ...base, channel: 'email', recipient: ' Ann@Example.ORG ' }, false).recipient).toBe('ann@example.org');
    expect(readScheduleInput({ ...base, channel: 'webhook', recipient: 'https://hooks.example.com/a' }, false).recipient).toBe('https://hooks.example.com/a');
  });

  it('refuses what the field rules refuse, naming the field', () => {
    expect(codeOf(() => readScheduleInput({ ...base, project_uid: undefined }, false))).toBe('missing_field:project_uid');
    expect(codeOf(() => readScheduleInput({ ...base, project_uid: 'a b' }, false))).toBe('invalid_uid:project_uid');
    expect(codeOf(() => readScheduleInput({ ...base, channel: 'fax' }, false))).toBe('invalid_field:channel');
    expect(codeOf(() => readScheduleInput({ ...base, recipient: 'u2' }, false))).toBe('invalid_field:recipient');
    expect(codeOf(() => readScheduleInput({ ...base, channel: 'email', recipient: 'nope' }, false))).toBe('invalid_field:recipient');
    expect(codeOf(() => readScheduleInput({ ...base, interval_secs: undefined }, false))).toBe('missing_field:cron');
    expect(codeOf(() => readScheduleInput({ ...base, cron: '0 9 * * *' }, false))).toBe('invalid_field:cron');
    expect(codeOf(() => readScheduleInput({ ...base, mode: 'x' }, false))).toBe('invalid_field:mode');
    expect(codeOf(() => readScheduleInput({ ...base, paused: 'no' }, false))).toBe('invalid_field:paused');
  });

  it('keeps webhooks off loopback, link-local and private hosts unless allowed', () => {
    for (const u of ['https://127.0.0.1/x', 'https://10.0.0.8/x', 'https://[::1]/x', 'https://169.254.169.254/x', 'https://localhost:8443/x', 'https://api.localhost/x', 'http://hooks.example.com/x', 'https://u:p@hooks.example.com/x'])
      expect(codeOf(() => checkWebhookUrl(u, false))).toBe('invalid_field:recipient');
    expect(checkWebhookUrl('https://hooks.example.com/x', false).host).toBe('hooks.example.com');
    expect(checkWebhookUrl('http://127.0.0.1:9/x', true).port).toBe('9');
    expect(codeOf(() => checkWebhookUrl('https://hooks.example.com/' + 'a'.repeat(2048), true))).toBe('invalid_field:recipient');
  });

  it('PATCH refuses the key fields and both timings', () => {
    for (const f of ['project_uid', 'channel', 'recipient']) expect(codeOf(() => readSchedulePatch({ [f]: 'x' }))).toBe(`immutable_field:${f}`);
    expect(codeOf(() => readSchedulePatch({ cron: '0 9 * * *', interval_secs: 3600 }))).toBe('invalid_field:cron');
    expect(codeOf(() => readSchedulePatch({ timezone: 'Nowhere/Land' }))).toBe('invalid_field:timezone');
    expect(readSchedulePatch({ paused: true, timezone: 'Europe/Paris' })).toEqual({ paused: true, timezone: 'Europe/Paris', rotate_secret: false });
  });
});

describe('briefing schedule decisions', () => {
  const input = readScheduleInput({ project_uid: 'p1', channel: 'webhook', recipient: 'https://hooks.example.com/x', interval_secs: 7200 }, false);

  it('creates with the first run one interval after creation, and replaces keeping id, creation and failures', () => {
    const [created] = decidePutSchedule(null, input, { ...actor, schedule_id: 's1', schedule_count: 0, secret_hint: 'wxyz' });
    expect(created).toMatchObject({ type: 'BriefingScheduleCreated', data: { schedule_id: 's1', next_run_at: T0 + 7200, status: 'active', secret_hint: 'wxyz', consecutive_failures: 0 } });
    const existing = schedule({ interval_secs: 7200, consecutive_failures: 2 });
    const later = { ...actor, now: T0 + 5000, schedule_id: 'ignored', schedule_count: 1, secret_hint: 'new1' };
    const events = decidePutSchedule(existing, { ...input, only_on_change: false }, later);
    expect(events.map((e) => e.type)).toEqual(['BriefingScheduleReplaced', 'BriefingSecretRotated']);
    expect(events[0]!.data).toMatchObject({ schedule_id: 's1', only_on_change: false, next_run_at: T0 + 7200, consecutive_failures: 2 });
    expect(events[1]!.data).toMatchObject({ secret_hint: 'new1', previous_valid_until: T0 + 5000 + 86400 });
    expect(codeOf(() => decidePutSchedule(null, input, { ...actor, schedule_id: 's2', schedule_count: 100, secret_hint: null }))).toBe('invalid_field:project_uid');
  });

  it('pauses, and resumes at the next slot after now with the failure count reset', () => {
    const [paused] = decidePatchSchedule(schedule(), { paused: true, rotate_secret: false }, { ...actor, secret_hint: null });
    expect(paused!.data).toMatchObject({ status: 'paused', paused_reason: 'requested', next_run_at: null });
    const [resumed] = decidePatchSchedule(schedule({ status: 'paused', paused_reason: 'failing', next_run_at: null, consecutive_failures: 5 }), { paused: false, rotate_secret: false }, { ...actor, now: T0 + 3 * 3600 + 5, secret_hint: null });
    expect(resumed!.data).toMatchObject({ status: 'active', paused_reason: null, consecutive_failures: 0, next_run_at: T0 + 4 * 3600 });
    expect(codeOf(() => decidePatchSchedule(schedule({ channel: 'email' }), { rotate_secret: true }, { ...actor, secret_hint: 'x' }))).toBe('invalid_field:rotate_secret');
  });

  it('send-now queues a run even when paused, and refuses while one is active', () => {
    const [q] = decideSendNow(schedule({ status: 'paused', next_run_at: null }), null, { ...actor, run_id: 'r9' });
    expect(q).toMatchObject({ type: 'BriefingRunQueued', data: { run_id: 'r9', trigger: 'send_now', scheduled_for: T0, next_run_at: null } });
    expect(codeOf(() => decideSendNow(schedule(), run({ status: 'running' }), { ...actor, run_id: 'r9' }))).toBe('run_active:');
  });

  it('a fire while a run is active is recorded as skipped (run_active); either way the schedule moves on', () => {
    const s = schedule();
    const fired = decideFire(s, null, T0 + 3600, 'cadence', { ...actor, now: T0 + 3601, run_id: 'r2' });
    expect(fired).toEqual([{ type: 'BriefingRunQueued', data: expect.objectContaining({ run_id: 'r2', scheduled_for: T0 + 3600, next_run_at: T0 + 7200 }) }]);
    const skipped = decideFire(s, run({ status: 'running' }), T0 + 3600, 'cadence', { ...actor, now: T0 + 3601, run_id: 'r3' });
    expect(skipped.map((e) => e.type)).toEqual(['BriefingRunQueued', 'BriefingRunFinished']);
    expect(skipped[1]!.data).toMatchObject({ status: 'skipped', skip_reason: 'run_active' });
  });

  it('five failed runs in a row pause the schedule; a delivery resets the count; a gone endpoint pauses at once', () => {
    const failed = { status: 'failed' as const, brief_version: null, reused: null, material_change_count: 0, skip_reason: null, error: { code: 'http_error', message: '500' } };
    const fourth = decideRunEnd(schedule({ consecutive_failures: FAILURES_BEFORE_PAUSE - 2 }), 'r1', failed, actor);
    expect(fourth.map((e) => e.type)).toEqual(['BriefingRunFinished']);
    const fifth = decideRunEnd(schedule({ consecutive_failures: FAILURES_BEFORE_PAUSE - 1 }), 'r1', failed, actor);
    expect(fifth.map((e) => e.type)).toEqual(['BriefingRunFinished', 'BriefingScheduleUpdated']);
    expect(fifth[1]!.data).toMatchObject({ status: 'paused', paused_reason: 'failing', consecutive_failures: 5, next_run_at: null });
    const ok = decideRunEnd(schedule({ consecutive_failures: 3 }), 'r1', { ...failed, status: 'delivered', error: null, brief_version: 2, reused: false }, actor);
    expect(ok[0]!.data).toMatchObject({ consecutive_failures: 0 });
    expect(decideRunEnd(schedule(), 'r1', failed, actor, 'endpoint_gone')[1]!.data).toMatchObject({ paused_reason: 'endpoint_gone' });
  });

  it('DELETE cancels only a pending run', () => {
    expect(decideDeleteSchedule(schedule(), run(), actor)[0]!.data).toMatchObject({ cancelled_run_id: 'r1' });
    expect(decideDeleteSchedule(schedule(), run({ status: 'running' }), actor)[0]!.data).toMatchObject({ cancelled_run_id: null });
  });

  it('retries webhooks after 1 min, 5 min, 30 min, 2 h and 6 h; e-mail 3 times a minute apart', () => {
    expect([1, 2, 3, 4, 5].map((a) => webhookVerdict(a, 500, 0))).toEqual([60, 300, 1800, 7200, 21600].map((s) => ({ kind: 'retry', at: s })));
    expect(webhookVerdict(6, 500, 0)).toEqual({ kind: 'failed', pause: null });
    expect(webhookVerdict(1, null, 0)).toEqual({ kind: 'retry', at: 60 });
    expect(webhookVerdict(3, 410, 0)).toEqual({ kind: 'failed', pause: 'endpoint_gone' });
    expect(webhookVerdict(2, 204, 0)).toEqual({ kind: 'delivered' });
    expect([1, 2, 3].map((a) => emailVerdict(a, false, 100))).toEqual([{ kind: 'retry', at: 160 }, { kind: 'retry', at: 160 }, { kind: 'failed', pause: null }]);
    expect(emailVerdict(1, true, 0)).toEqual({ kind: 'delivered' });
  });
});
