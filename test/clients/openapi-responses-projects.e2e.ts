import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { BriefWorld, seedBriefWorld } from '../briefs/brief-world';
import { startWebhookReceiver } from '../briefs/briefing-peers';
import { Api, api, createApiKey, request, signUp } from '../support/http';
import { AnswerRecorder } from '../support/openapi-answers';
import { TestApp, startTestApp } from '../support/test-app';

const KEY = 'sk-typed-briefs-7d2e';

/** The operations this file holds to their documented answers: every one must be called below. */
const COVERED = [/^\w+ \/projects\/\{project_uid\}\/brief/, /^\w+ \/v1\/projects\//, /^\w+ \/v1\/briefings\//];

/**
 * The brief, Project grant and briefing schedule routes (REFERENCE §12) answer what the
 * OpenAPI document says, checked as for the graph routes (test/support/openapi-answers.ts):
 * each call is made over HTTP on a seeded Project, with a scripted model on loopback for the
 * LLM brief and a webhook receiver for deliveries, and its body validated against the declared
 * 2xx schema with every object closed.
 */
describe('the OpenAPI document describes what the brief, Project grant and briefing schedule routes answer', () => {
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let doc: any;
  const answers = new AnswerRecorder();
  const { checked, failures } = answers;

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: KEY });
    hook = await startWebhookReceiver();
    t = await startTestApp({
      clock,
      accessTokenTtl: 7 * 86400,
      briefings: { webhookAllowPrivate: true, smtpUrl: null, smtpFrom: null },
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' },
    });
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
    answers.use(doc);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await llm?.close();
    await hook?.close();
  });

  /** One call, recorded: a wrong status or an undocumented answer is collected, so one run names them all. */
  async function call(c: Api, method: string, url: string, template: string, body?: unknown, status = 200, note = '') {
    const r = await (method === 'GET' ? c.get(url) : method === 'DELETE' ? c.delete(url) : method === 'PATCH' ? c.patch(url, body) : c.post(url, body));
    return answers.record(method, url, template, r, status, note);
  }

  const finished = (w: Api, id: string) =>
    eventually(
      async () => {
        const r = await w.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 25 },
    );

  it('brief state, regeneration, items, history, grants and schedules', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const w = api(t.url, (await createApiKey(t.url, owner.access_token)).key);
    const world: BriefWorld = await seedBriefWorld(w);
    const B = `/projects/${world.project}/brief`;
    const T = '/projects/{project_uid}/brief';

    await call(w, 'GET', B, T, undefined, 200, 'none');
    const v1 = await call(w, 'POST', `${B}/regenerate`, `${T}/regenerate`, { mode: 'structural' }, 201, 'structural');
    await call(w, 'POST', `${B}/regenerate`, `${T}/regenerate`, { mode: 'structural' }, 200, 'reused');
    const item = v1.version.items.find((i: any) => i.kind === 'finding');
    await call(w, 'PATCH', `${B}/items/${item.id}`, `${T}/items/{item_id}`, { action: 'pin' }, 200, 'pin');
    await call(w, 'PATCH', `${B}/items/${item.id}`, `${T}/items/{item_id}`, { action: 'pin' }, 200, 'no-op');
    await call(w, 'PATCH', `${B}/items/${item.id}`, `${T}/items/{item_id}`, { action: 'correct', text: 'The heat shield ablates.', citations: [{ chunk_uid: world.chunkA, quote: 'The heat shield ablates at reentry' }], reason: 'shorter' }, 200, 'correct');

    // an LLM version: the state shows the job while the model is held
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const asked = llm.requests.length;
    llm.enqueue({
      type: 'json',
      value: { summary: 'Ablation is established.', items: [{ kind: 'finding', text: 'The shield ablates on reentry.', basis_uids: [world.ablates], citations: [{ chunk_uid: world.chunkA, quote: 'The heat shield ablates at reentry' }], confidence: 0.8 }] },
      usage: { input: 500, output: 120 },
      hold,
    });
    const queued = await call(w, 'POST', `${B}/regenerate`, `${T}/regenerate`, { mode: 'llm' }, 202, 'llm');
    await eventually(async () => (llm.requests.length > asked ? true : null), { what: 'the model was asked', timeoutMs: 10_000, everyMs: 25 });
    await call(w, 'GET', B, T, undefined, 200, 'regenerating');
    release();
    await finished(w, queued.job_id);
    await call(w, 'GET', B, T, undefined, 200, 'llm');
    await call(w, 'GET', `${B}/history`, `${T}/history`);
    await call(w, 'GET', `${B}/history/1`, `${T}/history/{version}`);

    // Project grants
    const member = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: member.email, role: 'member' })).status).toBe(201);
    const PG = `/v1/projects/${world.project}/grants`;
    await call(o, 'POST', PG, '/v1/projects/{project_uid}/grants', { principal_uid: `user:${member.user_id}`, role: 'viewer' }, 201, 'new');
    await call(o, 'POST', PG, '/v1/projects/{project_uid}/grants', { principal_uid: `user:${member.user_id}`, role: 'editor' }, 200, 'replaced');
    await call(o, 'GET', PG, '/v1/projects/{project_uid}/grants');
    await call(o, 'DELETE', `${PG}/user:${member.user_id}`, '/v1/projects/{project_uid}/grants/{principal_uid}');

    // briefing schedules: in-app and webhook, a run sent now and delivered
    const S = '/v1/briefings/schedules';
    const inApp = await call(o, 'POST', S, S, { project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 3600, mode: 'structural' }, 201, 'in_app');
    await call(o, 'POST', S, S, { project_uid: world.project, channel: 'in_app', recipient: `user:${owner.user_id}`, interval_secs: 7200, mode: 'structural' }, 200, 'replaced');
    const hooked = await call(o, 'POST', S, S, { project_uid: world.project, channel: 'webhook', recipient: `${hook.url}/briefs`, cron: '0 9 * * MON', timezone: 'Europe/Paris', mode: 'structural' }, 201, 'webhook');
    await call(o, 'PATCH', `${S}/${hooked.id}`, `${S}/{id}`, { paused: true });
    await call(o, 'PATCH', `${S}/${hooked.id}`, `${S}/{id}`, { paused: false, rotate_secret: true }, 200, 'rotated');
    const sent = await call(o, 'POST', `${S}/${inApp.id}/send-now`, `${S}/{id}/send-now`, {}, 202);
    await eventually(async () => ((await o.get(`${S}/${inApp.id}`)).body.runs ?? []).some((r: any) => r.id === sent.run.id && r.status === 'delivered'), { what: 'the run delivered' });
    await call(o, 'GET', `${S}/${inApp.id}`, `${S}/{id}`);
    await call(w, 'GET', S, S);
    await call(o, 'DELETE', `${S}/${hooked.id}`, `${S}/{id}`);

    expect(failures).toEqual([]);
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => COVERED.some((re) => re.test(op)));
    expect(ops.filter((op) => !checked.has(op))).toEqual([]);
  });
});
