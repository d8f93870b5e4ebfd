import { ScriptedChatReply, ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { Api } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { clientServices, ok, world } from '../ontology/ontology-fixture';

const FILLER = 'The renewal covers three more years of support and training for the whole team, with quarterly reviews of the service levels that were agreed last spring.';
const FIRST = `Globex Corporation renewed its contract with Acme Corp. Ada Lovelace will lead the account. ${FILLER}`;
const SECOND = `Grace Hopper met the Globex Corporation team in Paris. Ada Lovelace joined them later that week. ${FILLER}`;
const DOCUMENT = `Account notes\n\n${FIRST}\n\n${SECOND}`;

const finished = (k: Api, id: string) =>
  eventually(
    async () => {
      const j = (await k.get(`/jobs/${id}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(j.status) ? j : null;
    },
    { what: `job ${id} finished`, timeoutMs: 20_000 },
  );

type Proposal = { id: string; object_type: string; review_status: string; source_uids: string[]; extract_job_id: string | null; proposed_node_uid: string | null; approval_uid: string | null; confidence: number; changes_json: { adds: { canonical_name: string }[] } };
const nameOf = (p: Proposal) => p.changes_json.adds[0].canonical_name;
const location = (e: { props: { location?: string } }) => (e.props.location ? JSON.parse(e.props.location) : null);

describe('the ontology layer of ingestion (offline provider)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm, rateLimitPerMinute: 10_000_000 });
  }, 60_000);
  afterAll(() => t.close());

  it('a document ingested with `ontology` and no schema id uses the most recently activated schema: proposals, objects per review policy, cited chunks', async () => {
    const w = await world(t.url);
    // created first, activated last: the default is the most recently activated, not the newest
    const s = await clientServices(w.k, { activate: false });
    const other = ok(await w.k.post('/v1/ontology/schemas', { name: 'Other' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${other.id}/object-types`, { name: 'Venue', extraction_hints: { categories: ['place'] }, review_policy: 'never' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${other.id}/activate`, {}), 200);
    ok(await w.k.post(`/v1/ontology/schemas/${s.schema.id}/activate`, {}), 200);
    const acme = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme Corp', fields: { code: 'AC-1' } }), 201);

    const res = ok(await w.k.post('/ingest/document', { content: DOCUMENT, chunk_size: 100, chunk_overlap: 0, layers: ['reality', 'ontology'] }), 202);
    const job = await finished(w.k, res.job_id);
    expect(job.status).toBe('completed');
    expect(job.result.errors).toEqual([]);
    expect(job.result.chunks_completed).toBe(2);
    // Globex (a Client: review_policy always) is proposed once though both chunks name it;
    // Ada Lovelace and Grace Hopper (ClientContact: never) are applied; Acme is cited, then Ada from the second chunk
    expect(job.result.ontology).toEqual({ schema_id: s.schema.id, proposals_created: 3, auto_applied: 2, objects_linked: 2 });

    const chunks = (await w.k.get(`/edges?to_uid=${res.document_uid}&edge_type=ChunkOf`)).body;
    const byIndex = new Map<number, string>((chunks.items ?? chunks).map((e: { from_uid: string; props: { chunk_index: number } }) => [e.props.chunk_index, e.from_uid]));
    const [first, second] = [byIndex.get(0)!, byIndex.get(1)!];

    const proposals: Proposal[] = ok(await w.k.get(`/v1/ontology/proposals?extract_job_id=${res.job_id}`), 200).items;
    expect(proposals.map((p) => [nameOf(p), p.object_type, p.review_status]).sort()).toEqual([
      ['Ada Lovelace', 'ClientContact', 'applied'],
      ['Globex Corporation', 'Client', 'pending'],
      ['Grace Hopper', 'ClientContact', 'applied'],
    ]);
    const byName = new Map(proposals.map((p) => [nameOf(p), p]));
    expect(byName.get('Globex Corporation')).toMatchObject({ source_uids: [first], confidence: 0.6, proposed_node_uid: null });
    expect(byName.get('Grace Hopper')!.source_uids).toEqual([second]);
    // nothing of the Other schema's place type: only the default schema ran
    expect(ok(await w.k.get(`/ontology/objects?schema_id=${other.id}`), 200).items).toEqual([]);

    const ada = byName.get('Ada Lovelace')!.proposed_node_uid!;
    const object = ok(await w.k.get(`/ontology/object/${ada}`), 200);
    expect(object).toMatchObject({ layer: 'ontology', node_type: 'ClientContact', props: { canonical_name: 'Ada Lovelace', schema_id: s.schema.id, source_uids: [first], review_status: 'approved' } });
    // cited: ExtractedFrom to each chunk that names it, with the anchored quote
    const adaLinks = (await w.k.get(`/edges?from_uid=${ada}&edge_type=ExtractedFrom`)).body;
    const links = (adaLinks.items ?? adaLinks) as { to_uid: string; props: { method: string; confidence: number; location?: string } }[];
    expect(links.map((e) => e.to_uid).sort()).toEqual([first, second].sort());
    for (const e of links) {
      expect(e.props).toMatchObject({ method: 'offline', confidence: 0.6 });
      expect(location(e)).toMatchObject({ exact: 'Ada Lovelace' });
    }
    const acmeLinks = (await w.k.get(`/edges?from_uid=${acme.uid}&edge_type=ExtractedFrom`)).body;
    expect((acmeLinks.items ?? acmeLinks).map((e: { to_uid: string }) => e.to_uid)).toEqual([first]);
    expect(location((acmeLinks.items ?? acmeLinks)[0])).toMatchObject({ exact: 'Acme Corp' });
    // the chunks' extraction counts hold the objects they cite
    expect(job.result.extracted_node_uids).toEqual(expect.arrayContaining([ada, acme.uid, byName.get('Grace Hopper')!.proposed_node_uid]));

    // a reviewer approves the pending Client: it becomes an object, cited by its source chunk
    const approved = ok(await w.k.post(`/v1/ontology/proposals/${byName.get('Globex Corporation')!.id}/approve`, { edits: { fields: { code: 'GX' } } }), 200);
    expect(approved.review_status).toBe('applied');
    expect(ok(await w.k.get(`/ontology/objects?schema_id=${s.schema.id}&object_type=Client&sort=canonical_name`), 200).items.map((o: { label: string }) => o.label)).toEqual(['Acme Corp', 'Globex Corporation']);
  });

  it('/ingest/chunk with an ontology_schema_id: low confidence stays pending, a high-risk type waits on an Approval, applied objects are in the answer', async () => {
    const w = await world(t.url);
    const schema = ok(await w.k.post('/v1/ontology/schemas', { name: 'Field work' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${schema.id}/object-types`, { name: 'Employer', extraction_hints: { categories: ['organization'] }, review_policy: 'low_confidence' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${schema.id}/object-types`, { name: 'Staff', extraction_hints: ['person'], review_policy: 'never' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${schema.id}/object-types`, { name: 'Site', extraction_hints: { categories: ['place'], risk_level: 'high' } }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${schema.id}/activate`, {}), 200);

    const res = ok(await w.k.post('/ingest/chunk', { content: 'Initech Inc hired Peter Gibbons in Austin.', ontology_schema_id: schema.id }), 201);
    expect(res.layers).toEqual(['reality', 'epistemic', 'memory', 'ontology']);
    expect(res.errors).toEqual([]);
    const proposals: Proposal[] = ok(await w.k.get(`/v1/ontology/proposals?schema_id=${schema.id}`), 200).items;
    const byName = new Map(proposals.map((p) => [nameOf(p), p]));
    // offline confidence 0.6 < the type's default_confidence 0.8: left for review
    expect(byName.get('Initech Inc')).toMatchObject({ object_type: 'Employer', review_status: 'pending', extract_job_id: null, source_uids: [res.chunk_uid] });
    expect(byName.get('Peter Gibbons')).toMatchObject({ object_type: 'Staff', review_status: 'applied' });
    const site = byName.get('Austin')!;
    expect(site).toMatchObject({ object_type: 'Site', review_status: 'approval_required', approval_uid: expect.any(String) });
    expect(ok(await w.k.get(`/node/${site.approval_uid}`), 200)).toMatchObject({ node_type: 'Approval', props: { target_uid: site.id, status: 'pending' } });
    expect(res.extracted_node_uids).toContain(byName.get('Peter Gibbons')!.proposed_node_uid);
  });

  it('refuses an unknown or inactive schema, and `ontology` with none active, before anything is written', async () => {
    const w = await world(t.url);
    const before = (await w.k.get('/nodes?node_type=Chunk')).body.items.length;
    expect((await w.k.post('/ingest/chunk', { content: 'Acme Corp', layers: ['ontology'] })).body.code).toBe('schema_not_active');
    const draft = ok(await w.k.post('/v1/ontology/schemas', { name: 'Draft' }), 201);
    const inactive = await w.k.post('/ingest/document', { content: 'Acme Corp signed.', ontology_schema_id: draft.id });
    expect([inactive.status, inactive.body.code]).toEqual([409, 'schema_not_active']);
    const unknown = await w.k.post('/ingest/chunk', { content: 'Acme Corp signed.', ontology_schema_id: '00000000-0000-4000-8000-000000000000' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    // another organization's active schema is as unknown as a missing one
    const other = await world(t.url);
    const theirs = await clientServices(other.k);
    const foreign = await w.k.post('/ingest/session', { content: 'Acme Corp signed.', ontology_schema_id: theirs.schema.id });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    expect((await w.k.get('/nodes?node_type=Chunk')).body.items.length).toBe(before);
    expect((await w.k.get('/nodes?node_type=Document')).body.items).toEqual([]);
  });
});

const KEY = 'sk-ingest-ontology-SECRET-19cd';

/** The scripted model names the entities of the text it is given (and one it does not hold). */
function entities(req: { body: unknown }): ScriptedChatReply {
  const prompt = JSON.stringify(req.body);
  const found = [
    { text: 'Globex Corporation', category: 'organization' },
    { text: 'Ada Lovelace', category: 'person' },
    { text: 'Initech', category: 'organization' },
  ].filter((e) => prompt.includes(e.text) || e.text === 'Initech');
  return { type: 'json', value: { entities: found }, usage: { input: 40, output: 8 } };
}

describe('the ontology layer of ingestion with a model (scripted OpenAI server over HTTP)', () => {
  let llm: ScriptedOpenAIChatServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: KEY, defaultReply: entities });
    t = await startTestApp({
      clock: new FixedClock(at('2030-01-01T00:00:00Z')),
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' },
    });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('the model names the entities (one call per chunk, metered); names the text lacks are dropped; citations say "llm"', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const asked = llm.requests.length;
    const res = ok(await w.k.post('/ingest/chunk', { content: 'Globex Corporation hired Ada Lovelace.', layers: ['ontology'] }), 201);
    expect(llm.requests.length).toBe(asked + 1);
    expect(res.errors).toEqual([]);
    const proposals: Proposal[] = ok(await w.k.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`), 200).items;
    expect(proposals.map((p) => [nameOf(p), p.review_status, p.confidence]).sort()).toEqual([
      ['Ada Lovelace', 'applied', 0.8],
      ['Globex Corporation', 'pending', 0.8],
    ]);
    const ada = proposals.find((p) => nameOf(p) === 'Ada Lovelace')!.proposed_node_uid!;
    const links = (await w.k.get(`/edges?from_uid=${ada}&edge_type=ExtractedFrom`)).body;
    expect((links.items ?? links).map((e: { to_uid: string; props: { method: string } }) => [e.to_uid, e.props.method])).toEqual([[res.chunk_uid, 'llm']]);
    expect((await w.k.get('/v1/usage')).body.llm).toMatchObject({ calls: 1, input_tokens: 40, output_tokens: 8 });
    expect(JSON.stringify(proposals)).not.toContain(KEY);
  });

  it('a model failing the ontology pass (its only pass) is 502 upstream_error with nothing written', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    llm.enqueue({ type: 'json', value: { nope: 1 } }, { type: 'json', value: { nope: 2 } });
    const res = await w.k.post('/ingest/chunk', { content: 'Globex Corporation hired Ada Lovelace.', ontology_schema_id: s.schema.id, layers: ['ontology'] });
    expect([res.status, res.body.code]).toEqual([502, 'upstream_error']);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect((await w.k.get('/nodes?node_type=Chunk')).body.items).toEqual([]);
    expect(ok(await w.k.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`), 200).items).toEqual([]);
  });
});
