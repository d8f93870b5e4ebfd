import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@strata/domain/testing/eventually';
import { guardedFetch } from './guarded-fetch';
import { openMcpSession } from './mcp-session';

/**
 * The stateless revision (2026-07-28) of a session against a real loopback server speaking it
 * (the SDK's servers do not yet): an aborted call sends `notifications/cancelled` for its id.
 */
describe('a stateless MCP session', () => {
  let server: http.Server;
  let url: URL;
  const seen: { id?: number; method: string; params: any }[] = [];
  let release: () => void = () => undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        seen.push({ id: msg.id, method: msg.method, params: msg.params });
        const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
        if (msg.method === 'server/discover') return answer({ supportedVersions: ['2026-07-28'], serverInfo: { name: 'stateless', version: '1' }, capabilities: { tools: {} } });
        if (msg.method === 'tools/call') {
          const done = () => answer({ content: [{ type: 'text', text: 'late' }] });
          release = done;
          req.socket.on('close', () => (release = () => undefined));
          return;
        }
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    release();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('an aborted call rejects with the signal reason and sends notifications/cancelled for its request', async () => {
    const session = await openMcpSession({ fetch: guardedFetch({ allowPrivate: true, connectTimeoutMs: 5000, maxBodyBytes: 1 << 20 }), version: 'test', handshakeTimeoutMs: 5000 }, url, {});
    expect(session.protocolVersion).toBe('2026-07-28');
    const ac = new AbortController();
    const call = session.callTool('slow', { a: 1 }, 60_000, ac.signal);
    const asked = await eventually(() => seen.find((m) => m.method === 'tools/call'), { what: 'the call reached the server' });
    ac.abort(new Error('interrupted by the test'));
    await expect(call).rejects.toThrow('interrupted by the test');
    const cancelled = await eventually(() => seen.find((m) => m.method === 'notifications/cancelled'), { what: 'the cancellation' });
    expect(cancelled.params).toMatchObject({ requestId: asked.id, reason: 'interrupted' });
    expect(asked.params).toMatchObject({ name: 'slow', arguments: { a: 1 } });
    await session.close();
  });
});
