import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { Api, request } from '../support/http';
import { AnswerRecorder } from '../support/openapi-answers';
import { TestApp, startTestApp } from '../support/test-app';
import { clientServices, ok, world } from '../ontology/ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

/** The operations this file holds to their documented answers: every one must be called below. */
const COVERED = [/^\w+ \/v1\/ontology\//, /^\w+ \/ontology\//];

const TEXT = 'Globex Corporation renewed with Acme Corp. Ada Lovelace and Grace Hopper met in Paris to review it.';

/**
 * The ontology routes (REFERENCE §11) answer what the OpenAPI document says, checked as for
 * the graph routes (test/support/openapi-answers.ts): each call is made over HTTP on a seeded
 * schema and its body validated against the declared 2xx schema, objects closed unless the
 * document leaves them open (node and edge records, props, authored fields).
 */
describe('the OpenAPI document describes what the ontology routes answer', () => {
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  let t: TestApp;
  let doc: any;
  const answers = new AnswerRecorder();
  const { checked, failures } = answers;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'offline' } });
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
    answers.use(doc);
  }, 60_000);
  afterAll(async () => t?.close());

  /** One call, recorded: a wrong status or an undocumented answer is collected, so one run names them all. */
  async function call(c: Api, method: string, url: string, template: string, body?: unknown, status = 200, note = '') {
    const r = await (method === 'GET' ? c.get(url) : method === 'DELETE' ? c.delete(url) : method === 'PATCH' ? c.patch(url, body) : c.post(url, body));
    return answers.record(method, url, template, r, status, note);
  }

  const jobDone = (k: Api, id: string) =>
    eventually(
      async () => {
        const j = (await k.get(`/jobs/${id}`)).body;
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      { what: `job ${id} to finish`, timeoutMs: 20_000, everyMs: 50 },
    );

  it('schemas, types, objects, relations, proposals, extraction and reads', async () => {
    const w = await world(t.url);
    const k = w.k;
    const S = '/v1/ontology/schemas';

    // schemas
    const draft = await call(k, 'POST', S, S, { name: 'Scratch', description: 'to archive' }, 201);
    await call(k, 'PATCH', `${S}/${draft.id}`, `${S}/{id}`, { description: 'edited', semantic_validation_mode: 'advisory' });
    const scratchType = await call(k, 'POST', `${S}/${draft.id}/object-types`, `${S}/{id}/object-types`, { name: 'Widget', fields: [{ name: 'sku', type: 'string', required: true }], identity_fields: ['sku'] }, 201);
    await call(k, 'PATCH', `${S}/${draft.id}/object-types/${scratchType.id}`, `${S}/{id}/object-types/{type_id}`, { description: 'a widget', default_confidence: 0.9 });
    const gadget = ok(await k.post(`${S}/${draft.id}/object-types`, { name: 'Gadget' }), 201);
    const rel = await call(k, 'POST', `${S}/${draft.id}/relation-types`, `${S}/{id}/relation-types`, { name: 'fits', source_type: 'Widget', target_type: 'Gadget', cardinality: 'many_to_many' }, 201);
    await call(k, 'PATCH', `${S}/${draft.id}/relation-types/${rel.id}`, `${S}/{id}/relation-types/{type_id}`, { description: 'fits into', symmetric: false });
    await call(k, 'POST', `${S}/${draft.id}/semantic-guidance/analyze`, `${S}/{id}/semantic-guidance/analyze`, {});
    await call(k, 'DELETE', `${S}/${draft.id}/relation-types/${rel.id}`, `${S}/{id}/relation-types/{type_id}`);
    await call(k, 'DELETE', `${S}/${draft.id}/object-types/${gadget.id}`, `${S}/{id}/object-types/{type_id}`);
    await call(k, 'POST', `${S}/${draft.id}/activate`, `${S}/{id}/activate`, {});
    await call(k, 'POST', `${S}/${draft.id}/deprecate`, `${S}/{id}/deprecate`, {});
    await call(k, 'DELETE', `${S}/${draft.id}`, `${S}/{id}`);

    const s = await clientServices(k);
    await call(k, 'GET', S, S);
    await call(k, 'GET', `${S}/${s.schema.id}`, `${S}/{id}`);

    // objects and relations
    const acme = await call(k, 'POST', '/v1/ontology/objects', '/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme Corporation', aliases: ['Acme Corp'], fields: { code: 'AC', tier: 'gold' } }, 201);
    const globex = ok(await k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Globex Shipping', fields: { code: 'GX' } }), 201);
    const contract = ok(await k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Contract', canonical_name: 'Rocket supply', fields: { number: 'C-1', client: acme.uid } }), 201);
    await call(k, 'PATCH', `/v1/ontology/objects/${acme.uid}`, '/v1/ontology/objects/{uid}', { fields: { tier: 'silver' }, reason: 'downgraded', expected_version: acme.object.version });
    await call(k, 'POST', '/ontology/relation', '/ontology/relation', { from_uid: acme.uid, to_uid: contract.uid, relation_type: 'has_contract' }, 201, 'created');
    await call(k, 'POST', '/ontology/relation', '/ontology/relation', { from_uid: acme.uid, to_uid: contract.uid, relation_type: 'has_contract' }, 200, 'existing');
    ok(await k.post('/ontology/relation', { from_uid: acme.uid, to_uid: globex.uid, relation_type: 'partner_of' }), 201);
    const claim = ok(await k.post('/node', { node_type: 'Claim', label: 'Acme will double its launches' }), 201).uid;
    ok(await k.post('/edge', { from_uid: claim, to_uid: acme.uid, edge_type: 'RelevantTo' }), 201);
    const docUid = ok(await k.post('/node', { node_type: 'Document', label: 'Orion brief', props: { title: 'Orion brief', document_type: 'article' } }), 201).uid;
    const src = ok(await k.post('/node', { node_type: 'Chunk', label: 'notes · chunk 0', props: { content: TEXT, chunk_type: 'text', chunk_index: 0 } }), 201).uid;
    ok(await k.post('/edge', { from_uid: src, to_uid: docUid, edge_type: 'ChunkOf' }), 201);
    ok(await k.post('/edge', { from_uid: acme.uid, to_uid: src, edge_type: 'ExtractedFrom' }), 201);
    // a second object with Acme's identity, allowed: the audit has a collision to report
    ok(await k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme again', fields: { code: 'AC' }, allow_duplicate: true }), 201);

    await call(k, 'GET', `/ontology/objects?schema_id=${s.schema.id}`, '/ontology/objects');
    await call(k, 'GET', `/ontology/object/${acme.uid}`, '/ontology/object/{uid}');
    await call(k, 'GET', `/ontology/object/${acme.uid}/history`, '/ontology/object/{uid}/history');
    await call(k, 'GET', `/ontology/object/${acme.uid}/context?depth=3`, '/ontology/object/{uid}/context');
    await call(k, 'POST', '/ontology/objects/search', '/ontology/objects/search', { query: 'acme', schema_id: s.schema.id });
    await call(k, 'POST', '/ontology/query', '/ontology/query', { query: 'acme contract', schema_id: s.schema.id, depth: 2 });
    await call(k, 'POST', '/ontology/query', '/ontology/query', { query: 'acme', schema_id: s.schema.id, limit: 1, include_cognitive_context: false, include_sources: false }, 200, 'narrow');
    await call(k, 'POST', `${S}/${s.schema.id}/test`, `${S}/{id}/test`, { example_queries: ['acme', 'nothing like it'] });
    await call(k, 'POST', `${S}/${s.schema.id}/duplicates/audit`, `${S}/{id}/duplicates/audit`, {});

    // extraction and proposals: contacts are high risk (an Approval node each), clients pending
    ok(await k.patch(`${S}/${s.schema.id}/object-types/${s.person.id}`, { review_policy: 'always', extraction_hints: { categories: ['person'], risk_level: 'high' } }), 200);
    const started = await call(k, 'POST', '/ontology/extract', '/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: [src], mode: 'propose_only' }, 202);
    await jobDone(k, started.job_id);
    const P = '/v1/ontology/proposals';
    const list = await call(k, 'GET', `${P}?extract_job_id=${started.job_id}`, P);
    const items: any[] = list.items ?? [];
    const pending = items.filter((p) => p.review_status === 'pending');
    const high = items.filter((p) => p.review_status === 'approval_required');
    expect([pending.length >= 1, high.length >= 2]).toEqual([true, true]);
    await call(k, 'GET', `${P}/${pending[0].id}`, `${P}/{id}`);
    await call(k, 'PATCH', `${P}/${pending[0].id}`, `${P}/{id}`, { edits: { aliases: ['Globex Corp'], fields: { code: 'GC' } } });
    await call(k, 'POST', `${P}/${pending[0].id}/approve`, `${P}/{id}/approve`, { feedback: 'fine' });
    await call(k, 'POST', `${P}/${pending[0].id}/apply`, `${P}/{id}/apply`, {}, 200, 'already applied');
    await call(k, 'POST', `${P}/${high[0].id}/reject`, `${P}/{id}/reject`, { reason: 'not a contact' });
    await call(k, 'POST', `${P}/batch-approve`, `${P}/batch-approve`, { ids: [high[1].id, 'nope'] });
    await call(k, 'POST', `${P}/batch-reject`, `${P}/batch-reject`, { ids: [high[1].id], reason: 'late' });

    // a proposed schema (offline provider)
    const proposed = await call(k, 'POST', '/v1/ontology/propose-schema', '/v1/ontology/propose-schema', { description: 'Clients, contracts and contacts', template_hint: 'client_services' }, 202);
    await jobDone(k, proposed.job_id);
    await call(k, 'GET', `${S}/${proposed.schema_id}`, `${S}/{id}`, undefined, 200, 'proposed');

    expect(failures).toEqual([]);
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => COVERED.some((re) => re.test(op)));
    expect(ops.filter((op) => !checked.has(op))).toEqual([]);
  });
});
