import { eventually } from '@strata/domain/testing/eventually';
import { loadConfig } from '@strata/platform/config/strata-config';
import { request, signUp, uniqueEmail } from '../support/http';
import { answerValidator } from '../support/openapi-answers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * What the OpenAPI document promises about answers holds for the answers themselves: each call
 * below is made over HTTP and its body validated against the 2xx schema its operation
 * declares, with every object closed (`additionalProperties: false`), so a field the service
 * sends and the document omits fails as surely as a documented field that is missing.
 */
describe('the OpenAPI document describes what the account and job routes answer', () => {
  let t: TestApp;
  let doc: any;
  let validate: (method: string, path: string, status: number, body: unknown) => void;
  const checked = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp({ llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm });
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
    const check = answerValidator(doc);
    validate = (method, path, status, body) => {
      check(method, path, status, body);
      checked.add(`${method} ${path}`);
    };
  });
  afterAll(async () => t?.close());

  async function call(method: string, path: string, template: string, opts: { token?: string; body?: unknown } = {}, status = 200) {
    const r = await request(t.url, method, path, opts);
    expect(r.status).toBe(status);
    validate(method, template, status, r.body);
    return r.body;
  }

  it('sign-up, sign-in, refresh, account, organizations, members, keys, plans, subscription, usage and jobs', async () => {
    const email = uniqueEmail();
    const owner = await call('POST', '/v1/auth/signup', '/v1/auth/signup', { body: { email, password: 'pw-responses-1', name: 'Owner' } }, 201);
    const login = await call('POST', '/v1/auth/login', '/v1/auth/login', { body: { email, password: 'pw-responses-1' } });
    const refreshed = await call('POST', '/v1/auth/refresh', '/v1/auth/refresh', { body: { refresh_token: login.refresh_token } });
    const token = refreshed.access_token as string;
    await call('GET', '/v1/account', '/v1/account', { token });

    const org = owner.organization.id as string;
    await call('POST', '/v1/orgs', '/v1/orgs', { token, body: { name: 'Second' } }, 201);
    await call('GET', '/v1/orgs', '/v1/orgs', { token });
    const other = await signUp(t.url);
    await call('POST', `/v1/orgs/${org}/members`, '/v1/orgs/{org_id}/members', { token, body: { email: other.email, role: 'member' } }, 201);
    await call('POST', `/v1/orgs/${org}/members`, '/v1/orgs/{org_id}/members', { token, body: { email: other.email, role: 'admin' } }, 200);
    await call('GET', `/v1/orgs/${org}/members`, '/v1/orgs/{org_id}/members', { token });
    await call('DELETE', `/v1/orgs/${org}/members/${other.user_id}`, '/v1/orgs/{org_id}/members/{user_id}', { token });

    const key = await call('POST', '/v1/api-keys', '/v1/api-keys', { token, body: { name: 'described', scopes: ['read'], expires_in_days: 30 } }, 201);
    const rotated = await call('POST', `/v1/api-keys/${key.id}/rotate`, '/v1/api-keys/{id}/rotate', { token, body: {} }, 201);
    // the new key in use, so the activity holds a request beside the lifecycle events
    expect((await request(t.url, 'GET', '/v1/usage', { token: rotated.key })).status).toBe(200);
    await call('GET', '/v1/api-keys', '/v1/api-keys', { token });
    await call('GET', `/v1/api-keys/${rotated.id}/activity`, '/v1/api-keys/{id}/activity', { token });
    await call('GET', `/v1/api-keys/${key.id}/activity`, '/v1/api-keys/{id}/activity', { token });
    await call('DELETE', `/v1/api-keys/${rotated.id}`, '/v1/api-keys/{id}', { token });

    await call('GET', '/v1/billing/plans', '/v1/billing/plans');
    await call('GET', '/v1/billing/subscription', '/v1/billing/subscription', { token });
    await call('POST', '/v1/billing/subscribe', '/v1/billing/subscribe', { token, body: { plan: 'pro' } });
    await call('GET', '/v1/usage', '/v1/usage', { token });

    // a job's record, as it is polled while it runs and once it finished
    const k = await request(t.url, 'POST', '/v1/api-keys', { token, body: { name: 'jobs', scopes: ['read', 'write'] } });
    const queued = await request(t.url, 'POST', '/ingest/document', { token: k.body.key, body: { content: 'Described\n\nAda Lovelace wrote notes on the Analytical Engine.' } });
    expect(queued.status).toBe(202);
    await call('GET', `/jobs/${queued.body.job_id}`, '/jobs/{id}', { token: k.body.key });
    await eventually(async () => ['completed', 'failed'].includes((await request(t.url, 'GET', `/jobs/${queued.body.job_id}`, { token: k.body.key })).body.status), { what: 'the job ended' });
    await call('GET', `/jobs/${queued.body.job_id}`, '/jobs/{id}', { token: k.body.key });
    await call('GET', '/jobs', '/jobs', { token: k.body.key });

    // every account operation of the document was exercised
    const accountOps = Object.entries<any>(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => /^(GET|POST|PATCH|PUT|DELETE) \/v1\/(auth|account|orgs|api-keys|billing|usage)\b/.test(op));
    expect(accountOps.filter((op) => !checked.has(op))).toEqual([]);
  });
});
