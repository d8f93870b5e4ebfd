import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import { RecordedChatRequest, ScriptedChatReply, ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const KEY = 'sk-ingest-e2e-SECRET-5f1c';
const TEXT = 'Ada Lovelace worked with Charles Babbage in London. The analytical engine could compute Bernoulli numbers.';

type Scripted = ScriptedOpenAIChatServer | ScriptedAnthropicServer;

/** how the scripted model answers (a test swaps it for a while) */
let reply: (req: RecordedChatRequest) => ScriptedChatReply = (req) => answer(req);
const setDefault = (r: typeof reply) => (reply = r);

/** the layer a pass asks about, read from its prompt */
const layerOf = (req: RecordedChatRequest): string => /Layer: (\w+)\./.exec(JSON.stringify(req.body))?.[1] ?? 'unknown';

/** A model that reads the chunk: Ada Lovelace (reality) and a Claim (epistemic), quoted verbatim. */
function answer(req: RecordedChatRequest): ScriptedChatReply {
  const layer = layerOf(req);
  const prompt = JSON.stringify(req.body);
  if (layer === 'reality' && prompt.includes('Ada Lovelace'))
    return { type: 'json', value: { nodes: [{ node_type: 'Person', label: 'Ada Lovelace', quote: 'Ada Lovelace', confidence: 0.93, props: { full_name: 'Ada Lovelace' } }] }, usage: { input: 100, output: 20 } };
  if (layer === 'epistemic' && prompt.includes('Bernoulli'))
    return {
      type: 'json',
      value: { nodes: [{ node_type: 'Claim', label: 'The engine computes Bernoulli numbers', quote: 'The analytical engine could compute Bernoulli numbers.', confidence: 0.81, props: { content: 'The analytical engine could compute Bernoulli numbers.' } }] },
      usage: { input: 100, output: 20 },
    };
  return { type: 'json', value: { nodes: [] }, usage: { input: 100, output: 5 } };
}

const providers: { name: 'openai' | 'anthropic'; start: () => Promise<Scripted>; asksForSchema: (req: RecordedChatRequest) => boolean; keyOf: (req: RecordedChatRequest) => unknown }[] = [
  {
    name: 'openai',
    start: () => ScriptedOpenAIChatServer.start({ apiKey: KEY, defaultReply: (req) => reply(req) }),
    asksForSchema: (req) => req.body.response_format?.type === 'json_schema',
    keyOf: (req) => req.headers.authorization,
  },
  {
    name: 'anthropic',
    start: () => ScriptedAnthropicServer.start({ apiKey: KEY, defaultReply: (req) => reply(req) }),
    asksForSchema: (req) => Array.isArray(req.body.tools) && req.body.tool_choice?.type === 'tool',
    keyOf: (req) => req.headers['x-api-key'],
  },
];

describe.each(providers)('ingestion with the $name provider (scripted server over HTTP)', ({ name, start, asksForSchema, keyOf }) => {
  let llm: Scripted;
  let t: TestApp;
  let key: string;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));

  beforeAll(async () => {
    llm = await start();
    const cfg = loadConfig({ STRATA_LLM_PROVIDER: name, STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted', STRATA_LLM_TIMEOUT_MS: '5000' });
    t = await startTestApp({ clock, llm: cfg.llm, rateLimitPerMinute: 10_000_000, captureLogs: true });
    const s = await signUp(t.url);
    key = (await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] })).key;
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  const finished = (c: ReturnType<typeof api>, id: string) =>
    eventually(
      async () => {
        const r = await c.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 50 },
    );

  it('/ingest/chunk: one structured call per layer, nodes with the model’s confidence and method "llm", anchored quotes, tokens metered, no key or prompt kept', async () => {
    const c = api(t.url, key);
    const asked = llm.requests.length;
    const res = await c.post('/ingest/chunk', { content: TEXT, layers: ['reality', 'epistemic'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ layers: ['reality', 'epistemic'], nodes_created: 2, edges_created: 2, errors: [] });
    const calls = llm.requests.slice(asked);
    expect(calls.map(layerOf).sort()).toEqual(['epistemic', 'reality']);
    for (const req of calls) {
      expect(asksForSchema(req)).toBe(true);
      expect(String(keyOf(req))).toContain(KEY);
    }
    const edges = (await c.get(`/edges?to_uid=${res.body.chunk_uid}&edge_type=ExtractedFrom`)).body;
    const items = edges.items ?? edges;
    expect(items).toHaveLength(2);
    const bytes = Buffer.from(TEXT, 'utf8');
    for (const e of items) {
      expect(e.props.method).toBe('llm');
      const loc = JSON.parse(e.props.location);
      expect(bytes.subarray(loc.start, loc.end).toString('utf8')).toBe(loc.exact);
    }
    const ada = (await c.get('/nodes?node_type=Person')).body.items.find((n: { label: string }) => n.label === 'Ada Lovelace');
    expect(ada.confidence).toBe(0.93);
    expect((await c.get('/v1/usage')).body.llm).toMatchObject({ calls: 2, input_tokens: 200, output_tokens: 40 });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(t.logs.join('\n')).not.toContain(KEY);
  });

  it('/ingest/document: a job extracts every chunk through the model and reuses the entities it already knows', async () => {
    const c = api(t.url, key);
    const content = Array.from({ length: 6 }, (_, i) => `Part ${i}. ${TEXT}`).join('\n\n');
    const res = await c.post('/ingest/document', { content, title: 'Model notes', layers: ['reality', 'epistemic'], chunk_size: 100, chunk_overlap: 0 });
    expect(res.status).toBe(202);
    const job = await finished(c, res.body.job_id);
    expect(job.status).toBe('completed');
    expect(job.progress.total_chunks).toBeGreaterThan(1);
    expect(job.result).toMatchObject({ chunks_failed: 0, errors: [] });
    expect(job.result.chunks_completed).toBe(job.progress.total_chunks);
    // the same Person and Claim in every chunk: found again, not created again
    expect((await c.get('/nodes?node_type=Person')).body.items.filter((n: { label: string }) => n.label === 'Ada Lovelace')).toHaveLength(1);
    expect(job.result.nodes_deduplicated).toBeGreaterThan(0);
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.processing_status).toBe('completed');
    expect(JSON.stringify(job)).not.toContain(KEY);
    expect(JSON.stringify(job)).not.toContain('Layer:');
  });

  it('a pass whose answer fails the schema twice is listed in errors, the others stand', async () => {
    const c = api(t.url, key);
    const bad: ScriptedChatReply = { type: 'json', value: { nodes: [{ node_type: 'Spaceship', label: 'x' }] } };
    // the passes of one chunk run at once: the one that reads the reality layer gets the bad answers
    const pending: ScriptedChatReply[] = [bad, bad];
    const seen: string[] = [];
    const withBadReality = (req: RecordedChatRequest): ScriptedChatReply => {
      seen.push(layerOf(req));
      return layerOf(req) === 'reality' && pending.length ? pending.shift()! : answer(req);
    };
    setDefault(withBadReality);
    try {
      const res = await c.post('/ingest/chunk', { content: `${TEXT} Once more.`, layers: ['reality', 'epistemic'] });
      expect(res.status).toBe(201);
      expect(res.body.errors).toEqual([{ layer: 'reality', error: expect.stringContaining('structured output invalid after a retry') }]);
      expect(res.body.nodes_deduplicated + res.body.nodes_created).toBe(1);
      expect(seen.filter((l) => l === 'reality')).toHaveLength(2);
    } finally {
      setDefault(answer);
    }
  });

  it('every pass failing answers 502 upstream_error and writes nothing; the provider’s body never shows', async () => {
    const c = api(t.url, key);
    const before = (await c.get('/nodes?node_type=Chunk')).body.items.length;
    setDefault(() => ({ type: 'error', status: 400, echoRequest: true }));
    try {
      const res = await c.post('/ingest/chunk', { content: 'A chunk no model can read.', layers: ['reality', 'epistemic'] });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('upstream_error');
      expect(JSON.stringify(res.body)).not.toContain(KEY);
      expect(JSON.stringify(res.body)).not.toContain('no model can read');
    } finally {
      setDefault(answer);
    }
    expect((await c.get('/nodes?node_type=Chunk')).body.items.length).toBe(before);
  });
});
