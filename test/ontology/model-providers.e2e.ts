import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import { RecordedChatRequest, ScriptedChatReply, ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

const KEY = 'sk-ontology-e2e-SECRET-77ab';
const TEXT = 'Globex Corporation renewed with Acme Corp. Ada Lovelace and Grace Hopper met in Paris to review it.';

/** The scripted model names the entities it reads; one name the text does not hold is dropped. */
function entities(req: RecordedChatRequest): ScriptedChatReply {
  const prompt = JSON.stringify(req.body);
  const found = [
    { text: 'Globex Corporation', category: 'organization' },
    { text: 'Ada Lovelace', category: 'person' },
    { text: 'Paris', category: 'place' },
    { text: 'Initech', category: 'organization' },
  ].filter((e) => prompt.includes(e.text) || e.text === 'Initech');
  return { type: 'json', value: { entities: found }, usage: { input: 50, output: 10 } };
}

const providers: { name: 'openai' | 'anthropic'; start: () => Promise<ScriptedOpenAIChatServer | ScriptedAnthropicServer> }[] = [
  { name: 'openai', start: () => ScriptedOpenAIChatServer.start({ apiKey: KEY, defaultReply: entities }) },
  { name: 'anthropic', start: () => ScriptedAnthropicServer.start({ apiKey: KEY, defaultReply: entities }) },
];

describe.each(providers)('model-backed ontology routes with the $name provider (scripted server over HTTP)', ({ name, start }) => {
  let llm: ScriptedOpenAIChatServer | ScriptedAnthropicServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await start();
    t = await startTestApp({
      clock: new FixedClock(at('2030-01-01T00:00:00Z')),
      env: { STRATA_LLM_PROVIDER: name, STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' },
    });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  const job = (k: Api, id: string) =>
    eventually(
      async () => {
        const j = (await k.get(`/jobs/${id}`)).body;
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      { what: `job ${id} finished` },
    );

  it('/ontology/extract: the model names the entities; known objects are linked and typed ones proposed, method "llm"; tokens metered', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const globex = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Globex Corporation', fields: { code: 'GX' } }), 201);
    const src = ok(await w.k.post('/node', { node_type: 'Chunk', label: 'notes', props: { content: TEXT, chunk_type: 'text', chunk_index: 0 } }), 201).uid;
    const asked = llm.requests.length;
    const started = ok(await w.k.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: [src] }), 202);
    const done = await job(w.k, started.job_id);
    expect(done.status).toBe('completed');
    expect(llm.requests.length).toBe(asked + 1);
    expect(JSON.stringify(llm.requests[asked].body)).toContain('Ada Lovelace');
    expect(done.result.objects_linked).toBe(1);
    const links = (await w.k.get(`/edges?from_uid=${globex.uid}&edge_type=ExtractedFrom`)).body;
    expect(links.map((e: { to_uid: string; props: { method: string } }) => [e.to_uid, e.props.method])).toEqual([[src, 'llm']]);
    // Ada Lovelace (a person the Person type asks for) is proposed; Initech, not in the text, is not
    const proposals = ok(await w.k.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`), 200).items;
    const names = proposals.map((p: { changes_json: { adds: { canonical_name: string }[] } }) => p.changes_json.adds[0]?.canonical_name);
    expect(names).toContain('Ada Lovelace');
    expect(names).not.toContain('Initech');
    expect((await w.k.get('/v1/usage')).body.llm).toMatchObject({ calls: 1, input_tokens: 50, output_tokens: 10 });
    expect(JSON.stringify(done)).not.toContain(KEY);
  });

  it('/v1/ontology/propose-schema: the template plus a type per category the model found', async () => {
    const w = await world(t.url);
    const r = ok(await w.k.post('/v1/ontology/propose-schema', { description: 'partners', source_documents: [{ content: TEXT }] }), 202);
    expect((await job(w.k, r.job_id)).status).toBe('completed');
    const s = ok(await w.k.get(`/v1/ontology/schemas/${r.schema_id}`), 200);
    expect(s.propose_status).toBe('ready');
    expect(s.object_types.map((o: { name: string }) => o.name)).toEqual(['Company', 'Contact', 'Site']);
    expect(s.object_types[0].examples_json.map((e: { canonical_name: string }) => e.canonical_name)).toEqual(['Globex Corporation']);
  });

  it('semantic guidance answers under a vendor provider too', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const r = ok(await w.k.post(`/v1/ontology/schemas/${s.schema.id}/semantic-guidance/analyze`, {}), 200);
    expect(r).toMatchObject({ schema_id: s.schema.id, review_required: true });
  });

  it('a model failing every attempt fails the job and writes no proposal', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const src = ok(await w.k.post('/node', { node_type: 'Chunk', label: 'more', props: { content: 'Grace Hopper visited Boston.', chunk_type: 'text', chunk_index: 0 } }), 201).uid;
    llm.enqueue({ type: 'json', value: { nope: 1 } }, { type: 'json', value: { nope: 2 } });
    const started = ok(await w.k.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: [src] }), 202);
    const done = await job(w.k, started.job_id);
    expect(done.status).toBe('failed');
    expect(JSON.stringify(done)).not.toContain(KEY);
    expect(ok(await w.k.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`), 200).items).toHaveLength(0);
  });
});
