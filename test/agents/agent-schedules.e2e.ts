import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { TestApp, startTestApp } from '../support/test-app';
import { AgentsStore } from '../../apps/api/src/agents/agents-store';
import { ScheduleTimers } from '../../apps/api/src/agents/schedules/schedule-timers';
import { Api, api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** Agent schedules (REFERENCE §16.11) on a fixed clock, firing through the platform scheduler, against a scripted model server. */


/** an owner on Pro, calling with an API key (the clock moves past access tokens' lifetime) */
async function proOwner(url: string): Promise<Api> {
  const s = await signUp(url);
  expect((await api(url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
  return api(url, (await createApiKey(url, s.access_token)).key);
}

describe('agent schedules', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let scheduler: Scheduler;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  /** moves the clock to `iso` and lets the scheduler deal with what is due */
  async function tickAt(iso: string) {
    clock.set(at(iso));
    return scheduler.tick();
  }

  async function scheduleOf(a: Api, id: string) {
    const page = (await a.get('/v1/agents/schedules?limit=1000')).body;
    return page.items.find((s: { id: string }) => s.id === id);
  }

  /** waits until the schedule recorded `n` outcomes */
  function outcomes(a: Api, id: string, n: number) {
    return eventually(async () => {
      const s = await scheduleOf(a, id);
      return s && s.recent.length >= n ? s : null;
    }, { what: `${n} outcomes of schedule ${id}` });
  }

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({
      clock,
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted', STRATA_PLAN_LIMITS: '{"pro":{"schedules":3}}' },
    });
    scheduler = t.app.get(Scheduler);
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('the reserved segments are routes of their own, never an agent id', async () => {
    const a = await proOwner(t.url);
    const list = await a.get('/v1/agents/schedules');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [], has_more: false, limit: 50, offset: 0 });
    expect((await a.get('/v1/agents/activity')).status).toBe(200);
    // another method on a reserved path is the router's 405, not "agent schedules not found"
    const patch = await a.patch('/v1/agents/schedules', {});
    expect(patch.status).toBe(405);
    expect(patch.body.code).toBe('method_not_allowed');
    expect(patch.headers.get('allow')).toBe('GET, POST');
    expect((await a.post('/v1/agents/activity/archive', {})).status).toBe(405);
    expect((await a.patch('/v1/agents/schedules/nope', { name: 'x' })).body.code).toBe('not_found');
    expect((await a.delete('/v1/agents/schedules/nope')).status).toBe(404);
  });

  it('validates the body first (cron, zone, template), then the agent; agent_id is immutable', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Briefer', template_type: 'briefing' })).body;
    const body = { agent_id: agent.id, name: 'Daily', cron: '0 7 * * *', message_template: 'Brief {{date}}' };
    const field = async (extra: Record<string, unknown>) => {
      const r = await a.post('/v1/agents/schedules', { ...body, ...extra });
      return `${r.status}:${r.body.code}:${r.body.field ?? ''}`;
    };
    expect(await field({ cron: '0 7 * *' })).toBe('400:invalid_field:cron');
    expect(await field({ cron: '0 0 ? * *' })).toBe('400:invalid_field:cron');
    expect(await field({ cron: '*/2 * * * *' })).toBe('400:invalid_field:cron'); // 120 s apart
    expect(await field({ cron: '0 0 30 2 *' })).toBe('400:invalid_field:cron'); // never
    expect(await field({ timezone: 'Mars/Olympus' })).toBe('400:invalid_field:timezone');
    expect(await field({ message_template: 'Hi {{user}}' })).toBe('400:invalid_field:message_template');
    expect(await field({ overlap_policy: 'queue' })).toBe('400:invalid_field:overlap_policy');
    expect(await field({ name: undefined })).toBe('400:missing_field:name');
    expect(await field({ agent_id: 'no-such-agent', cron: '*/2 * * * *' })).toBe('400:invalid_field:cron');
    expect(await field({ agent_id: 'no-such-agent' })).toBe('404:not_found:id');
    expect((await a.get('/v1/agents/schedules')).body.items).toEqual([]);

    const created = await a.post('/v1/agents/schedules', { ...body, timezone: 'Europe/Paris', cron: '@daily' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      agent_id: agent.id, name: 'Daily', cron: '@daily', timezone: 'Europe/Paris', enabled: true, overlap_policy: 'forbid',
      next_run_at: '2030-01-01T23:00:00.000Z', last_fired_at: null, last_outcome: null, fire_count: 0, recent: [],
    });
    const id = created.body.id;
    const patched = await a.patch(`/v1/agents/schedules/${id}`, { agent_id: 'other' });
    expect([patched.status, patched.body.code]).toEqual([422, 'immutable_field']);
    expect((await a.patch(`/v1/agents/schedules/${id}`, { enabled: false })).body).toMatchObject({ enabled: false, next_run_at: null });
    expect((await a.patch(`/v1/agents/schedules/${id}`, { enabled: true, timezone: 'America/New_York' })).body).toMatchObject({ next_run_at: '2030-01-02T05:00:00.000Z' });
    expect((await a.get(`/v1/agents/${agent.id}/work`)).body.upcoming_schedules).toEqual([{ schedule_id: id, name: 'Daily', next_run_at: '2030-01-02T05:00:00.000Z' }]);
    expect((await a.delete(`/v1/agents/schedules/${id}`)).body).toEqual({ id, deleted: true });
    expect((await a.delete(`/v1/agents/schedules/${id}`)).status).toBe(404);
    expect((await a.patch(`/v1/agents/schedules/${id}`, { name: 'x' })).status).toBe(404);
    expect((await a.get('/v1/agents/schedules')).body.items).toEqual([]);
  });

  it('a PATCH with a bad pattern, zone or template is 400 before an unknown schedule is 404', async () => {
    const a = await proOwner(t.url);
    for (const [body, field] of [
      [{ cron: '0 7 * *' }, 'cron'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ message_template: 'Hi {{user}}' }, 'message_template'],
    ] as const) {
      const r = await a.patch('/v1/agents/schedules/no-such-schedule', body);
      expect([field, r.status, r.body.code, r.body.field]).toEqual([field, 400, 'invalid_field', field]);
    }
    expect((await a.patch('/v1/agents/schedules/no-such-schedule', { name: 'ok' })).status).toBe(404);
  });

  it('a firing opens a schedule session whose first message is the rendered template; overlap policies; paused; plan limit', async () => {
    clock.set(at('2030-01-01T12:00:00Z'));
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Watcher', template_type: 'monitor' })).body;
    const created = await a.post('/v1/agents/schedules', {
      agent_id: agent.id, name: 'Hourly', cron: '0 * * * *', timezone: 'Europe/Paris', message_template: 'Check {{date}} {{time}} ({{datetime}}) as {{agent_name}} for {{schedule_name}}',
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body.next_run_at).toBe('2030-01-01T13:00:00.000Z');

    // nothing before its slot
    expect(await tickAt('2030-01-01T12:59:59Z')).toEqual([]);
    // the run asks the user: it stays waiting, which forbid counts as the previous firing still going
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Anything?' } }] });
    await tickAt('2030-01-01T13:00:05Z');
    const fired = await outcomes(a, id, 1);
    expect(fired).toMatchObject({ fire_count: 1, last_outcome: 'started', last_fired_at: expect.any(String), next_run_at: '2030-01-01T14:00:00.000Z' });
    expect(fired.recent[0]).toMatchObject({ scheduled_for: '2030-01-01T13:00:00.000Z', outcome: 'started', session_id: fired.last_session_id, reason: null });
    const session = (await a.get(`/v1/agents/sessions/${fired.last_session_id}`)).body;
    expect(session).toMatchObject({ source: 'schedule', schedule_id: id, agent_id: agent.id, title: 'Hourly · 2030-01-01 14:00' });
    const first = (await a.get(`/v1/agents/sessions/${session.id}/events?types=message.user`)).body.items[0];
    expect(first.data).toMatchObject({ content: 'Check 2030-01-01 14:00 (2030-01-01T14:00:00+01:00) as Watcher for Hourly', sender: { kind: 'schedule', id } });
    await eventually(async () => (await a.get(`/v1/agents/sessions/${session.id}`)).body.status === 'requires_action', { what: 'the first run waits on the user' });
    const run1 = session.current_run.id;
    expect(session.current_run.trigger.kind).toBe('schedule');

    // forbid: skipped while the previous firing's run waits
    await tickAt('2030-01-01T14:00:01Z');
    expect((await outcomes(a, id, 2)).recent[0]).toMatchObject({ outcome: 'skipped_overlap', reason: 'previous_run_active', session_id: null });

    // replace: the waiting run is cancelled, a new session starts
    expect((await a.patch(`/v1/agents/schedules/${id}`, { overlap_policy: 'replace' })).status).toBe(200);
    llm.enqueue({ type: 'text', text: 'All quiet.' });
    await tickAt('2030-01-01T15:00:01Z');
    const replaced = await outcomes(a, id, 3);
    expect(replaced).toMatchObject({ fire_count: 2, last_outcome: 'replaced_previous' });
    expect(replaced.last_session_id).not.toBe(session.id);
    const old = (await a.get(`/v1/agents/sessions/${session.id}`)).body;
    expect(old.last_run).toMatchObject({ id: run1, status: 'cancelled' });
    await eventually(async () => (await a.get(`/v1/agents/sessions/${replaced.last_session_id}`)).body.last_run?.status === 'completed', { what: 'the replacing run completes' });

    // paused agent: skipped
    expect((await a.patch(`/v1/agents/${agent.id}`, { paused: true })).status).toBe(200);
    await tickAt('2030-01-01T16:00:01Z');
    expect((await outcomes(a, id, 4)).recent[0]).toMatchObject({ outcome: 'skipped_paused', reason: 'agent_paused' });
    expect((await a.patch(`/v1/agents/${agent.id}`, { paused: false })).status).toBe(200);

    // allow: a firing starts although the previous run still waits
    expect((await a.patch(`/v1/agents/schedules/${id}`, { overlap_policy: 'allow' })).status).toBe(200);
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask2', name: 'ask_user', arguments: { question: 'Again?' } }] });
    await tickAt('2030-01-01T17:00:01Z');
    const allowed = await outcomes(a, id, 5);
    await eventually(async () => (await a.get(`/v1/agents/sessions/${allowed.last_session_id}`)).body.status === 'requires_action', { what: 'the run waits' });
    llm.enqueue({ type: 'text', text: 'Started anyway.' });
    await tickAt('2030-01-01T18:00:01Z');
    expect((await outcomes(a, id, 6)).recent.slice(0, 2).map((r: { outcome: string }) => r.outcome)).toEqual(['started', 'started']);

    // each outcome is in the activity feed
    const feed = (await a.get(`/v1/agents/activity?agent_id=${agent.id}&types=schedule.fired,schedule.skipped`)).body.items;
    expect(feed.map((i: { type: string; data: { outcome: string } }) => `${i.type} ${i.data.outcome}`)).toEqual([
      'schedule.fired started', 'schedule.fired started', 'schedule.skipped skipped_paused', 'schedule.fired replaced_previous', 'schedule.skipped skipped_overlap', 'schedule.fired started',
    ]);
    expect(feed[0]).toMatchObject({ schedule_id: id, agent_name: 'Watcher', session_id: expect.any(String), run_id: expect.any(String) });

    // the plan counts live schedules: 3 on this test's pro plan
    const more = { agent_id: agent.id, cron: '@daily', message_template: 'x' };
    expect((await a.post('/v1/agents/schedules', { ...more, name: 'Two' })).status).toBe(201);
    expect((await a.post('/v1/agents/schedules', { ...more, name: 'Three' })).status).toBe(201);
    const over = await a.post('/v1/agents/schedules', { ...more, name: 'Four' });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: 'plan_limit_reached', limit: 'schedules', max: 3, current: 3 });
    expect((await a.get('/v1/usage')).body.schedules).toEqual({ used: 3, limit: 3 });

    // archiving the agent deletes its schedules
    expect((await a.post(`/v1/agents/${agent.id}/archive`)).status).toBe(200);
    expect((await a.get(`/v1/agents/schedules?agent_id=${agent.id}`)).body.items).toEqual([]);
    expect((await tickAt('2030-01-01T19:00:01Z')).filter((r) => r.schedule_id === id)).toEqual([]);
  });

  it('at start, a live schedule whose scheduler record was lost (a crash after the append) gets it back', async () => {
    clock.set(at('2030-01-02T06:00:00Z'));
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Restored' })).body;
    const id = (await a.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Daily', cron: '@daily', timezone: 'Asia/Tokyo', message_template: 'x' })).body.id;
    expect(await scheduler.remove(agent.org_id, id)).toBe(true);
    await t.app.get(ScheduleTimers).onApplicationBootstrap();
    expect(await scheduler.get(agent.org_id, id)).toMatchObject({ cron: '@daily', timezone: 'Asia/Tokyo', enabled: true, next_run_at: at('2030-01-02T15:00:00Z') });
  });

  it('after downtime: the slots passed are recorded missed, and only the latest fires if it is less than 300 s late', async () => {
    clock.set(at('2030-01-02T08:30:00Z'));
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Nightly', template_type: 'curator' })).body;
    const id = (await a.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Hourly', cron: '0 * * * *', message_template: 'Curate {{datetime}}' })).body.id;
    llm.enqueue({ type: 'text', text: 'Done.' });
    // down from 08:30 to 12:02: 09, 10 and 11 o'clock missed, 12 o'clock fires (120 s late)
    await tickAt('2030-01-02T12:02:00Z');
    const s = await outcomes(a, id, 4);
    expect(s.recent.map((r: { scheduled_for: string; outcome: string }) => `${r.scheduled_for.slice(11, 16)} ${r.outcome}`)).toEqual(['12:00 started', '11:00 missed', '10:00 missed', '09:00 missed']);
    expect(s).toMatchObject({ fire_count: 1, next_run_at: '2030-01-02T13:00:00.000Z' });

    // down again past the grace: nothing fires, every slot is missed
    await tickAt('2030-01-02T14:10:00Z');
    const later = await outcomes(a, id, 6);
    expect(later.recent.slice(0, 2).map((r: { scheduled_for: string; outcome: string }) => `${r.scheduled_for.slice(11, 16)} ${r.outcome}`)).toEqual(['14:00 missed', '13:00 missed']);
    expect(later.fire_count).toBe(1);
    // a slot is recorded once: the same tick again does nothing
    expect(await scheduler.tick()).toEqual([]);
  });

  it('skipped_plan after a downgrade, skipped_budget when the day’s credits are used up', async () => {
    clock.set(at('2030-01-03T08:30:00Z'));
    const s = await signUp(t.url);
    const owner = api(t.url, s.access_token);
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const a = api(t.url, (await createApiKey(t.url, s.access_token)).key);
    const agent = (await a.post('/v1/agents', { name: 'Spender', daily_credit_budget: 1 })).body;
    const id = (await a.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Hourly', cron: '0 * * * *', message_template: 'Go', overlap_policy: 'allow' })).body.id;
    llm.enqueue({ type: 'text', text: 'Spent.', usage: { input: 10, output: 10 } });
    await tickAt('2030-01-03T09:00:01Z');
    const first = await outcomes(a, id, 1);
    await eventually(async () => (await a.get(`/v1/agents/sessions/${first.last_session_id}`)).body.last_run?.status === 'completed', { what: 'the run completes' });
    await tickAt('2030-01-03T10:00:01Z');
    expect((await outcomes(a, id, 2)).recent[0]).toMatchObject({ outcome: 'skipped_budget', reason: 'budget_exhausted' });
    clock.set(at('2030-01-03T10:50:00Z'));
    const again = api(t.url, (await api(t.url).post('/v1/auth/login', { email: s.email, password: s.password })).body.access_token);
    expect((await again.post('/v1/billing/subscribe', { plan: 'free' })).status).toBe(200);
    expect((await a.get('/v1/agents/schedules')).body.code).toBe('plan_required');
    await tickAt('2030-01-03T11:00:01Z');
    // the routes refuse a free plan: the outcome is read from the service's read model
    const read = t.app.get(AgentsStore).read;
    await eventually(() => read.schedule(agent.org_id, id)?.recent.length === 3, { what: 'the 11:00 slot recorded' });
    expect((await again.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    expect((await outcomes(a, id, 3)).recent[0]).toMatchObject({ outcome: 'skipped_plan', reason: 'plan_required' });
  });

  /** the first `message.user` of a schedule's session, and the session */
  async function firing(a: Api, sid: string) {
    await eventually(async () => (await a.get(`/v1/agents/sessions/${sid}`)).body.last_run?.status === 'completed', { what: `the run of session ${sid} completes` });
    const session = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    const message = (await a.get(`/v1/agents/sessions/${sid}/events?types=message.user`)).body.items[0].data.content;
    return { title: session.title as string, message: message as string };
  }

  it('DST, spring forward: a time in the skipped hour fires shifted by the gap (02:30 → 03:30), once, and the days after at 02:30 again', async () => {
    // Europe/Paris, 31 March 2030: 02:00 CET becomes 03:00 CEST, so 02:30 does not exist that day
    clock.set(at('2030-03-30T12:00:00Z'));
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Early' })).body;
    const created = await a.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Nightly', cron: '30 2 * * *', timezone: 'Europe/Paris', message_template: '{{date}} {{time}} {{datetime}}' });
    expect(created.body.next_run_at).toBe('2030-03-31T01:30:00.000Z');
    const id = created.body.id;
    expect((await tickAt('2030-03-31T01:29:59Z')).filter((r) => r.schedule_id === id)).toEqual([]);
    await tickAt('2030-03-31T01:30:01Z');
    const fired = await outcomes(a, id, 1);
    expect(fired).toMatchObject({ fire_count: 1, last_outcome: 'started', next_run_at: '2030-04-01T00:30:00.000Z' });
    expect(fired.recent[0]).toMatchObject({ scheduled_for: '2030-03-31T01:30:00.000Z', outcome: 'started' });
    expect(await firing(a, fired.last_session_id)).toEqual({ title: 'Nightly · 2030-03-31 03:30', message: '2030-03-31 03:30 2030-03-31T03:30:00+02:00' });
    // nothing else that night; the next day at 02:30 CEST
    expect((await tickAt('2030-03-31T02:30:01Z')).filter((r) => r.schedule_id === id)).toEqual([]);
    await tickAt('2030-04-01T00:30:01Z');
    const next = await outcomes(a, id, 2);
    expect(next.recent.map((r: { scheduled_for: string; outcome: string }) => `${r.scheduled_for} ${r.outcome}`)).toEqual(['2030-04-01T00:30:00.000Z started', '2030-03-31T01:30:00.000Z started']);
    expect((await firing(a, next.last_session_id)).message).toBe('2030-04-01 02:30 2030-04-01T02:30:00+02:00');
  });

  it('DST, fall back: in the repeated hour a fixed-time pattern fires once (the first 02:30), an hourly one fires at both', async () => {
    // Europe/Paris, 27 October 2030: 03:00 CEST becomes 02:00 CET, so 02:30 happens twice (00:30 and 01:30 UTC)
    clock.set(at('2030-10-26T23:45:00Z'));
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Late' })).body;
    const make = async (name: string, cron: string) => {
      const r = await a.post('/v1/agents/schedules', { agent_id: agent.id, name, cron, timezone: 'Europe/Paris', message_template: '{{datetime}}' });
      expect(r.status).toBe(201);
      return r.body;
    };
    const fixed = await make('Fixed', '30 2 * * *');
    const hourly = await make('Hourly', '30 * * * *');
    expect([fixed.next_run_at, hourly.next_run_at]).toEqual(['2030-10-27T00:30:00.000Z', '2030-10-27T00:30:00.000Z']);
    // the first 02:30 (CEST): both fire
    await tickAt('2030-10-27T00:30:01Z');
    const fixedFired = await outcomes(a, fixed.id, 1);
    expect(fixedFired).toMatchObject({ fire_count: 1, next_run_at: '2030-10-28T01:30:00.000Z' });
    expect((await firing(a, fixedFired.last_session_id)).message).toBe('2030-10-27T02:30:00+02:00');
    const first = await outcomes(a, hourly.id, 1);
    expect((await firing(a, first.last_session_id)).message).toBe('2030-10-27T02:30:00+02:00');
    // the second 02:30 (CET): only the hourly pattern fires
    const second = await tickAt('2030-10-27T01:30:01Z');
    expect(second.filter((r) => r.schedule_id === fixed.id)).toEqual([]);
    const again = await outcomes(a, hourly.id, 2);
    expect(again.recent[0]).toMatchObject({ scheduled_for: '2030-10-27T01:30:00.000Z', outcome: 'started' });
    expect(await firing(a, again.last_session_id)).toEqual({ title: 'Hourly · 2030-10-27 02:30', message: '2030-10-27T02:30:00+01:00' });
    expect(again).toMatchObject({ fire_count: 2, next_run_at: '2030-10-27T02:30:00.000Z' });
    const fixedAfter = await scheduleOf(a, fixed.id);
    expect(fixedAfter).toMatchObject({ fire_count: 1, next_run_at: '2030-10-28T01:30:00.000Z' });
    expect(fixedAfter.recent).toHaveLength(1);
  });
});
