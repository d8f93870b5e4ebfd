import { secretHaystacks } from './support/secret-haystacks';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, login, signUp } from '../support/http';
import { OAuthServer, authorizeInBrowser, startOAuthServer } from './support/oauth-server';
import { ToolServer, startToolServer } from './support/tool-server';
import { at } from '@strata/domain/testing/fixed-time';

/** The browser lands back on Strata's callback, as the authorization server sent it. */
async function backToStrata(authorizationUrl: string, decision: 'approve' | 'deny' = 'approve'): Promise<Response> {
  return fetch(await authorizeInBrowser(authorizationUrl, decision), { redirect: 'manual' });
}

/**
 * OAuth 2.1 connections (REFERENCE §15.7) against a real authorization server on loopback
 * (oidc-provider: dynamic registration, PKCE, resource indicators, refresh, revocation) and a
 * tool server built with the SDK whose bearer check takes only the tokens that server issued
 * for it (introspection).
 */
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
    as = await startOAuthServer({ redirectUris: [`${t.url}/v1/mcp/oauth/callback`] });
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }], oauth: as });
  });
  afterAll(async () => {
    await tools?.close();
    await as?.close();
    await t?.close();
  });

  const lastAccessToken = () => tools.seenAuth.filter((h): h is string => !!h).at(-1)!.replace(/^Bearer /, '');
  let id: string;

  it('discovers (protected resource, then authorization server), registers dynamically, and waits for the authorization: 201 pending_auth', async () => {
    const res = await o.post('/v1/mcp/connections', { name: 'OAuth tools', url: tools.url, auth: { type: 'oauth' } });
    responses.push(res.text);
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body).toMatchObject({ status: 'pending_auth', tools_count: 0, auth: { type: 'oauth', configured: false, oauth: { authorization_server: as.issuer, registration: 'dynamic', scopes: ['tools'], token_expires_at: null, has_refresh_token: false } } });
    expect(res.body.authorization.expires_at).toBe('2030-01-01T00:10:00.000Z');
    const u = new URL(res.body.authorization.url);
    expect(u.origin + u.pathname).toBe(`${as.issuer}/auth`);
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
    expect(u.searchParams.get('resource')).toBe(tools.url);
    expect(u.searchParams.get('scope')).toBe('tools');
    expect(u.searchParams.get('redirect_uri')).toBe(`${t.url}/v1/mcp/oauth/callback`);
    expect(Buffer.from(u.searchParams.get('state')!, 'base64url')).toHaveLength(32);
    // the client was registered at the server (RFC 7591), and the URL names it
    expect(await as.registered()).toEqual([u.searchParams.get('client_id')]);
    // the pending authorization is shown on GET too, and syncing waits for it
    expect((await o.get(`/v1/mcp/connections/${id}`)).body.authorization.url).toBe(res.body.authorization.url);
    expect((await o.post(`/v1/mcp/connections/${id}/sync`, {})).body.code).toBe('invalid_transition');
  });

  it('the callback exchanges the code (PKCE, resource) and makes the connection active with its baseline', async () => {
    const pending = (await o.get(`/v1/mcp/connections/${id}`)).body;
    const back = await authorizeInBrowser(pending.authorization.url);
    // RFC 9207: the server names itself on the way back
    expect([back.origin + back.pathname, back.searchParams.get('iss')]).toEqual([`${t.url}/v1/mcp/oauth/callback`, as.issuer]);
    const cb = await fetch(back, { redirect: 'manual' });
    expect(cb.status).toBe(200);
    expect(await cb.text()).toContain('OAuth tools is connected.');
    expect(await as.grants()).toEqual(['authorization_code']);
    const c = (await o.get(`/v1/mcp/connections/${id}`)).body;
    responses.push(JSON.stringify(c));
    expect(c).toMatchObject({ status: 'active', authorization: null, tools_count: 1, protocol_version: '2025-11-25', auth: { type: 'oauth', configured: true, oauth: { has_refresh_token: true, token_expires_at: '2030-01-01T01:00:00.000Z' } } });
    // the token the tool server took was issued for it, with the scope asked for
    expect(await as.introspect(lastAccessToken())).toMatchObject({ active: true, aud: tools.url, scope: 'tools' });
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
    const before = lastAccessToken();
    const s = await o.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(s.status).toBe(200);
    expect(await as.grants()).toEqual(['authorization_code', 'refresh_token']);
    expect(lastAccessToken()).not.toBe(before);
    expect((await o.get(`/v1/mcp/connections/${id}`)).body.auth.oauth.token_expires_at).toBe('2030-01-01T01:59:30.000Z');
    // the access token expires at the server before Strata expects it to: the tool server answers 401, one refresh, then the sync goes on
    await as.advanceClock(3600);
    const expired = lastAccessToken();
    expect((await as.introspect(expired)).active).toBe(false);
    const after401 = await o.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(after401.status).toBe(200);
    expect(lastAccessToken()).not.toBe(expired);
    expect(await as.grants()).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
    expect((await o.get(`/v1/mcp/connections/${id}`)).body).toMatchObject({ status: 'active', last_error: null });
  });

  it('a refused authorization leaves it pending_auth with access_denied; reauthorize starts a new one', async () => {
    const re = await o.post(`/v1/mcp/connections/${id}/reauthorize`, { return_url: '/settings/mcp' });
    expect(re.status).toBe(200);
    // a usable token remains: the connection stays active while the new authorization waits
    expect(re.body).toMatchObject({ status: 'active' });
    expect(new URL(re.body.authorization.url).searchParams.get('client_id')).toBe((await as.registered())[0]);
    const denied = await backToStrata(re.body.authorization.url, 'deny');
    expect(denied.status).toBe(302);
    const back = new URL(denied.headers.get('location')!);
    expect(back.pathname).toBe('/settings/mcp');
    expect(back.searchParams.get('mcp_connection')).toBe(id);
    const c = (await o.get(`/v1/mcp/connections/${id}`)).body;
    expect(c.last_error).toMatchObject({ code: 'access_denied' });
    expect(c.authorization).toBeNull();

    // reauthorize again, approved this time: the new tokens replace the old
    const again = await o.post(`/v1/mcp/connections/${id}/reauthorize`, {});
    expect((await backToStrata(again.body.authorization.url)).status).toBe(200);
    expect(await as.grants()).toEqual(['authorization_code', 'refresh_token', 'refresh_token', 'authorization_code']);
    expect((await o.get(`/v1/mcp/connections/${id}`)).body).toMatchObject({ status: 'active', last_error: null, authorization: null });
  });

  it('the authorization window is 600 s: from its expires_at the URL is no longer shown and the callback refuses its state', async () => {
    const res = await o.post('/v1/mcp/connections', { name: 'Too late', url: tools.url, auth: { type: 'oauth' } });
    expect(res.status).toBe(201);
    expect(res.body.authorization.expires_at).toBe(new Date(clock.now() * 1000 + 600_000).toISOString());
    // the user approves at the server, but comes back to Strata only as the window closes
    const back = await authorizeInBrowser(res.body.authorization.url);
    clock.advance(599);
    o = api(t.url, (await login(t.url, user.email, user.password)).access_token);
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body.authorization).toMatchObject({ url: res.body.authorization.url });
    clock.advance(1);
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body).toMatchObject({ status: 'pending_auth', authorization: null });
    const cb = await fetch(back, { redirect: 'manual' });
    expect(cb.status).toBe(400);
    expect(((await cb.json()) as { code: string }).code).toBe('invalid_field');
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body).toMatchObject({ status: 'pending_auth', auth: { configured: false } });
    expect((await o.delete(`/v1/mcp/connections/${res.body.id}`)).status).toBe(200);
  });

  it('a pre-registered client; DELETE revokes the tokens at the revocation endpoint', async () => {
    const registeredBefore = await as.registered();
    const res = await o.post('/v1/mcp/connections', { name: 'Prereg', url: tools.url, auth: { type: 'oauth', client_id: 'preregistered-client', scopes: ['tools'] } });
    expect(res.status).toBe(201);
    expect(res.body.auth.oauth).toMatchObject({ client_id: 'preregistered-client', registration: 'preregistered' });
    expect(await as.registered()).toEqual(registeredBefore);
    expect((await backToStrata(res.body.authorization.url)).status).toBe(200);
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body.status).toBe('active');
    const access = lastAccessToken();
    expect(await as.introspect(access)).toMatchObject({ active: true, client_id: 'preregistered-client' });
    const revokedBefore = (await as.revocations()).length;
    expect((await o.delete(`/v1/mcp/connections/${res.body.id}`)).status).toBe(200);
    expect((await as.revocations()).slice(revokedBefore)).toEqual(['refresh_token', 'access_token']);
    expect((await as.introspect(access)).active).toBe(false);
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
    const issued = await as.issuedTokens();
    // access and refresh tokens of both connections, and the registration's access token
    expect(new Set(issued.map((x) => x.kind))).toEqual(new Set(['access_token', 'refresh_token', 'registration_access_token']));
    for (const { kind, value } of issued)
      for (const [name, text] of haystacks) if (text.includes(value)) throw new Error(`an issued ${kind} found in ${name}`);
  });
});
