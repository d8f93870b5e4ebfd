import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';

/**
 * A protected MCP server whose protected resource metadata (RFC 9728) names `resource`, and
 * an authorization server that only publishes its metadata (a pre-registered client needs no
 * more to be sent to its authorization endpoint).
 */
async function startProtectedServer(resource: (own: string) => string): Promise<{ url: string; close(): Promise<void> }> {
  let base = '';
  const server = http.createServer((req, res) => {
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/oauth-protected-resource/mcp') return json({ resource: resource(`${base}/mcp`), authorization_servers: [`${base}/as`], scopes_supported: ['tools'] });
    if (req.url === '/.well-known/oauth-authorization-server/as')
      return json({ issuer: `${base}/as`, authorization_endpoint: `${base}/as/authorize`, token_endpoint: `${base}/as/token`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/mcp`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('MCP OAuth: the resource a token is asked for', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), env: { STRATA_MCP_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t?.close());

  it('refuses protected resource metadata naming another resource than the server (create 422, inspect a failed auth_discovery), and asks for the server itself otherwise', async () => {
    const o = api(t.url, (await signUp(t.url)).access_token);
    const foreign = await startProtectedServer(() => 'https://other-service.example/api');
    const own = await startProtectedServer((url) => url);
    try {
      const refused = await o.post('/v1/mcp/connections', { name: 'Foreign', url: foreign.url, auth: { type: 'oauth', client_id: 'strata-client' } });
      expect([refused.status, refused.body.code]).toEqual([422, 'mcp_check_failed']);
      expect(refused.body.checks).toEqual([expect.objectContaining({ name: 'auth_discovery', status: 'fail' })]);
      expect((await o.get('/v1/mcp/connections')).body.items).toEqual([]);

      // inspect fails the same check, for the same reason, and runs nothing after it
      const inspected = await o.post('/v1/mcp/inspect', { url: foreign.url });
      expect(inspected.status).toBe(200);
      expect(inspected.body.ok).toBe(false);
      expect(inspected.body.checks).toEqual([
        expect.objectContaining({ name: 'reachable', status: 'pass' }),
        { name: 'auth_discovery', status: 'fail', detail: refused.body.checks[0].detail },
        expect.objectContaining({ name: 'protocol', status: 'skip' }),
        expect.objectContaining({ name: 'tools', status: 'skip' }),
      ]);
      expect(inspected.body.auth).toMatchObject({ required: true, resource: 'https://other-service.example/api' });
      const inspectedOwn = await o.post('/v1/mcp/inspect', { url: own.url });
      expect(inspectedOwn.body.checks[1]).toMatchObject({ name: 'auth_discovery', status: 'pass' });
      expect(inspectedOwn.body.auth).toMatchObject({ type: 'oauth', resource: own.url });

      const created = await o.post('/v1/mcp/connections', { name: 'Own', url: own.url, auth: { type: 'oauth', client_id: 'strata-client' } });
      expect(created.body.status).toBe('pending_auth');
      expect(new URL(created.body.authorization.url).searchParams.get('resource')).toBe(own.url);
    } finally {
      await foreign.close();
      await own.close();
    }
  });
});
