import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** An SDK client connected to Strata's /mcp with a bearer credential. */
async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'strata-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** The route's answer a tool result carries: its text item (structured content wraps arrays). */
function answerOf(res: unknown): unknown {
  const result = res as { content?: unknown; structuredContent?: unknown };
  const text = JSON.parse((result.content as { text: string }[])[0].text);
  expect(result.structuredContent).toEqual(Array.isArray(text) ? { result: text } : text);
  return text;
}

/** A raw JSON-RPC POST to /mcp. */
function rpc(url: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return request(url, 'POST', '/mcp', { token, raw: JSON.stringify(body), headers: { ...MCP_HEADERS, ...headers } });
}

describe("Strata's MCP server (POST /mcp)", () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof signUp>>;
  let writeKey: string;
  let readKey: string;
  let client: Client;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { STRATA_MCP_ALLOWED_ORIGINS: 'https://app.example.test' } });
    owner = await signUp(t.url);
    writeKey = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
    readKey = (await createApiKey(t.url, owner.access_token, { scopes: ['read'] })).key;
    client = await connect(t.url, writeKey);
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  it('initializes with the SDK client: server info, capabilities, instructions, no session id', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'strata', title: 'Strata knowledge graph' });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } });
    expect(client.getInstructions()).toContain('strata_retrieve');
    const init = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.body.result.protocolVersion).toBe('2025-06-18');
    const old = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    expect(old.body.result.protocolVersion).toBe('2025-11-25');
  });

  it('lists the eleven tools to a write credential and only the read tools to a read one', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      ['strata_capture', 'strata_commit', 'strata_evolve', 'strata_get_node', 'strata_ingest', 'strata_plan', 'strata_reason', 'strata_remember', 'strata_retrieve', 'strata_traverse', 'strata_write_article'].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['action'] });
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    expect(tools.find((x) => x.name === 'strata_retrieve')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((x) => x.name === 'strata_evolve')!.annotations).toMatchObject({ destructiveHint: true });

    const reader = await connect(t.url, readKey);
    try {
      expect((await reader.listTools()).tools.map((x) => x.name).sort()).toEqual(['strata_get_node', 'strata_retrieve', 'strata_traverse']);
      // a hidden tool is an unknown tool
      await expect(reader.callTool({ name: 'strata_commit', arguments: { action: 'goal', label: 'x' } })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await reader.close();
    }
  });

  it('writes and reads through the routes: the structured result is the route answer', async () => {
    const goal = await client.callTool({ name: 'strata_commit', arguments: { action: 'goal', label: 'Ship the MCP server', agent_id: 'ignored-agent' } });
    expect(goal.isError).toBeFalsy();
    const created = goal.structuredContent as Record<string, any>;
    const uid = created.uid ?? created.node?.uid;
    expect(typeof uid).toBe('string');
    expect(JSON.parse((goal.content as { text: string }[])[0].text)).toEqual(created);

    const got = await client.callTool({ name: 'strata_get_node', arguments: { action: 'get', uid } });
    const direct = await api(t.url, writeKey).get(`/node/${uid}`);
    expect(got.structuredContent).toEqual(direct.body);
    expect(direct.body.label).toBe('Ship the MCP server');

    const history = await client.callTool({ name: 'strata_get_node', arguments: { action: 'history', uid, limit: 5 } });
    expect(history.isError).toBeFalsy();
    // a JSON array answer is wrapped (structured content is an object); the text item is the answer as sent
    const routeHistory = (await api(t.url, writeKey).get(`/node/${uid}/history?limit=5`)).body;
    expect(history.structuredContent).toEqual({ result: routeHistory });
    expect(JSON.parse((history.content as { text: string }[])[0].text)).toEqual(routeHistory);

    const goals = await client.callTool({ name: 'strata_retrieve', arguments: { action: 'active_goals' } });
    expect(answerOf(goals)).toEqual((await api(t.url, writeKey).post('/retrieve', { action: 'active_goals' })).body);
    expect(JSON.stringify(goals.structuredContent)).toContain(uid);

    const found = await client.callTool({ name: 'strata_retrieve', arguments: { action: 'text', query: 'MCP server' } });
    expect(answerOf(found)).toEqual((await api(t.url, writeKey).post('/retrieve', { action: 'text', query: 'MCP server' })).body);
  });

  it('writes an article with its Covers link in one transaction', async () => {
    const topic = await client.callTool({ name: 'strata_capture', arguments: { action: 'entity', label: 'Streamable HTTP', entity_type: 'technology' } });
    expect(topic.structuredContent).not.toHaveProperty('code');
    const topicUid = (topic.structuredContent as any).uid;
    expect(typeof topicUid).toBe('string');
    const article = await client.callTool({ name: 'strata_write_article', arguments: { action: 'create', label: 'On transports', content: 'Streamable HTTP is…', covers_uid: topicUid } });
    expect(article.isError).toBeFalsy();
    const a = article.structuredContent as any;
    expect(a).toMatchObject({ node_type: 'Article', label: 'On transports' });
    expect(a.edge_uids).toHaveLength(1);
    const bad = await client.callTool({ name: 'strata_write_article', arguments: { action: 'create', label: 'Orphan', content: 'x', covers_uid: 'no-such-node' } });
    expect(bad.isError).toBe(true);
    expect((await api(t.url, writeKey).post('/retrieve', { action: 'text', query: 'Orphan' })).text).not.toContain('"Orphan"');
  });

  it('names an article\'s own arguments in its errors, not the batch it is written through', async () => {
    const topic = (await client.callTool({ name: 'strata_capture', arguments: { action: 'entity', label: 'Errors topic' } })).structuredContent as any;
    const write = async (args: Record<string, unknown>) => (await client.callTool({ name: 'strata_write_article', arguments: { action: 'create', ...args } })) as any;
    const badProject = await write({ label: 'A', content: 'x', covers_uid: topic.uid, project_uid: 'no-such-project' });
    expect(badProject.isError).toBe(true);
    expect(badProject.structuredContent).toEqual({ error: 'project_uid: node no-such-project not found', code: 'not_found', field: 'project_uid', uid: 'no-such-project', status: 404 });
    const badCovers = await write({ label: 'A', content: 'x', covers_uid: 'no such node' });
    expect(badCovers.structuredContent).toMatchObject({ code: 'invalid_uid', field: 'covers_uid', status: 400 });
    expect(badCovers.structuredContent).not.toHaveProperty('index');
    expect(badCovers.structuredContent.error).not.toMatch(/edges|to_uid/);
    // the article's own fields read as POST /node reports them
    const noLabel = await write({ content: 'x', covers_uid: topic.uid });
    expect(noLabel.structuredContent).toEqual({ error: 'label is required', code: 'missing_field', field: 'label', status: 400 });
  });

  it('refuses an article whose project_uid is not a live Project, as /ingest/document refuses it, and writes nothing', async () => {
    const http = api(t.url, writeKey);
    const write = async (args: Record<string, unknown>) => (await client.callTool({ name: 'strata_write_article', arguments: { action: 'create', content: 'x', ...args } })) as any;
    const person = (await http.post('/node', { node_type: 'Person', label: 'Not a project' })).body;
    const wrong = await write({ label: 'Wrong project', project_uid: person.uid });
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent).toEqual({ error: `project_uid: node ${person.uid} is a Person, expected Project`, code: 'wrong_node_type', field: 'project_uid', uid: person.uid, expected: ['Project'], status: 400 });

    const project = (await client.callTool({ name: 'strata_commit', arguments: { action: 'project', label: 'Closed project' } })).structuredContent as any;
    const projectUid = project.uid ?? project.node?.uid;
    expect((await http.get(`/node/${projectUid}`)).body.node_type).toBe('Project');
    expect((await http.delete(`/node/${projectUid}`)).status).toBe(200);
    const gone = await write({ label: 'Gone project', project_uid: projectUid });
    expect(gone.isError).toBe(true);
    expect(gone.structuredContent).toEqual({ error: `project_uid: node ${projectUid} not found`, code: 'not_found', field: 'project_uid', uid: projectUid, status: 404 });

    const articles = (await http.get('/nodes?node_type=Article&limit=1000')).body.items.map((n: { label: string }) => n.label);
    expect(articles).not.toContain('Wrong project');
    expect(articles).not.toContain('Gone project');
  });

  it('reports route errors as tool errors with the route code and status', async () => {
    const unknownAction = await client.callTool({ name: 'strata_retrieve', arguments: { action: 'nope' } });
    expect(unknownAction.isError).toBe(true);
    expect(unknownAction.structuredContent).toMatchObject({ code: 'unknown_action', status: 400 });
    const missing = await client.callTool({ name: 'strata_get_node', arguments: { action: 'get' } });
    expect(missing.structuredContent).toMatchObject({ code: 'missing_field', field: 'uid', status: 400 });
    const notFound = await client.callTool({ name: 'strata_get_node', arguments: { action: 'get', uid: 'missing-node' } });
    expect(notFound.structuredContent).toMatchObject({ status: 404 });
    const invalid = await client.callTool({ name: 'strata_commit', arguments: { action: 'goal' } });
    expect(invalid.isError).toBe(true);
    expect((invalid.structuredContent as any).status).toBe(400);
    // ingestion answers as its route does on this build
    const ingest = await client.callTool({ name: 'strata_ingest', arguments: { action: 'chunk', content: 'hello' } });
    const route = await api(t.url, writeKey).post('/ingest/chunk', { content: 'hello' });
    expect(ingest.isError).toBe(route.status >= 400 ? true : undefined);
    expect((ingest.structuredContent as any).status ?? 201).toBe(route.status);
    await expect(client.callTool({ name: 'strata_nothing', arguments: {} })).rejects.toBeInstanceOf(McpError);
    await expect(client.callTool({ name: 'strata_nothing', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('serves the resources and the templates', async () => {
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['strata://stats', 'strata://goals', 'strata://decisions', 'strata://questions']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual(['strata://node/{uid}', 'strata://search/{query}']);
    const stats = await client.readResource({ uri: 'strata://stats' });
    expect(stats.contents[0].mimeType).toBe('application/json');
    expect(JSON.parse((stats.contents[0] as { text: string }).text)).toEqual((await api(t.url, writeKey).get('/stats')).body);
    const goals = await client.readResource({ uri: 'strata://goals' });
    expect((goals.contents[0] as { text: string }).text).toContain('Ship the MCP server');
    const search = await client.readResource({ uri: `strata://search/${encodeURIComponent('MCP server')}` });
    expect(JSON.parse((search.contents[0] as { text: string }).text)).toEqual((await api(t.url, writeKey).post('/search', { query: 'MCP server', limit: 20 })).body);
    await expect(client.readResource({ uri: 'strata://node/missing-node' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'strata://elsewhere' })).rejects.toMatchObject({ code: -32002 });
  });

  it('speaks the stateless revision through server/discover', async () => {
    const res = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 'd1', method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }, { 'mcp-protocol-version': '2026-07-28' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], serverInfo: { name: 'strata' } });
    const list = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 'd2', method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2026-07-28' });
    // a cacheable result of the stateless revision says how long it may be reused: never, and by this credential only
    expect(list.body.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(list.body.result.tools).toHaveLength(11);
    const call = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 'd3', method: 'tools/call', params: { name: 'strata_retrieve', arguments: { action: 'text', query: 'x' } } }, { 'mcp-protocol-version': '2026-07-28' });
    expect(call.body.result.resultType).toBe('complete');
    expect(call.body.result).not.toHaveProperty('ttlMs');
    // the earlier revisions know nothing of either
    const old = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 'd4', method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2025-11-25' });
    expect(Object.keys(old.body.result)).toEqual(['tools']);
  });

  it('keeps to the transport rules: notifications 202, batches -32600, parse errors -32700, GET/DELETE 405', async () => {
    expect((await rpc(t.url, writeKey, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const batch = await rpc(t.url, writeKey, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    expect(batch.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
    const garbage = await request(t.url, 'POST', '/mcp', { token: writeKey, raw: '{nope', headers: MCP_HEADERS });
    expect(garbage.body.error.code).toBe(-32700);
    const noAccept = await request(t.url, 'POST', '/mcp', { token: writeKey, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(noAccept.status).toBe(406);
    // concurrent requests with the same id from different credentials each get their own answer
    const [asWriter, asReader] = await Promise.all([
      rpc(t.url, writeKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      rpc(t.url, readKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    ]);
    expect([asWriter.body.id, asWriter.body.result.tools.length, asReader.body.id, asReader.body.result.tools.length]).toEqual([1, 11, 1, 3]);
    for (const method of ['GET', 'DELETE']) {
      const res = await request(t.url, method, '/mcp', { token: writeKey });
      expect(res.status).toBe(405);
    }
  });

  it('answers a request whose params are malformed with JSON-RPC -32602 Invalid params, not an internal error', async () => {
    const malformed: [string, unknown][] = [
      ['tools/call', undefined],
      ['tools/call', { arguments: { action: 'recent' } }],
      ['tools/call', { name: 'strata_retrieve', arguments: ['recent'] }],
      ['resources/read', {}],
      ['initialize', { capabilities: {} }],
      ['tools/list', { cursor: 7 }],
    ];
    for (const [method, params] of malformed) {
      const res = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 5, method, ...(params === undefined ? {} : { params }) });
      expect([method, res.status, res.body.id, res.body.error?.code]).toEqual([method, 200, 5, -32602]);
    }
    // the same requests well formed are answered
    const ok = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 6, method: 'resources/read', params: { uri: 'strata://stats' } });
    expect(ok.body.result.contents[0].uri).toBe('strata://stats');
  });

  it('authenticates like every route: 401 without a credential, JWTs accepted, Origin checked', async () => {
    const none = await rpc(t.url, undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: 'unauthorized' });
    const bad = await rpc(t.url, 'strata_not_a_key', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(bad.status).toBe(401);
    const jwt = await rpc(t.url, owner.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(jwt.status).toBe(200);
    expect(jwt.body.result.tools).toHaveLength(11);
    const foreign = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example.test' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'forbidden' });
    const allowed = await rpc(t.url, writeKey, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://app.example.test' });
    expect(allowed.status).toBe(200);
  });
});

describe('/mcp and the rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), rateLimitPerMinute: 4 });
  });
  afterAll(() => t.close());

  it('counts each tools/call as one request', async () => {
    const owner = await signUp(t.url);
    const key = (await createApiKey(t.url, owner.access_token, { scopes: ['read'] })).key;
    const list = await rpc(t.url, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.status).toBe(200);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'strata_retrieve', arguments: { action: 'recent' } } };
    for (let i = 0; i < 3; i++) {
      const ok = await rpc(t.url, key, call);
      expect([ok.status, ok.body.result.isError]).toEqual([200, undefined]);
    }
    const limited = await rpc(t.url, key, call);
    expect(limited.body.result).toMatchObject({ isError: true, structuredContent: { code: 'rate_limited', status: 429 } });
    const after = await rpc(t.url, key, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(after.status).toBe(429);
  });

  it('counts a tools/call that reaches no route, and one that makes two route calls, as one request each', async () => {
    const owner = await signUp(t.url);
    const key = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
    const remaining = async () => (await rpc(t.url, key, { jsonrpc: '2.0', id: 9, method: 'tools/list' })).headers.get('x-ratelimit-remaining');
    // an unknown tool and an unknown action are answered before any route: still one request each
    const unknown = await rpc(t.url, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    expect(unknown.body.error.code).toBe(-32602);
    const badAction = await rpc(t.url, key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'strata_retrieve', arguments: { action: 'bogus' } } });
    expect(badAction.body.result).toMatchObject({ isError: true, structuredContent: { code: 'unknown_action' } });
    expect(await remaining()).toBe('1');
    // an article linked to what it covers is written through /batch and read back: one request
    const t2 = await signUp(t.url);
    const key2 = (await createApiKey(t.url, t2.access_token, { scopes: ['read', 'write'] })).key;
    const entity = await rpc(t.url, key2, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'strata_capture', arguments: { action: 'entity', label: 'Ada' } } });
    const uid = entity.body.result.structuredContent.uid;
    const article = await rpc(t.url, key2, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'strata_write_article', arguments: { action: 'create', label: 'On Ada', content: 'c', covers_uid: uid } } });
    expect(article.body.result.structuredContent).toMatchObject({ node_type: 'Article' });
    const list = await rpc(t.url, key2, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect([list.status, list.headers.get('x-ratelimit-remaining')]).toEqual([200, '1']);
  });

  it('answers tools/call and resources/read with the X-RateLimit headers of the request they counted as', async () => {
    const owner = await signUp(t.url);
    const key = (await createApiKey(t.url, owner.access_token, { scopes: ['read'] })).key;
    const call = await rpc(t.url, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'strata_retrieve', arguments: { action: 'recent' } } });
    expect(call.body.result.isError).toBeUndefined();
    expect([call.headers.get('x-ratelimit-limit'), call.headers.get('x-ratelimit-remaining')]).toEqual(['4', '3']);
    expect(call.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    const read = await rpc(t.url, key, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'strata://stats' } });
    expect(read.body.result.contents).toHaveLength(1);
    expect(read.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});
