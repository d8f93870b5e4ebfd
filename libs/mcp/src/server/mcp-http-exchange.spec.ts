import { McpExchange } from './mcp-http-exchange';
import { RouteAnswer, lazyRouteAnswer } from './route-call';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'strata_retrieve', arguments: { action: 'text', query: 'relay "quoted" \u2028 line' } } });

describe('McpExchange: tool results from the route JSON text', () => {
  const exchange = new McpExchange('test');
  afterAll(() => exchange.close());

  async function both(body: unknown, status = 200, version?: string): Promise<[string, string]> {
    const json = JSON.stringify(body);
    const headers = version ? { ...HEADERS, 'mcp-protocol-version': version } : HEADERS;
    const parsed = await exchange.answer(call(7), headers, { call: async (): Promise<RouteAnswer> => ({ status, body: JSON.parse(json) }), canWrite: true });
    const raw = await exchange.answer(call(7), headers, { call: async () => lazyRouteAnswer(status, json), canWrite: true });
    expect(raw.status).toBe(parsed.status);
    return [raw.body, parsed.body];
  }

  it('answers exactly what the parsed route body gives, for an object, an array, a string with escapes, and the stateless revision', async () => {
    const node = { uid: 'n1', label: 'a "quoted" label\nwith \\ and \u2028', props: { nested: [1, { x: null }] } };
    for (const body of [node, [{ node, score: 1.5 }], [], { result: 'x' }]) {
      const [raw, parsed] = await both(body);
      expect(raw).toBe(parsed);
      const answer = JSON.parse(raw);
      expect(answer.id).toBe(7);
      expect(answer.result.content[0].text).toBe(JSON.stringify(body));
      expect(answer.result.structuredContent).toEqual(Array.isArray(body) ? { result: body } : body);
    }
    const [raw, parsed] = await both(node, 200, '2026-07-28');
    expect(raw).toBe(parsed);
    expect(JSON.parse(raw).result.resultType).toBe('complete');
  });

  it('reads the body of a route error (isError with the route code and status)', async () => {
    const [raw, parsed] = await both({ error: 'nope', code: 'invalid_field', field: 'query' }, 400);
    expect(raw).toBe(parsed);
    expect(JSON.parse(raw).result).toMatchObject({ isError: true, structuredContent: { code: 'invalid_field', status: 400, field: 'query' } });
  });

  it('keeps each request its own structured content when calls interleave', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map((i) => exchange.answer(call(`c${i}`), HEADERS, { call: async () => lazyRouteAnswer(200, JSON.stringify({ n: i })), canWrite: true })),
    );
    expect(answers.map((a) => JSON.parse(a.body)).map((a) => [a.id, a.result.structuredContent.n])).toEqual([
      ['c1', 1],
      ['c2', 2],
      ['c3', 3],
    ]);
  });
});

describe('McpExchange: which bodies are JSON-RPC requests', () => {
  const exchange = new McpExchange('test');
  afterAll(() => exchange.close());
  const ping = (extra: Record<string, unknown>) => exchange.answer({ jsonrpc: '2.0', method: 'ping', ...extra }, HEADERS, { call: async () => ({ status: 200, body: {} }), canWrite: true });

  it('answers a request with a string or integer id, with or without params, and one whose params carry _meta', async () => {
    for (const extra of [{ id: 1 }, { id: 'a' }, { id: 0, params: {} }, { id: 2, params: { _meta: { progressToken: 3 } } }]) {
      const answer = await ping(extra);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { jsonrpc: '2.0', id: extra.id, result: {} }]);
    }
  });

  it('refuses as -32700 what the SDK schema refuses: a fractional id, a member it does not know, params that are not an object, another jsonrpc', async () => {
    for (const extra of [{ id: 1.5 }, { id: 1, extra: true }, { id: 1, params: [1] }, { id: 1, params: null }, { id: 1, jsonrpc: '1.0' }, { id: null }]) {
      const answer = await ping(extra);
      expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([400, -32700]);
    }
  });

  it('takes a body without id as a notification (202, no body)', async () => {
    expect(await ping({})).toEqual({ status: 202, headers: {}, body: '' });
  });
});
