import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { ToolServer, startToolServer } from './support/tool-server';

/** Deadlines far below §15.5's (those are checked in libs/mcp/src/connections/mcp-limits.spec.ts). */
// the connect deadline below the handshake's, so that each is seen to fire
const LIMITS = { connectMs: 250, handshakeMs: 500, inspectMs: 1200, listMs: 2000, maxBodyBytes: 64 * 1024 };

type Check = { name: string; status: string; detail: string };
const check = (checks: Check[], name: string) => checks.find((c) => c.name === name);

/**
 * The §15.5 timeouts and the body limit, through HTTP against servers that stall: a TLS
 * handshake that never finishes, and tool servers built with the SDK that receive a
 * `server/discover`, `initialize` or `tools/list` and never answer it. The service runs on
 * injected deadlines of a few hundred milliseconds instead of seconds.
 */
describe('MCP timeouts: connect + TLS, discover, initialize, tools/list, the whole inspection, the body limit', () => {
  let t: TestApp;
  let a: Api;
  const servers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), env: { STRATA_MCP_ALLOW_PRIVATE: 'true' }, mcpLimits: LIMITS });
    a = api(t.url, (await signUp(t.url)).access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await t?.close();
  });

  async function toolServer(): Promise<ToolServer> {
    const s = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }] });
    servers.push(s);
    return s;
  }

  /** a connection saved while its server answered */
  async function saved(s: ToolServer, name: string): Promise<string> {
    const res = await a.post('/v1/mcp/connections', { name, url: s.url, auth: { type: 'none' } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  it('connect + TLS: a server that accepts the connection and never finishes the TLS handshake fails reachable with a timeout', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    servers.push({
      close: () =>
        new Promise<void>((r) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => r());
        }),
    });
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const inspected = await a.post('/v1/mcp/inspect', { url });
    expect([inspected.status, inspected.body.ok]).toEqual([200, false]);
    expect(inspected.body.checks.map((c: Check) => [c.name, c.status])).toEqual([['reachable', 'fail'], ['auth_discovery', 'skip'], ['protocol', 'skip'], ['tools', 'skip']]);
    expect(check(inspected.body.checks, 'reachable')!.detail).toMatch(/^could not connect to 127\.0\.0\.1:\d+ within 250 ms$/);
    const refused = await a.post('/v1/mcp/connections', { name: 'Silent', url, auth: { type: 'none' } });
    expect([refused.status, refused.body.code, check(refused.body.checks, 'reachable')!.status]).toEqual([422, 'mcp_check_failed', 'fail']);
  });

  it('server/discover never answered: inspect fails at the handshake deadline, and a sync leaves the connection error / timeout', async () => {
    const s = await toolServer();
    const id = await saved(s, 'Discover stalls');
    s.stall.add('server/discover');
    const inspected = await a.post('/v1/mcp/inspect', { url: s.url });
    expect(inspected.body.ok).toBe(false);
    expect(check(inspected.body.checks, 'reachable')).toEqual({ name: 'reachable', status: 'fail', detail: 'server/discover took longer than 0.5 s' });
    const failed = await a.post(`/v1/mcp/connections/${id}/sync`, {});
    expect([failed.status, failed.body.code]).toEqual([502, 'mcp_sync_failed']);
    expect(failed.body.connection).toMatchObject({ status: 'error', last_error: { code: 'timeout', message: 'server/discover took longer than 0.5 s' } });
    // it answers again: the next sync makes it active
    s.stall.clear();
    expect((await a.post(`/v1/mcp/connections/${id}/sync`, {})).body.connection).toMatchObject({ status: 'active', last_error: null });
  });

  it('initialize never answered (after the server refused server/discover): the protocol check and a sync fail with a timeout', async () => {
    const s = await toolServer();
    const id = await saved(s, 'Initialize stalls');
    s.stall.add('initialize');
    const inspected = await a.post('/v1/mcp/inspect', { url: s.url });
    expect(inspected.body.checks.map((c: Check) => [c.name, c.status])).toEqual([['reachable', 'pass'], ['auth_discovery', 'pass'], ['protocol', 'fail'], ['tools', 'skip']]);
    expect(check(inspected.body.checks, 'protocol')!.detail).toBe('initialize took longer than 0.5 s');
    const failed = await a.post(`/v1/mcp/connections/${id}/sync`, {});
    expect(failed.body.connection).toMatchObject({ status: 'error', last_error: { code: 'timeout', message: 'initialize took longer than 0.5 s' } });
    expect(s.seenMethods.filter((m) => m === 'initialize').length).toBeGreaterThanOrEqual(2);
  });

  it('tools/list never answered: a sync fails at the listing deadline; inspect and create at the whole inspection’s, the check under way failing', async () => {
    const s = await toolServer();
    const id = await saved(s, 'List stalls');
    s.stall.add('tools/list');
    const failed = await a.post(`/v1/mcp/connections/${id}/sync`, {});
    expect([failed.status, failed.body.connection.status]).toEqual([502, 'error']);
    expect(failed.body.connection.last_error).toMatchObject({ code: 'timeout', message: 'tools/list failed: tools/list took longer than 2 s' });
    // the listing deadline (2 s) is later than the whole inspection's (1.2 s)
    const inspected = await a.post('/v1/mcp/inspect', { url: s.url });
    expect([inspected.status, inspected.body.ok]).toEqual([200, false]);
    expect(inspected.body.checks.map((c: Check) => [c.name, c.status])).toEqual([['reachable', 'pass'], ['auth_discovery', 'pass'], ['protocol', 'pass'], ['tools', 'fail']]);
    expect(check(inspected.body.checks, 'tools')!.detail).toBe('tools/list failed: the inspection took longer than 1.2 s');
    const refused = await a.post('/v1/mcp/connections', { name: 'List stalls 2', url: s.url, auth: { type: 'none' } });
    expect([refused.status, refused.body.code, check(refused.body.checks, 'tools')!.detail]).toEqual([422, 'mcp_check_failed', 'tools/list failed: the inspection took longer than 1.2 s']);
  });

  it('a response body over the limit fails the listing: protocol_error, the registry unchanged', async () => {
    const s = await toolServer();
    const id = await saved(s, 'Big answers');
    s.tools[0].description = 'x'.repeat(LIMITS.maxBodyBytes);
    const failed = await a.post(`/v1/mcp/connections/${id}/sync`, {});
    expect([failed.status, failed.body.connection.status, failed.body.connection.last_error.code]).toEqual([502, 'error', 'protocol_error']);
    expect(failed.body.connection.last_error.message).toContain(`the response body is over ${LIMITS.maxBodyBytes} bytes`);
    expect((await a.get(`/v1/mcp/registry?connection_id=${id}`)).body.tools.map((x: { description: string }) => x.description)).toEqual(['Adds.']);
  });
});
