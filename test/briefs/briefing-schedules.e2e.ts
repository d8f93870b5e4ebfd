import { FixedClock } from '@strata/domain/time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { eventually } from '@strata/domain/testing/eventually';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { BriefingTicker } from '../../apps/api/src/briefs/schedules/briefing-ticker.service';
import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { expectError, mk } from '../retrieval/retrieval-fixture';
import { BriefWorld, seedBriefWorld } from './brief-world';
import { startSmtpServer, startWebhookReceiver, verifyStandardWebhook } from './briefing-peers';
import { at } from '@strata/domain/testing/fixed-time';

const S = '/v1/briefings/schedules';

/** Quoted-printable and encoded words undone, enough to read a message's text. */
function readable(raw: string): string {
  const qp = (s: string) => s.replace(/(?:=[0-9A-F]{2})+/g, (m) => Buffer.from(m.replace(/=/g, ''), 'hex').toString('utf8'));
  const words = raw.replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_m, w: string) => qp(w.replace(/_/g, ' ')));
  return qp(words.replace(/=\r?\n/g, ''));
}

describe('briefing schedules (REFERENCE §12.7) over HTTP, on a fixed clock', () => {
  const clock = new FixedClock(at('2026-03-28T12:00:00Z'));
  let t: TestApp;
  let o: Api;
  let w: Api;
  let owner: Awaited<ReturnType<typeof signUp>>;
  let world: BriefWorld;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let ticker: BriefingTicker;

  const run = async (scheduleId: string, runId: string) => ((await o.get(`${S}/${scheduleId}`)).body.runs as any[]).find((r) => r.id === runId);
  const settled = (scheduleId: string, runId: string, status: string) =>
    eventually(async () => {
      const r = await run(scheduleId, runId);
      return r && r.status === status ? r : null;
    }, { what: `run ${runId} ${status}` });

  beforeAll(async () => {
    hook = await startWebhookReceiver();
    smtp = await startSmtpServer();
    t = await startTestApp({ clock, accessTokenTtl: 7 * 86400, briefings: { webhookAllowPrivate: true, smtpUrl: smtp.url, smtpFrom: 'briefs@strata.test' } });
    ticker = t.app.get(BriefingTicker);
    owner = await signUp(t.url);
    o = api(t.url, owner.access_token);
    w = api(t.url, (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key);
    world = await seedBriefWorld(w);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await hook.close();
    await smtp.close();
  });

  it('refuses bad input with its code, and writes nothing', async () => {
    const base = { project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 3600 };
    expectError(await o.post(S, { ...base, project_uid: undefined }), 400, 'missing_field', 'project_uid');
    expectError(await o.post(S, { ...base, channel: 'sms' }), 400, 'invalid_field', 'channel');
    expectError(await o.post(S, { ...base, recipient: undefined }), 400, 'missing_field', 'recipient');
    expectError(await o.post(S, { ...base, interval_secs: undefined }), 400, 'missing_field', 'cron');
    expectError(await o.post(S, { ...base, cron: '0 9 * * *' }), 400, 'invalid_field', 'cron');
    expectError(await o.post(S, { ...base, interval_secs: 60 }), 400, 'invalid_field', 'interval_secs');
    expectError(await o.post(S, { ...base, interval_secs: undefined, cron: '*/5 * * * *' }), 400, 'invalid_field', 'cron');
    expectError(await o.post(S, { ...base, interval_secs: undefined, cron: '0 9 * *' }), 400, 'invalid_field', 'cron');
    // croner's extensions are not the cron of §12.7
    for (const cron of ['0 9 L * *', '0 9 ? * MON', '0 9 * * MON#2', '0 9 * * 5L', '0 9 15W * *'])
      expectError(await o.post(S, { ...base, interval_secs: undefined, cron }), 400, 'invalid_field', 'cron');
    expectError(await o.post(S, { ...base, timezone: 'Mars/Olympus' }), 400, 'invalid_field', 'timezone');
    // a blank time zone is no IANA name: it is not read as the UTC default
    expectError(await o.post(S, { ...base, timezone: '' }), 400, 'invalid_field', 'timezone');
    expectError(await o.post(S, { ...base, timezone: '  ' }), 400, 'invalid_field', 'timezone');
    expectError(await o.post(S, { ...base, mode: 'magic' }), 400, 'invalid_field', 'mode');
    expectError(await o.post(S, { ...base, only_on_change: 'yes' }), 400, 'invalid_field', 'only_on_change');
    expectError(await o.post(S, { ...base, recipient: 'bob' }), 400, 'invalid_field', 'recipient');
    expectError(await o.post(S, { ...base, channel: 'email', recipient: 'not-an-address' }), 400, 'invalid_field', 'recipient');
    expectError(await o.post(S, { ...base, channel: 'webhook', recipient: 'ftp://hooks.example.com/x' }), 400, 'invalid_field', 'recipient');
    expectError(await o.post(S, { ...base, channel: 'webhook', recipient: 'https://hooks.example.com/' + 'a'.repeat(2048) }), 400, 'invalid_field', 'recipient');
    expectError(await o.post(S, { ...base, recipient: 'user:nobody-here' }), 404, 'not_found', 'recipient');
    expectError(await o.post(S, { ...base, project_uid: 'bad uid!' }), 400, 'invalid_uid', 'project_uid');
    expectError(await o.post(S, { ...base, project_uid: 'no-such-project' }), 404, 'not_found', 'project_uid');
    expectError(await o.post(S, { ...base, project_uid: world.docA }), 400, 'wrong_node_type', 'project_uid');
    expectError(await w.post(S, base), 403, 'api_key_not_allowed');
    expectError(await o.get(`${S}/no-such-schedule`), 404, 'not_found');
    expectError(await o.patch(`${S}/no-such-schedule`, { paused: true }), 404, 'not_found');
    expectError(await o.post(`${S}/no-such-schedule/send-now`, {}), 404, 'not_found');
    expectError(await o.delete(`${S}/no-such-schedule`), 404, 'not_found');
    expectError(await o.get(`${S}?channel=fax`), 400, 'invalid_field', 'channel');
    expectError(await o.get(`${S}?project_uid=bad%20uid`), 400, 'invalid_uid', 'project_uid');
    expect((await o.get(S)).body).toEqual({ items: [], has_more: false, limit: 50, offset: 0 });
  });

  it('fires a cron schedule in its time zone across the spring-forward gap, as an in-app run', async () => {
    const created = await o.post(S, { project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, cron: '30 2 * * *', timezone: 'Europe/Paris' });
    expect(created.status).toBe(201);
    const s = created.body;
    expect(s).toMatchObject({
      project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, cron: '30 2 * * *', interval_secs: null, timezone: 'Europe/Paris', mode: 'auto',
      only_on_change: true, status: 'active', paused_reason: null, consecutive_failures: 0, secret_hint: null, created_by: `user:${owner.user_id}`,
      created_at: '2026-03-28T12:00:00.000Z',
    });
    expect(s).not.toHaveProperty('signing_secret');
    // 02:30 does not exist in Paris on 2026-03-29: the first minute after the gap is 03:00 CEST
    expect(s.next_run_at).toBe('2026-03-29T01:00:00.000Z');
    clock.set(at('2026-03-29T01:00:30Z'));
    await ticker.tick();
    const fired = await eventually(async () => {
      const g = (await o.get(`${S}/${s.id}`)).body;
      return g.runs.length === 1 && g.runs[0].status === 'delivered' ? g : null;
    }, { what: 'the cadence run delivered' });
    expect(fired.next_run_at).toBe('2026-03-30T00:30:00.000Z');
    expect(fired.runs[0]).toMatchObject({ trigger: 'cadence', scheduled_for: '2026-03-29T01:00:00.000Z', brief_version: 1, reused: false, attempts: 1, skip_reason: null, error: null });
    // the brief version the run made is the Project's (trigger schedule)
    expect((await w.get(`/projects/${world.project}/brief`)).body.brief).toMatchObject({ version: 1, trigger: 'schedule', requested_by: 'system' });

    // the next fire with nothing changed is skipped (only_on_change), reusing the version
    clock.set(at('2026-03-30T00:30:10Z'));
    await ticker.tick();
    await eventually(async () => (await o.get(`${S}/${s.id}`)).body.runs.length === 2 && (await o.get(`${S}/${s.id}`)).body.runs[0].status === 'skipped', { what: 'second run skipped' });
    expect((await o.get(`${S}/${s.id}`)).body.runs[0]).toMatchObject({ trigger: 'cadence', status: 'skipped', skip_reason: 'no_material_change', brief_version: 1, reused: true });
    expect((await o.patch(`${S}/${s.id}`, { paused: true })).body).toMatchObject({ status: 'paused', paused_reason: 'requested', next_run_at: null });
  });

  it('replaces by key, keeps the secret out of every later answer, and refuses immutable fields', async () => {
    const body = { project_uid: world.project, channel: 'webhook', recipient: hook.url, interval_secs: 86400, paused: true };
    const c = await o.post(S, body);
    expect(c.status).toBe(201);
    expect(c.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(c.body.secret_hint).toBe(c.body.signing_secret.slice(-4));
    const r = await o.post(S, { ...body, only_on_change: false });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.body.id, only_on_change: false, secret_hint: c.body.secret_hint, status: 'paused' });
    expect(r.body).not.toHaveProperty('signing_secret');
    const got = await o.get(`${S}/${c.body.id}`);
    expect(got.text).not.toContain(c.body.signing_secret);
    expect(got.body.runs).toEqual([]);
    expectError(await o.patch(`${S}/${c.body.id}`, { recipient: 'https://elsewhere.example.com/' }), 422, 'immutable_field', 'recipient');
    expectError(await o.patch(`${S}/${c.body.id}`, { channel: 'email' }), 422, 'immutable_field', 'channel');
    expectError(await o.patch(`${S}/${c.body.id}`, { project_uid: world.other }), 422, 'immutable_field', 'project_uid');
    expectError(await o.patch(`${S}/${c.body.id}`, { cron: '0 9 * * *', interval_secs: 3600 }), 400, 'invalid_field', 'cron');
    expectError(await o.patch(`${S}/${c.body.id}`, { interval_secs: 10 }), 400, 'invalid_field', 'interval_secs');
    expectError(await o.patch(`${S}/${c.body.id}`, { timezone: '' }), 400, 'invalid_field', 'timezone');
    expectError(await o.patch(`${S}/${c.body.id}`, { cron: '0 9 * * FRI#1' }), 400, 'invalid_field', 'cron');
    expect((await o.patch(`${S}/${c.body.id}`, { cron: '0 9,18 1-15/2 JAN-MAR,DEC mon-fri' })).status).toBe(200);
    // the secret is in the secret store, never in the log
    const events = JSON.stringify(await readLog(t));
    expect(events).not.toContain(c.body.signing_secret);
    expect(events).not.toContain(c.body.signing_secret.slice(6));
  });

  it('appends nothing for a PATCH that changes nothing', async () => {
    const s = (await o.post(S, { project_uid: world.other, channel: 'in_app', recipient: `user:${owner.user_id}`, cron: '0 9 * * MON', timezone: 'Europe/Paris', paused: true })).body;
    const count = async () => JSON.stringify(await readLog(t)).split(s.id).length;
    const before = await count();
    clock.advance(60);
    for (const body of [{}, { paused: true }, { cron: '0 9 * * MON' }, { timezone: 'Europe/Paris', mode: 'auto', only_on_change: true }]) {
      const r = await o.patch(`${S}/${s.id}`, body);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(s);
    }
    expect(await count()).toBe(before);
    const changed = await o.patch(`${S}/${s.id}`, { only_on_change: false });
    expect(changed.body).toMatchObject({ only_on_change: false, updated_at: new Date(clock.now() * 1000).toISOString() });
    expect(await count()).toBeGreaterThan(before);
    expect((await o.delete(`${S}/${s.id}`)).status).toBe(200);
  });

  it('sends now to a loopback webhook, signed; retries after a minute on the fixed clock; 409 while the run is active', async () => {
    const s = (await o.get(`${S}?channel=webhook`)).body.items[0];
    const secret = (await o.patch(`${S}/${s.id}`, { rotate_secret: true })).body.signing_secret;
    hook.received.length = 0;
    hook.answers.push(500);
    const sent = await o.post(`${S}/${s.id}/send-now`, {});
    expect(sent.status).toBe(202);
    expect(sent.body.run).toMatchObject({ schedule_id: s.id, trigger: 'send_now', status: 'pending', attempts: 0 });
    const runId = sent.body.run.id;
    const waiting = await eventually(async () => {
      const r = await run(s.id, runId);
      return r && r.attempts === 1 ? r : null;
    }, { what: 'first attempt' });
    expect(waiting).toMatchObject({ status: 'running', http_status: 500, error: { code: 'http_error' } });
    const again = await o.post(`${S}/${s.id}/send-now`, {});
    expectError(again, 409, 'run_active');
    expect(again.body.run_id).toBe(runId);

    // nothing is due until a minute passed
    await ticker.tick();
    expect(hook.received).toHaveLength(1);
    clock.advance(60);
    await ticker.tick();
    const done = await settled(s.id, runId, 'delivered');
    expect(done).toMatchObject({ attempts: 2, http_status: 200, error: null, brief_version: 1 });
    expect(hook.received).toHaveLength(2);
    for (const h of hook.received) {
      expect(h.headers['webhook-id']).toBe(runId);
      expect(verifyStandardWebhook(secret, h)).toBe(true);
      expect(verifyStandardWebhook('whsec_' + Buffer.alloc(32, 1).toString('base64'), h)).toBe(false);
    }
    expect(Number(hook.received[1]!.headers['webhook-timestamp'])).toBe(Number(hook.received[0]!.headers['webhook-timestamp']) + 60);
    const payload = JSON.parse(hook.received[1]!.body);
    expect(payload).toMatchObject({ type: 'brief.delivered', run_id: runId, schedule_id: s.id, project_uid: world.project, version: 1 });
    expect(payload.brief.items.length).toBeGreaterThan(0);
    expect(payload.brief).not.toHaveProperty('produced_item_ids');
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const s = (await o.get(`${S}?channel=webhook`)).body.items[0];
    const before = (await o.patch(`${S}/${s.id}`, { rotate_secret: true })).body.signing_secret;
    const after = (await o.patch(`${S}/${s.id}`, { rotate_secret: true })).body.signing_secret;
    hook.received.length = 0;
    const r1 = (await o.post(`${S}/${s.id}/send-now`, {})).body.run.id;
    await settled(s.id, r1, 'delivered');
    expect(String(hook.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandardWebhook(before, hook.received[0]!)).toBe(true);
    expect(verifyStandardWebhook(after, hook.received[0]!)).toBe(true);
    clock.advance(24 * 3600 + 1);
    const r2 = (await o.post(`${S}/${s.id}/send-now`, {})).body.run.id;
    await settled(s.id, r2, 'delivered');
    expect(String(hook.received[1]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyStandardWebhook(after, hook.received[1]!)).toBe(true);
    expect(verifyStandardWebhook(before, hook.received[1]!)).toBe(false);
  });

  it('gives up after the 6 h retry: six attempts, then failed', async () => {
    const s = (await o.post(S, { project_uid: world.other, channel: 'webhook', recipient: hook.url + '?flaky', interval_secs: 86400, paused: true })).body;
    hook.received.length = 0;
    hook.answers.push(503, 503, 503, 503, 503, 503);
    const runId = (await o.post(`${S}/${s.id}/send-now`, {})).body.run.id;
    for (const [i, wait] of [60, 300, 1800, 7200, 21600].entries()) {
      await eventually(async () => (await run(s.id, runId))?.attempts === i + 1, { what: `attempt ${i + 1}` });
      // one second early: not due yet
      clock.advance(wait - 1);
      await ticker.tick();
      expect(hook.received).toHaveLength(i + 1);
      clock.advance(1);
      await ticker.tick();
    }
    expect(await settled(s.id, runId, 'failed')).toMatchObject({ attempts: 6, http_status: 503, error: { code: 'http_error' } });
    expect(hook.received).toHaveLength(6);
    expect((await o.get(`${S}/${s.id}`)).body).toMatchObject({ consecutive_failures: 1, status: 'paused', paused_reason: 'requested' });
    await o.delete(`${S}/${s.id}`);
  });

  it('a 410 fails the run at once and pauses the schedule (endpoint_gone)', async () => {
    const s = (await o.post(S, { project_uid: world.other, channel: 'webhook', recipient: hook.url, interval_secs: 86400 })).body;
    hook.answers.push(410);
    const runId = (await o.post(`${S}/${s.id}/send-now`, {})).body.run.id;
    const r = await settled(s.id, runId, 'failed');
    expect(r).toMatchObject({ attempts: 1, http_status: 410 });
    expect((await o.get(`${S}/${s.id}`)).body).toMatchObject({ status: 'paused', paused_reason: 'endpoint_gone', next_run_at: null, consecutive_failures: 1 });
    // resuming sets the next slot after now
    const resumed = (await o.patch(`${S}/${s.id}`, { paused: false })).body;
    expect(resumed).toMatchObject({ status: 'active', paused_reason: null, consecutive_failures: 0 });
    expect(Date.parse(resumed.next_run_at) / 1000).toBeGreaterThan(clock.now());
    expect((await o.delete(`${S}/${s.id}`)).body).toEqual({ id: s.id, deleted: true });
    expectError(await o.get(`${S}/${s.id}`), 404, 'not_found');
  });

  it('e-mails the brief through a real SMTP server, retrying a refusal a minute later', async () => {
    const c = await o.post(S, { project_uid: world.project, channel: 'email', recipient: 'Team@Example.COM', cron: '0 9 * * MON', paused: true });
    expect(c.status).toBe(201);
    expect(c.body.recipient).toBe('team@example.com');
    smtp.refuse.count = 1;
    const runId = (await o.post(`${S}/${c.body.id}/send-now`, {})).body.run.id;
    await eventually(async () => (await run(c.body.id, runId))?.attempts === 1, { what: 'first e-mail attempt' });
    expect(smtp.mails).toHaveLength(0);
    expect(await run(c.body.id, runId)).toMatchObject({ status: 'running', error: { code: 'smtp_error' } });
    clock.advance(60);
    await ticker.tick();
    expect(await settled(c.body.id, runId, 'delivered')).toMatchObject({ attempts: 2 });
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.to).toEqual(['team@example.com']);
    expect(mail.from).toBe('briefs@strata.test');
    const text = readable(mail.raw);
    expect(text).toContain('[Strata] Orion — brief v1');
    expect(text).toContain('The heat shield ablates at reentry');
    expect(text).toMatch(/text\/html/);
  });

  it('pauses a schedule after five failed runs in a row, and reports it as failing', async () => {
    const c = await o.post(S, { project_uid: world.other, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 3600, mode: 'llm' });
    expect(c.status).toBe(201);
    const s = c.body;
    for (let i = 1; i <= 5; i++) {
      clock.set(Date.parse(s.next_run_at) / 1000 + (i - 1) * 3600 + 1);
      await ticker.tick();
      await eventually(async () => {
        const g = (await o.get(`${S}/${s.id}`)).body;
        return g.runs.length === i && g.runs[0].status === 'failed';
      }, { what: `failed run ${i}`, timeoutMs: 3000 }).catch(async (e) => {
        throw new Error(e.message + JSON.stringify((await o.get(`${S}/${s.id}`)).body) + ' now ' + clock.now());
      });
    }
    const g = (await o.get(`${S}/${s.id}`)).body;
    expect(g).toMatchObject({ status: 'paused', paused_reason: 'failing', consecutive_failures: 5, next_run_at: null });
    expect(g.runs[0]).toMatchObject({ trigger: 'cadence', error: { code: 'llm_not_configured' } });
    const failing = t.app.get(BriefsReadModel).failingSchedules(owner.org_id);
    expect(failing.map((f) => f.schedule.id)).toEqual([s.id]);
    expect(failing[0]!.runs.map((r) => r.error?.code)).toEqual(['llm_not_configured', 'llm_not_configured', 'llm_not_configured']);
    // Knowledge Health shows it as schedule_failing from the third failed run in a row
    const kh = (await o.get('/v1/knowledge-health/exceptions?kind=schedule_failing')).body;
    expect(kh.items).toHaveLength(1);
    expect(kh.items[0]).toMatchObject({
      kind: 'schedule_failing',
      severity: 'medium',
      status: 'open',
      subject: { uid: s.id, type: 'schedule' },
      project_uids: [world.other],
      first_detected_at: g.runs[2].completed_at,
    });
    expect(kh.items[0].detail.last_errors.map((e: { code: string }) => e.code)).toEqual(['llm_not_configured', 'llm_not_configured', 'llm_not_configured']);
    // groups ignore the kind filter: the schedule's entry stands beside the other kinds'
    expect(kh.groups).toContainEqual({ kind: 'schedule_failing', severity: 'medium', open: 1, acknowledged: 0, resolved: 0 });
    // send-now runs even while paused
    const r = (await o.post(`${S}/${s.id}/send-now`, {})).body.run;
    expect(r).toMatchObject({ trigger: 'send_now', status: 'pending' });
    await settled(s.id, r.id, 'failed');
    await o.delete(`${S}/${s.id}`);
    // its exception is history now: resolved with the schedule
    const gone = (await o.get('/v1/knowledge-health/exceptions?kind=schedule_failing&status=resolved')).body.items;
    expect(gone).toMatchObject([{ subject: { uid: s.id, type: 'schedule' }, status: 'resolved', resolution: 'subject_removed', first_detected_at: g.runs[2].completed_at }]);
  });

  it('shows schedules to who may read their Project, and in-app schedules to their recipient', async () => {
    const member = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: member.email, role: 'member' })).status).toBeLessThan(300);
    const m = api(t.url, member.access_token, { org: owner.org_id });
    const inApp = (await o.post(S, { project_uid: world.project, channel: 'in_app', recipient: `user:${member.user_id}`, interval_secs: 86400, only_on_change: false })).body;
    const runId = (await o.post(`${S}/${inApp.id}/send-now`, {})).body.run.id;
    await settled(inApp.id, runId, 'delivered');
    const mine = (await m.get(`${S}/${inApp.id}`)).body;
    expect(mine.runs[0]).toMatchObject({ id: runId, status: 'delivered', brief_version: 1 });
    expect((await m.get(S)).body.items.map((x: any) => x.id)).toContain(inApp.id);
    // a recipient who left: the run fails and the schedule pauses
    expect((await o.delete(`/v1/orgs/${owner.org_id}/members/${member.user_id}`)).status).toBeLessThan(300);
    const left = (await o.post(`${S}/${inApp.id}/send-now`, {})).body.run.id;
    expect(await settled(inApp.id, left, 'failed')).toMatchObject({ error: { code: 'recipient_not_member' } });
    expect((await o.get(`${S}/${inApp.id}`)).body).toMatchObject({ status: 'paused', paused_reason: 'recipient_not_member', next_run_at: null });
    // a key scoped to the other Project sees none of this Project's schedules
    const scoped = api(t.url, (await createApiKey(t.url, owner.access_token, { project_uids: [world.other] })).key);
    expect((await scoped.get(S)).body.items.filter((x: any) => x.project_uid === world.project)).toEqual([]);
    expectError(await scoped.get(`${S}/${inApp.id}`), 404, 'not_found');
    // filters and paging
    const all = (await o.get(S)).body.items;
    expect((await o.get(`${S}?channel=in_app&limit=1`)).body).toMatchObject({ limit: 1, offset: 0, has_more: true });
    expect((await o.get(`${S}?project_uid=${world.project}`)).body.items.length).toBe(all.filter((x: any) => x.project_uid === world.project).length);
    expect((await o.get(`${S}?status=paused`)).body.items.every((x: any) => x.status === 'paused')).toBe(true);
    // a Project that is gone: the run is skipped
    const p = await mk(w, 'Project', 'Short-lived');
    const gone = (await o.post(S, { project_uid: p, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 86400, paused: true })).body;
    expect((await w.delete(`/node/${p}`)).status).toBeLessThan(300);
    const gr = (await o.post(`${S}/${gone.id}/send-now`, {})).body.run.id;
    expect(await settled(gone.id, gr, 'skipped')).toMatchObject({ skip_reason: 'project_unavailable', brief_version: null });
  });

  it('records a cadence fire during a pending run as skipped (run_active), and DELETE cancels the pending run', async () => {
    const runner = t.app.get(JobRunner);
    const queue = t.app.get<JobQueue>(JOB_QUEUE);
    // no runner: the send-now run stays pending
    await runner.stop();
    try {
      const s = (await o.post(S, { project_uid: world.other, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 3600, mode: 'structural' })).body;
      const pending = (await o.post(`${S}/${s.id}/send-now`, {})).body.run;
      clock.set(Date.parse(s.next_run_at) / 1000 + 1);
      await ticker.tick();
      const g = (await o.get(`${S}/${s.id}`)).body;
      expect(g.runs.map((r: any) => [r.trigger, r.status, r.skip_reason])).toEqual([
        ['cadence', 'skipped', 'run_active'],
        ['send_now', 'pending', null],
      ]);
      expect(Date.parse(g.next_run_at)).toBe(Date.parse(s.next_run_at) + 3600_000);
      expect((await o.delete(`${S}/${s.id}`)).body).toEqual({ id: s.id, deleted: true });
      const jobs = (await queue.list(owner.org_id, { kind: 'briefing_run' })).filter((j) => (j.input as { run_id: string }).run_id === pending.id);
      expect(jobs.map((j) => j.status)).toEqual(['cancelled']);
      expectError(await o.get(`${S}/${s.id}`), 404, 'not_found');
      expect((await o.get(S)).body.items.map((x: any) => x.id)).not.toContain(s.id);
    } finally {
      runner.start(2);
    }
  });

  it('documents the routes and bodies in OpenAPI', async () => {
    const doc = (await o.get('/openapi.json')).body;
    const ref = (path: string, method: string) => doc.components.schemas[(doc.paths[path][method].requestBody.content['application/json'].schema.$ref as string).split('/').pop()!];
    expect(Object.keys(doc.paths[S]).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${S}/{id}`]).sort()).toEqual(['delete', 'get', 'patch']);
    expect(doc.paths[`${S}/{id}/send-now`].post).toBeDefined();
    const put = ref(S, 'post');
    expect(put.required).toEqual(['project_uid', 'channel', 'recipient']);
    expect(put.properties.channel.enum).toEqual(['in_app', 'webhook', 'email']);
    expect(put.properties.interval_secs).toMatchObject({ type: 'integer', minimum: 3600, maximum: 2592000 });
    expect(ref(`${S}/{id}`, 'patch').properties.mode.enum).toEqual(['auto', 'structural', 'llm']);
  });
});

/** Every event of the data dir's log, as the service wrote them. */
async function readLog(t: TestApp): Promise<unknown[]> {
  return t.app.get<EventStore>(EVENT_STORE).readAll({ after: 0, limit: 100_000 });
}
