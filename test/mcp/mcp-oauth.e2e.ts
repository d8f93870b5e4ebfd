import { secretHaystacks } from './support/secret-haystacks';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, login, signUp } from '../support/http';
import { OAuthServer, startOAuthServer } from './support/oauth-server';
import { ToolServer, startToolServer } from './support/tool-server';
import { at } from '@strata/domain/testing/fixed-time';

/** The user's browser: follows the authorization server's redirect to Strata's callback. */
async function approveInBrowser(authorizationUrl: string): Promise<Response> {
  const atServer = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atServer.status).toBe(302);
  return fetch(atServer.headers.get('location')!, { redirect: 'manual' });
}

describe('MCP connections with OAuth 2.1 (authorization code + PKCE) against a local authorization server', () => {
  let t: TestApp;
  let clock: FixedClock;
  let as: OAuthServer;
  let tools: ToolServer;
  let o: ReturnType<typeof api>;
  let user: Awaited<ReturnType<typeof signUp>>;
  const responses: string[] = [];

  beforeAll(async () => {
    clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    t = await startTestApp({ clock, captureLogs: true, env: { STRATA_MCP_ALLOW_PRIVATE: 'true' } });
    user = await signUp(t.url);
    o = api(t.url, user.access_token);
    // more live connections than the Free plan's two (REFERENCE §17)
    expect((await o.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    as = await startOAuthServer();
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }], oauth: as });
  });
  afterAll(async () => {
    await tools?.close();
    await as?.close();
    await t?.close();
  });

  let id: string;

  it('discovers, registers dynamically, and waits for the authorization: 201 pending_auth', async () => {
    const res = await o.post('/v1/mcp/connections', { name: 'OAuth tools', url: tools.url, auth: { type: 'oauth' } });
    responses.push(res.text);
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body).toMatchObject({ status: 'pending_auth', tools_count: 0, auth: { type: 'oauth', configured: false, oauth: { authorization_server: as.issuer, registration: 'dynamic', scopes: ['tools'], token_expires_at: null, has_refresh_token: false } } });
    expect(res.body.authorization.expires_at).toBe('2030-01-01T00:10:00.000Z');
    const u = new URL(res.body.authorization.url);
    expect(u.origin + u.pathname).toBe(`${as.issuer}/authorize`);
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
    expect(u.searchParams.get('resource')).toBe(tools.url);
    expect(u.searchParams.get('redirect_uri')).toBe(`${t.url}/v1/mcp/oauth/callback`);
    expect(Buffer.from(u.searchParams.get('state')!, 'base64url')).toHaveLength(32);
    expect(as.registered.has(u.searchParams.get('client_id')!)).toBe(true);
    // the pending authorization is shown on GET too, and syncing waits for it
    expect((await o.get(`/v1/mcp/connections/${id}`)).body.authorization.url).toBe(res.body.authorization.url);
    expect((await o.post(`/v1/mcp/connections/${id}/sync`, {})).body.code).toBe('invalid_transition');
  });

  it('the callback exchanges the code (PKCE, resource) and makes the connection active with its baseline', async () => {
    const pending = (await o.get(`/v1/mcp/connections/${id}`)).body;
    const cb = await approveInBrowser(pending.authorization.url);
    expect(cb.status).toBe(200);
    expect(await cb.text()).toContain('OAuth tools is connected.');
    expect(as.grants).toEqual(['authorization_code']);
    const c = (await o.get(`/v1/mcp/connections/${id}`)).body;
    responses.push(JSON.stringify(c));
    expect(c).toMatchObject({ status: 'active', authorization: null, tools_count: 1, protocol_version: '2025-11-25', auth: { type: 'oauth', configured: true, oauth: { has_refresh_token: true, token_expires_at: '2030-01-01T01:00:00.000Z' } } });
    // the state was used once
    const again = await fetch(new URL(`/v1/mcp/oauth/callback?state=${new URL(pending.authorization.url).searchParams.get('state')}&code=x`, t.url));
    expect(again.status).toBe(400);
    expect(((await again.json()) as { code: string }).code).toBe('invalid_field');
    expect((await fetch(new URL('/v1/mcp/oauth/callback?state=nope&code=x', t.url))).status).toBe(400);
  });

  it('refreshes the access token within 60 s of its end, and after a 401', async () => {
    clock.advance(3600 - 30);
    // the user's own access token has expired meanwhile
    o = api(t.url, (await login(t.url, user.email, user.password)).access_token);
    const s = await o.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(s.status).toBe(200);
    expect(as.grants).toEqual(['authorization_code', 'refresh_token']);
    expect((await o.get(`/v1/mcp/connections/${id}`)).body.auth.oauth.token_expires_at).toBe('2030-01-01T01:59:30.000Z');
    // a 401 gets one refresh, then the sync goes on
    as.expireAccessTokens();
    const after401 = await o.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(after401.status).toBe(200);
    expect(as.grants).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
  });

  it('a refused authorization leaves it pending_auth with access_denied; reauthorize starts a new one', async () => {
    const re = await o.post(`/v1/mcp/connections/${id}/reauthorize`, { return_url: '/settings/mcp' });
    expect(re.status).toBe(200);
    // a usable token remains: the connection stays active while the new authorization waits
    expect(re.body).toMatchObject({ status: 'active' });
    as.denyNext = true;
    const denied = await approveInBrowser(re.body.authorization.url);
    expect(denied.status).toBe(302);
    const back = new URL(denied.headers.get('location')!);
    expect(back.pathname).toBe('/settings/mcp');
    expect(back.searchParams.get('mcp_connection')).toBe(id);
    const c = (await o.get(`/v1/mcp/connections/${id}`)).body;
    expect(c.last_error).toMatchObject({ code: 'access_denied' });
    expect(c.authorization).toBeNull();
  });

  it('a pre-registered client; DELETE revokes the tokens at the revocation endpoint', async () => {
    const res = await o.post('/v1/mcp/connections', { name: 'Prereg', url: tools.url, auth: { type: 'oauth', client_id: 'preregistered-client', scopes: ['tools'] } });
    expect(res.status).toBe(201);
    expect(res.body.auth.oauth).toMatchObject({ client_id: 'preregistered-client', registration: 'preregistered' });
    expect((await approveInBrowser(res.body.authorization.url)).status).toBe(200);
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body.status).toBe('active');
    const revokedBefore = as.revoked.length;
    expect((await o.delete(`/v1/mcp/connections/${res.body.id}`)).status).toBe(200);
    expect(as.revoked.length).toBe(revokedBefore + 2);
  });

  it('a server without protected resource metadata: 422 mcp_check_failed', async () => {
    const plain = await startToolServer({ tools: [{ name: 'x', description: 'x' }], token: 'static-token-static-token' });
    try {
      const res = await o.post('/v1/mcp/connections', { name: 'No OAuth', url: plain.url, auth: { type: 'oauth' } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'mcp_check_failed', checks: [{ name: 'auth_discovery', status: 'fail' }] });
    } finally {
      await plain.close();
    }
  });

  it('serves its client metadata document; no token in responses, logs, the export or any file of the data dir (the event log included)', async () => {
    const doc = await fetch(new URL('/v1/mcp/oauth/client-metadata.json', t.url));
    expect(doc.status).toBe(200);
    expect(await doc.json()).toMatchObject({ client_id: `${t.url}/v1/mcp/oauth/client-metadata.json`, redirect_uris: [`${t.url}/v1/mcp/oauth/callback`], token_endpoint_auth_method: 'none' });
    const haystacks = await secretHaystacks(o, t, responses);
    // the server issued tokens (access and refresh), all of the shapes below
    expect(as.grants.length).toBeGreaterThan(0);
    for (const [name, text] of haystacks) {
      const found = text.match(/\b(at|rt)-[0-9a-f]{24}\b/);
      if (found) throw new Error(`${found[0]} found in ${name}`);
    }
  });
});
