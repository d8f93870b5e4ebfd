import { Cron } from 'croner';
import { AgentRecord } from './agent-record';
import { assertCronFirings, assertCronSyntax } from './schedule-cron';
import { FiringState, ScheduleRules, assertTemplate, decideCreateSchedule, decideFiring, decideUpdateSchedule, localTime, renderTemplate, scheduleSessionTitle } from './schedule-decider';
import { AgentScheduleRecord, ScheduleEvent, foldSchedule, newScheduleRecord } from './schedule-events';
import { at } from '@strata/domain/testing/fixed-time';

const T0 = at('2030-01-01T12:00:00Z'); // a Tuesday
/** croner's firings (the platform scheduler adds the gap shift, tested in libs/jobs) */
const next = (cron: string, timezone: string) => {
  const c = new Cron(cron, { timezone });
  return (after: number) => {
    const d = c.nextRun(new Date(after * 1000));
    return d ? d.getTime() / 1000 : null;
  };
};
const rules: ScheduleRules = { now: T0, minIntervalS: 300, nextFor: next };
const agent = { id: 'a1', org_id: 'o', name: 'Briefer', status: 'active' } as AgentRecord;

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    const e = err as { code: string; context: { field?: string } };
    return `${e.code}:${e.context.field ?? ''}`;
  }
}

describe('schedule cron rules', () => {
  it.each([
    '0 7 * * 1-5', '*/5 * * * *', '0 9 1 * MON', '0 0 L * *', '0 0 * * 5L', '0 0 * * FRI#2', '0 0 * * 7', '30 2 * jan-mar sun', '0 0,12 1-15/2 * *',
    '@hourly', '@daily', '@weekly', '@monthly', '@yearly', '@annually', '@DAILY',
  ])('accepts %s', (p) => {
    expect(codeOf(() => assertCronSyntax(p))).toBeNull();
  });

  it.each(['', 'bad', '0 0 * * * *', '0 0 0 * * * 2030', '61 * * * *', '0 24 * * *', '0 0 ? * *', '0 0 15W * *', '0 0 1 * +MON', '@reboot', '@midnight', '0 0 32 * *', '0 0 * 13 *'])(
    'refuses %s with invalid_field on cron',
    (p) => {
      expect(codeOf(() => assertCronSyntax(p))).toBe('invalid_field:cron');
    },
  );

  it('needs firings at least the minimum interval apart over the next 1000, and one within 5 years', () => {
    expect(assertCronFirings(next('*/5 * * * *', 'UTC'), T0, 300)).toBe(T0 + 300);
    expect(codeOf(() => assertCronFirings(next('*/4 * * * *', 'UTC'), T0, 300))).toBe('invalid_field:cron');
    // 00:00 and 00:01 once a year: far apart on average, 60 s apart once
    expect(codeOf(() => assertCronFirings(next('0,1 0 1 1 *', 'UTC'), T0, 300))).toBe('invalid_field:cron');
    expect(codeOf(() => assertCronFirings(next('0,1 0 1 1 *', 'UTC'), T0, 60))).toBeNull();
    // 30 February never comes; a fifth Monday of February comes every 28 years or so
    expect(codeOf(() => assertCronFirings(next('0 0 30 2 *', 'UTC'), T0, 300))).toBe('invalid_field:cron');
    expect(codeOf(() => assertCronFirings(next('0 0 * 2 1#5', 'UTC'), T0, 300))).toBe('invalid_field:cron');
    expect(codeOf(() => assertCronFirings(next('0 0 29 2 *', 'UTC'), T0, 300))).toBeNull();
  });

  it('ORs the two day fields when both are restricted (Vixie)', () => {
    const n = next('0 9 1 * MON', 'UTC');
    // 1 Jan 2030 is a Tuesday: fires on the 1st, then on Mondays
    expect([n(T0 - 12 * 3600), n(T0)].map((x) => new Date(x! * 1000).toISOString())).toEqual(['2030-01-01T09:00:00.000Z', '2030-01-07T09:00:00.000Z']);
  });
});

describe('message templates', () => {
  it('fills the placeholders in the schedule’s zone and refuses unknown ones', () => {
    const slot = at('2030-07-01T05:30:00Z');
    const text = renderTemplate('Briefing {{date}} {{ time }} ({{datetime}}) by {{agent_name}} for {{schedule_name}}', { at: slot, timezone: 'Europe/Paris', schedule_name: 'Daily', agent_name: 'Briefer' });
    expect(text).toBe('Briefing 2030-07-01 07:30 (2030-07-01T07:30:00+02:00) by Briefer for Daily');
    expect(localTime(at('2030-01-01T23:30:00Z'), 'America/New_York')).toEqual({ date: '2030-01-01', time: '18:30', datetime: '2030-01-01T18:30:00-05:00' });
    expect(localTime(at('2030-01-01T23:30:00Z'), 'Asia/Kolkata').datetime).toBe('2030-01-02T05:00:00+05:30');
    expect(scheduleSessionTitle('Daily', slot, 'Europe/Paris')).toBe('Daily · 2030-07-01 07:30');
    expect(codeOf(() => assertTemplate('Hello {{user}}'))).toBe('invalid_field:message_template');
    expect(codeOf(() => assertTemplate('Hello {{}}'))).toBe('invalid_field:message_template');
    expect(codeOf(() => assertTemplate('Plain { braces } and {{date}}'))).toBeNull();
  });
});

describe('schedule decider', () => {
  const input = { agent_id: 'a1', name: 'Daily', cron: '0 7 * * *', message_template: 'Go {{date}}' };

  it('creates with the defaults, checking the body before the agent', () => {
    const s = decideCreateSchedule(input, 's1', 'o', 'u', agent, rules);
    expect(s).toMatchObject({ timezone: 'UTC', enabled: true, overlap_policy: 'forbid', cron: '0 7 * * *', created_at: T0 });
    expect(codeOf(() => decideCreateSchedule({ ...input, cron: '* * * * *' }, 's1', 'o', 'u', null, rules))).toBe('invalid_field:cron');
    expect(codeOf(() => decideCreateSchedule({ ...input, timezone: 'Mars/Olympus' }, 's1', 'o', 'u', agent, rules))).toBe('invalid_field:timezone');
    expect(codeOf(() => decideCreateSchedule(input, 's1', 'o', 'u', null, rules))).toBe('not_found:id');
    expect(codeOf(() => decideCreateSchedule(input, 's1', 'o', 'u', { ...agent, status: 'archived' }, rules))).toBe('invalid_field:agent_id');
    expect(codeOf(() => decideCreateSchedule({ ...input, name: undefined }, 's1', 'o', 'u', agent, rules))).toBe('missing_field:name');
  });

  it('PATCH: agent_id is immutable, no change moves nothing, timing changes say so', () => {
    const rec = newScheduleRecord(decideCreateSchedule(input, 's1', 'o', 'u', agent, rules));
    expect(codeOf(() => decideUpdateSchedule(rec, { agent_id: 'other' }, rules))).toBe('immutable_field:agent_id');
    expect(decideUpdateSchedule(rec, { agent_id: 'a1', name: 'Daily' }, rules).changed).toEqual([]);
    expect(decideUpdateSchedule(rec, { name: 'Nightly' }, { ...rules, now: T0 + 5 })).toMatchObject({ changed: ['name'], retimed: false, schedule: { updated_at: T0 + 5 } });
    expect(decideUpdateSchedule(rec, { timezone: 'Europe/Paris' }, rules)).toMatchObject({ changed: ['timezone'], retimed: true });
    expect(decideUpdateSchedule(rec, { enabled: false }, rules).retimed).toBe(true);
    expect(codeOf(() => decideUpdateSchedule(rec, { cron: '*/1 * * * *' }, rules))).toBe('invalid_field:cron');
    expect(codeOf(() => decideUpdateSchedule({ ...rec, deleted_at: T0 }, { name: 'x' }, rules))).toBe('not_found:id');
  });

  it('decides each outcome in order: plan, the agent, overlap, budget, provider', () => {
    const f: FiringState = { planAllows: true, agent, previousActive: false, budgetExhausted: false, providerConfigured: true, overlap: 'forbid' };
    expect(decideFiring(f)).toEqual({ outcome: 'started', reason: null, cancelPrevious: false });
    expect(decideFiring({ ...f, planAllows: false, agent: { ...agent, status: 'paused' } }).outcome).toBe('skipped_plan');
    expect(decideFiring({ ...f, agent: { ...agent, status: 'paused' }, previousActive: true }).outcome).toBe('skipped_paused');
    expect(decideFiring({ ...f, previousActive: true, budgetExhausted: true })).toMatchObject({ outcome: 'skipped_overlap', reason: 'previous_run_active' });
    expect(decideFiring({ ...f, budgetExhausted: true, providerConfigured: false }).outcome).toBe('skipped_budget');
    expect(decideFiring({ ...f, providerConfigured: false })).toMatchObject({ outcome: 'failed', reason: 'llm_not_configured' });
    expect(decideFiring({ ...f, previousActive: true, overlap: 'allow' })).toEqual({ outcome: 'started', reason: null, cancelPrevious: false });
    expect(decideFiring({ ...f, previousActive: true, overlap: 'replace' })).toEqual({ outcome: 'replaced_previous', reason: null, cancelPrevious: true });
    expect(decideFiring({ ...f, previousActive: false, overlap: 'replace' }).outcome).toBe('started');
  });

  it('folds outcomes: counts, the last one, the 10 most recent first', () => {
    let s: AgentScheduleRecord | null = newScheduleRecord(decideCreateSchedule(input, 's1', 'o', 'u', agent, rules));
    const base = { org_id: 'o', agent_id: 'a1', schedule_id: 's1' };
    const events: ScheduleEvent[] = [];
    for (let i = 0; i < 12; i++)
      events.push(
        i % 3 === 0
          ? { type: 'AgentScheduleSkipped', data: { ...base, scheduled_for: T0 + i * 3600, outcome: 'skipped_overlap', reason: 'previous_run_active', at: T0 + i * 3600 + 1 } }
          : { type: 'AgentScheduleFired', data: { ...base, scheduled_for: T0 + i * 3600, outcome: 'started', session_id: `ss${i}`, run_id: `r${i}`, message_id: `m${i}`, replaced_run_id: null, at: T0 + i * 3600 + 1 } },
      );
    for (const e of events) s = foldSchedule(s, e);
    expect(s).toMatchObject({ fire_count: 8, last_outcome: 'started', last_session_id: 'ss11', last_run_id: 'r11', last_slot: T0 + 11 * 3600, last_fired_at: T0 + 11 * 3600 + 1 });
    expect(s!.recent).toHaveLength(10);
    expect(s!.recent[0]).toEqual({ scheduled_for: T0 + 11 * 3600, fired_at: T0 + 11 * 3600 + 1, outcome: 'started', session_id: 'ss11', reason: null });
    expect(s!.recent[9].scheduled_for).toBe(T0 + 2 * 3600);
  });
});
