import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { OAuthServer, authorizeInBrowser, startOAuthServer } from './support/oauth-server';
import { ToolServer, startToolServer } from './support/tool-server';

/** Strata's public address as its users' browsers and the authorization server know it. */
const PUBLIC_URL = 'https://strata.example';

describe('MCP OAuth with a Client ID Metadata Document (an https STRATA_PUBLIC_URL, a server that supports it)', () => {
  let t: TestApp;
  let as: OAuthServer;
  let tools: ToolServer;

  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_PUBLIC_URL: PUBLIC_URL } });
    // oidc-provider reads the document at the client_id URL; the public host is this test app
    as = await startOAuthServer({ clientMetadataDocuments: true, hosts: { [PUBLIC_URL]: t.url } });
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }], oauth: as });
  });
  afterAll(async () => {
    await tools?.close();
    await as?.close();
    await t?.close();
  });

  it('uses the document URL as client_id (no dynamic registration); the server reads it, and the callback makes the connection active', async () => {
    const o = api(t.url, (await signUp(t.url)).access_token);
    const res = await o.post('/v1/mcp/connections', { name: 'Metadata tools', url: tools.url, auth: { type: 'oauth' } });
    expect(res.status).toBe(201);
    const clientId = `${PUBLIC_URL}/v1/mcp/oauth/client-metadata.json`;
    expect(res.body).toMatchObject({ status: 'pending_auth', auth: { oauth: { registration: 'client_metadata_document', client_id: clientId } } });
    const u = new URL(res.body.authorization.url);
    expect([u.searchParams.get('client_id'), u.searchParams.get('redirect_uri')]).toEqual([clientId, `${PUBLIC_URL}/v1/mcp/oauth/callback`]);
    // nothing was registered at the server
    expect(await as.registered()).toEqual([]);

    // the user's browser: to the authorization server, then back to Strata's public callback
    const back = await authorizeInBrowser(res.body.authorization.url);
    expect(await as.metadataDocumentsFetched()).toEqual([clientId]);
    expect(back.origin + back.pathname).toBe(`${PUBLIC_URL}/v1/mcp/oauth/callback`);
    const cb = await fetch(`${t.url}${back.pathname}${back.search}`, { redirect: 'manual' });
    expect(cb.status).toBe(200);
    expect(await as.grants()).toEqual(['authorization_code']);
    expect((await o.get(`/v1/mcp/connections/${res.body.id}`)).body).toMatchObject({ status: 'active', tools_count: 1, auth: { configured: true, oauth: { registration: 'client_metadata_document', client_id: clientId } } });
    expect(await as.introspect(tools.seenAuth.at(-1)!.replace(/^Bearer /, ''))).toMatchObject({ active: true, client_id: clientId, aud: tools.url });
  });
});
