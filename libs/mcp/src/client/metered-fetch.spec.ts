import { McpCallRecord, meteredFetch } from './metered-fetch';

describe('meteredFetch', () => {
  const calls: McpCallRecord[] = [];
  beforeEach(() => calls.splice(0));
  const rpc = (method: string) => ({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { arguments: { secret: 'planted-9f1' } } }) });

  it('counts each request by connection and JSON-RPC method, HTTP errors as errors, and passes the answer through', async () => {
    let status = 200;
    const fetch = meteredFetch(async () => new Response('{}', { status }), 'conn-1', (c) => calls.push(c));
    expect((await fetch('http://x/mcp', rpc('tools/call'))).status).toBe(200);
    status = 401;
    expect((await fetch('http://x/mcp', rpc('tools/list'))).status).toBe(401);
    await fetch('http://x/mcp', { method: 'GET' });
    await fetch('http://x/mcp', { method: 'DELETE' });
    await fetch('http://x/mcp', rpc('vendor/made-up-method'));
    await fetch('http://x/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 4, result: {} }) });
    expect(calls.map((c) => [c.connection, c.method, c.outcome])).toEqual([
      ['conn-1', 'tools/call', 'ok'],
      ['conn-1', 'tools/list', 'error'],
      ['conn-1', 'stream', 'error'],
      ['conn-1', 'session/close', 'error'],
      ['conn-1', 'other', 'error'],
      ['conn-1', 'response', 'error'],
    ]);
    for (const c of calls) expect(c.seconds).toBeGreaterThanOrEqual(0);
    // nothing of the request's arguments is recorded
    expect(JSON.stringify(calls)).not.toContain('planted-9f1');
  });

  it('counts a network failure as an error and rethrows it', async () => {
    const fetch = meteredFetch(async () => Promise.reject(new Error('refused')), 'inspect', (c) => calls.push(c));
    await expect(fetch('http://x/mcp', rpc('initialize'))).rejects.toThrow('refused');
    expect(calls.map((c) => [c.method, c.outcome])).toEqual([['initialize', 'error']]);
  });
});
