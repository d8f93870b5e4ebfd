import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { ConnectionTools } from '@strata/mcp/connections';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { secretHaystacks } from './support/secret-haystacks';
import { ToolServer, startToolServer } from './support/tool-server';

const TOKEN = 'tok_echoed_4f1a9c2e7b3d5a6c8e0f';
const HEADER_SECRET = 'hdr_echoed_"quoted"/8d2b61f0';

/**
 * In front of a real tool server: until `echo` is set it passes requests through; then it
 * answers every request 500 with a debug page listing the headers it was sent (as some
 * frameworks' error pages do).
 */
async function startEchoingProxy(target: ToolServer): Promise<{ url: string; echo: boolean; close(): Promise<void> }> {
  const state: { url: string; echo: boolean; close(): Promise<void> } = { url: '', echo: false, close: async () => undefined };
  const server = http.createServer((req, res) => {
    if (state.echo) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`debug: ${JSON.stringify(req.headers)}`);
      return;
    }
    const upstream = http.request(target.url, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return state;
}

describe('MCP connections: a server that echoes the request in its errors', () => {
  let t: TestApp;
  let real: ToolServer;
  let proxy: Awaited<ReturnType<typeof startEchoingProxy>>;
  const responses: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), captureLogs: true, env: { STRATA_MCP_ALLOW_PRIVATE: 'true' } });
    real = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }] });
    proxy = await startEchoingProxy(real);
  });
  afterAll(async () => {
    await proxy?.close();
    await real?.close();
    await t?.close();
  });

  it('keeps the credentials out of what Strata records and answers of the failure: 502, the record, a failed call, 422, inspect, the event log', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    // a third connection is tried below: more than the Free plan's two (REFERENCE §17)
    expect((await o.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    const bearer = await o.post('/v1/mcp/connections', { name: 'Echo', url: proxy.url, auth: { type: 'bearer', token: TOKEN } });
    const headered = await o.post('/v1/mcp/connections', { name: 'Echo headers', url: proxy.url, auth: { type: 'headers', headers: { 'X-Api-Key': HEADER_SECRET } } });
    expect([bearer.status, headered.status]).toEqual([201, 201]);
    proxy.echo = true;

    const sync = await o.post(`/v1/mcp/connections/${bearer.body.id}/sync`, {});
    responses.push(sync.text);
    expect(sync.status).toBe(502);
    expect(sync.body.connection.last_error.message).toContain('[redacted]');
    const call = await t.app.get(ConnectionTools).callTool(owner.org_id, headered.body.id, 'add', { a: 1 });
    expect(call).toMatchObject({ ok: false, error: { code: 'protocol_error' } });
    responses.push(JSON.stringify(call));
    for (const id of [bearer.body.id, headered.body.id]) responses.push((await o.get(`/v1/mcp/connections/${id}`)).text);
    const again = await o.post('/v1/mcp/connections', { name: 'Echo again', url: proxy.url, auth: { type: 'bearer', token: TOKEN } });
    expect(again.status).toBe(422);
    responses.push(again.text);
    const inspected = await o.post('/v1/mcp/inspect', { url: proxy.url, auth: { type: 'headers', headers: { 'X-Api-Key': HEADER_SECRET } } });
    expect(inspected.body.ok).toBe(false);
    responses.push(inspected.text);

    const escaped = JSON.stringify(HEADER_SECRET).slice(1, -1);
    for (const [name, text] of await secretHaystacks(o, t, responses)) {
      for (const secret of [TOKEN, HEADER_SECRET, escaped]) if (text.includes(secret)) throw new Error(`a credential the server echoed is in ${name}`);
    }
  });
});
