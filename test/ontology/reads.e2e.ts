import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

async function mk(k: Api, node_type: string, label: string, props?: Record<string, unknown>): Promise<string> {
  return ok(await k.post('/node', { node_type, label, props }), 201).uid;
}
async function link(k: Api, from_uid: string, to_uid: string, edge_type: string): Promise<string> {
  return ok(await k.post('/edge', { from_uid, to_uid, edge_type }), 201).uid;
}

describe('ontology reads: search, context, query, schema test; scope', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  /**
   * Acme (Client) has contract C-1 and partner Globex; a Claim and a Task are about Acme; Acme
   * was extracted from a chunk of a document of Project Orion.
   */
  async function seed() {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const obj = async (object_type: string, canonical_name: string, fields: Record<string, unknown>, aliases: string[] = []) =>
      ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type, canonical_name, fields, aliases }), 201).uid as string;
    const acme = await obj('Client', 'Acme Rockets', { code: 'AC', tier: 'gold' }, ['Acme']);
    const globex = await obj('Client', 'Globex Shipping', { code: 'GX' });
    const contract = await obj('Contract', 'Rocket supply agreement', { number: 'C-1', client: acme });
    ok(await w.k.post('/ontology/relation', { from_uid: acme, to_uid: contract, relation_type: 'has_contract' }), 201);
    ok(await w.k.post('/ontology/relation', { from_uid: acme, to_uid: globex, relation_type: 'partner_of' }), 201);
    const claim = await mk(w.k, 'Claim', 'Acme will double its launches');
    await link(w.k, claim, acme, 'RelevantTo');
    const task = await mk(w.k, 'Task', 'Call Acme about renewal');
    await link(w.k, task, acme, 'RelevantTo');
    const project = await mk(w.k, 'Project', 'Orion');
    const doc = await mk(w.k, 'Document', 'Orion brief', { title: 'Orion brief', document_type: 'article' });
    const chunk = await mk(w.k, 'Chunk', 'Orion brief · chunk 0', { content: 'Acme Rockets supplies Orion', chunk_index: 0 });
    await link(w.k, chunk, doc, 'ChunkOf');
    await link(w.k, doc, project, 'PartOfProject');
    await link(w.k, acme, chunk, 'ExtractedFrom');
    return { ...w, ...s, acme, globex, contract, claim, task, project, doc, chunk };
  }

  it('searches objects (hybrid, fts leg without embeddings) within a schema and types', async () => {
    const w = await seed();
    const r = ok(await w.k.post('/ontology/objects/search', { query: 'acme rockets', schema_id: w.schema.id }), 200);
    expect(r.items[0].object.uid).toBe(w.acme.valueOf());
    expect(r.items[0].score).toBeGreaterThan(0);
    expect(r.items.every((i: any) => i.object.layer === 'ontology')).toBe(true);
    const contracts = ok(await w.k.post('/ontology/objects/search', { query: 'rocket', object_types: ['contract'] }), 200);
    expect(contracts.items.map((i: any) => i.object.uid)).toEqual([w.contract]);
    expect((await w.k.post('/ontology/objects/search', {})).body).toMatchObject({ code: 'missing_field', field: 'query' });
    // found by a value of its fields, not only by its name
    const byField = ok(await w.k.post('/ontology/objects/search', { query: 'gold', schema_id: w.schema.id }), 200);
    expect(byField.items[0].object.uid).toBe(w.acme);
    const byNumber = ok(await w.k.post('/ontology/objects/search', { query: 'C-1', schema_id: w.schema.id }), 200);
    expect(byNumber.items[0].object.uid).toBe(w.contract);
    expect((await w.k.post('/ontology/objects/search', { query: 'x', limit: 0 })).body).toMatchObject({ code: 'invalid_field', field: 'limit' });
  });

  it('context: relations, related objects, cognitive context and sources, by depth', async () => {
    const w = await seed();
    const c1 = ok(await w.k.get(`/ontology/object/${w.acme}/context?depth=1`), 200);
    expect(c1.depth).toBe(1);
    expect(c1.object.uid).toBe(w.acme);
    expect(c1.relations.map((e: any) => e.edge_type).sort()).toEqual(['HasContract', 'PartnerOf']);
    expect(c1.related_objects.map((o: any) => o.uid).sort()).toEqual([w.contract, w.globex].sort());
    expect(c1.cognitive_context.claims.map((n: any) => n.uid)).toEqual([w.claim]);
    expect(c1.cognitive_context.tasks.map((n: any) => n.uid)).toEqual([w.task]);
    expect(c1.sources).toEqual([{ uid: w.chunk, title: 'Orion brief · chunk 0', node_type: 'Chunk' }]);
    const c2 = ok(await w.k.get(`/ontology/object/${w.acme}/context`), 200);
    expect(c2.depth).toBe(2);
    expect(c2.sources.map((s: any) => s.uid).sort()).toEqual([w.chunk, w.doc].sort());
    expect((await w.k.get(`/ontology/object/${w.acme}/context?depth=4`)).body).toMatchObject({ code: 'invalid_field', field: 'depth' });
    expect((await w.k.get(`/ontology/object/${w.claim}/context`)).status).toBe(404);
  });

  it('query: objects, relations, cognitive context by type, provenance, truncation flags', async () => {
    const w = await seed();
    // the semantic leg (built-in embedder, filled in the background) may add weak matches;
    // the best match is Acme either way
    const q = ok(await w.k.post('/ontology/query', { query: 'acme', schema_id: w.schema.id, limit: 1 }), 200);
    expect(q.objects.map((o: any) => o.uid)).toEqual([w.acme]);
    expect(q.relations).toHaveLength(2);
    expect(Object.keys(q.cognitive_context).sort()).toEqual(['Claim', 'Task']);
    expect(q.provenance).toEqual([{ node_uid: w.acme, source_uid: w.chunk, text_span: null }]);
    expect(q.external_refs).toEqual([]);
    expect(q.graph.nodes.length).toBeGreaterThanOrEqual(5);
    expect(q.confidence).toEqual({ overall: 1 });
    // two objects match by text: limit 1 leaves one out and says so
    const two = ok(await w.k.post('/ontology/query', { query: 'acme globex', schema_id: w.schema.id, limit: 1 }), 200);
    expect(two.objects).toHaveLength(1);
    expect(two.truncated).toEqual({ objects: true });
    const narrow = ok(await w.k.post('/ontology/query', { query: 'acme rockets globex shipping agreement', schema_id: w.schema.id, limit: 1000, include_cognitive_context: false, include_sources: false }), 200);
    expect(narrow.objects.map((o: any) => o.uid).sort()).toEqual([w.acme, w.globex, w.contract].sort());
    expect(narrow.truncated).toEqual({});
    expect(narrow.cognitive_context).toEqual({});
    expect(narrow.provenance).toEqual([]);
    expect((await w.k.post('/ontology/query', { query: 'acme' })).body).toMatchObject({ code: 'missing_field', field: 'schema_id' });
    expect((await w.k.post('/ontology/query', { query: 'acme', schema_id: 'nope' })).status).toBe(404);
  });

  it('schema test is a dry run that never writes; the duplicates audit neither', async () => {
    const w = await seed();
    const before = ok(await w.k.get('/stats'), 200);
    const r = ok(await w.k.post(`/v1/ontology/schemas/${w.schema.id}/test`, { example_queries: ['acme', 'nothing here'] }), 200);
    expect(r).toMatchObject({ schema_id: w.schema.id, experimental: true });
    expect(r.results.map((x: any) => x.query)).toEqual(['acme', 'nothing here']);
    expect(r.results[0].objects[0].uid).toBe(w.acme);
    expect(typeof r.results[0].note).toBe('string');
    ok(await w.k.post(`/v1/ontology/schemas/${w.schema.id}/duplicates/audit`, {}), 200);
    expect(ok(await w.k.get('/stats'), 200)).toEqual(before);
    expect((await w.k.post(`/v1/ontology/schemas/${w.schema.id}/test`, {})).body).toMatchObject({ code: 'missing_field', field: 'example_queries' });
    // read-only keys may run the read-only POSTs
    const ro = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read'] })).key);
    for (const [path, body] of [
      [`/v1/ontology/schemas/${w.schema.id}/test`, { example_queries: ['acme'] }],
      [`/v1/ontology/schemas/${w.schema.id}/duplicates/audit`, {}],
      ['/ontology/objects/search', { query: 'acme' }],
      ['/ontology/query', { query: 'acme', schema_id: w.schema.id }],
    ] as const)
      expect((await ro.post(path, body)).status).toBe(200);
  });

  it('a Space-scoped key sees no object (Space membership admits none yet)', async () => {
    const w = await seed();
    const space = (await api(t.url, w.access_token).post('/node', { label: 'Empty', node_type: 'Space' })).body.uid;
    const scoped = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read', 'write'], space_uids: [space] })).key);
    expect((await scoped.get(`/ontology/object/${w.acme}`)).status).toBe(404);
    expect(ok(await scoped.get(`/ontology/objects?schema_id=${w.schema.id}`), 200).items).toEqual([]);
    expect(ok(await scoped.post('/ontology/objects/search', { query: 'acme' }), 200).items).toEqual([]);
    expect(ok(await scoped.post('/ontology/query', { query: 'acme', schema_id: w.schema.id }), 200).objects).toEqual([]);
  });

  it('a Project-scoped key sees only the objects its Project admits', async () => {
    const w = await seed();
    const scoped = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read', 'write'], project_uids: [w.project] })).key);
    expect((await scoped.get(`/ontology/object/${w.acme}`)).status).toBe(200);
    expect((await scoped.get(`/ontology/object/${w.globex}`)).status).toBe(404);
    expect((await scoped.get(`/ontology/object/${w.globex}/history`)).status).toBe(404);
    expect((await scoped.patch(`/v1/ontology/objects/${w.globex}`, { reason: 'r', expected_version: 1 })).status).toBe(404);
    const list = ok(await scoped.get(`/ontology/objects?schema_id=${w.schema.id}`), 200);
    expect(list.items.map((o: any) => o.uid)).toEqual([w.acme]);
    const found = ok(await scoped.post('/ontology/objects/search', { query: 'globex shipping acme' }), 200);
    expect(found.items.map((i: any) => i.object.uid)).toEqual([w.acme]);
    const ctx = ok(await scoped.get(`/ontology/object/${w.acme}/context`), 200);
    expect(ctx.related_objects).toEqual([]);
    expect(ctx.cognitive_context.claims).toEqual([]);
    const q = ok(await scoped.post('/ontology/query', { query: 'globex acme', schema_id: w.schema.id, depth: 2 }), 200);
    expect(q.objects.map((o: any) => o.uid)).toEqual([w.acme]);
    expect(q.graph.nodes.map((n: any) => n.uid).sort()).toEqual([w.acme, w.chunk, w.doc].sort());
    // a write naming an object outside the grants is as if it did not exist
    const rel = await scoped.post('/ontology/relation', { from_uid: w.acme, to_uid: w.globex, relation_type: 'partner_of' });
    expect([rel.status, rel.body.code, rel.body.field]).toEqual([404, 'not_found', 'to_uid']);
    const ref = await scoped.post('/v1/ontology/objects', { schema_id: w.schema.id, object_type: 'Contract', canonical_name: 'C2', fields: { number: 'C-2', client: w.globex } });
    expect([ref.status, ref.body.errors?.[0]?.path]).toEqual([422, 'fields.client']);
  });

  it('a Project-scoped key sees and reviews only the proposals of objects its Project admits', async () => {
    const w = await seed();
    const proposalOf = async (uid: string) => ok(await w.k.get(`/ontology/object/${uid}`), 200).props.proposal_id as string;
    const [acmeP, globexP, contractP] = [await proposalOf(w.acme), await proposalOf(w.globex), await proposalOf(w.contract)];
    expect(ok(await w.k.get(`/v1/ontology/proposals?schema_id=${w.schema.id}`), 200).items).toHaveLength(3);
    const scoped = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read', 'write'], project_uids: [w.project] })).key);
    const page = ok(await scoped.get(`/v1/ontology/proposals?schema_id=${w.schema.id}&limit=1`), 200);
    expect([page.items.map((p: any) => p.id), page.has_more]).toEqual([[acmeP], false]);
    expect(ok(await scoped.get(`/v1/ontology/proposals?offset=1`), 200).items).toEqual([]);
    expect(ok(await scoped.get(`/v1/ontology/proposals/${acmeP}`), 200).proposed_node_uid).toBe(w.acme);
    for (const hidden of [globexP, contractP]) {
      expect((await scoped.get(`/v1/ontology/proposals/${hidden}`)).body).toMatchObject({ code: 'not_found' });
      expect((await scoped.post(`/v1/ontology/proposals/${hidden}/apply`, {})).body).toMatchObject({ code: 'not_found' });
    }
    const batch = ok(await scoped.post('/v1/ontology/proposals/batch-reject', { ids: [globexP] }), 200);
    expect(batch.results).toEqual([{ id: globexP, review_status: null, error: { code: 'not_found', message: expect.any(String) } }]);
    expect(JSON.stringify(batch)).not.toContain('Globex');
  });

  it('the duplicates audit of a Project-scoped key holds only the objects its Project admits', async () => {
    const w = await seed();
    const twin = async (canonical_name: string, code: string) =>
      ok(await w.k.post('/v1/ontology/objects', { schema_id: w.schema.id, object_type: 'Client', canonical_name, fields: { code }, allow_duplicate: true }), 201).uid as string;
    const acmeTwin = await twin('Acme Twin', 'AC');
    await link(w.k, acmeTwin, w.chunk, 'ExtractedFrom');
    const globexTwin = await twin('Globex Twin', 'GX');
    const full = ok(await w.k.post(`/v1/ontology/schemas/${w.schema.id}/duplicates/audit`, {}), 200);
    expect(full.collisions.map((c: any) => c.identity.code)).toEqual(['AC', 'GX']);
    const scoped = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read'], project_uids: [w.project] })).key);
    const audit = ok(await scoped.post(`/v1/ontology/schemas/${w.schema.id}/duplicates/audit`, {}), 200);
    expect(audit.collisions).toEqual([{ object_type: 'Client', identity: { code: 'AC' }, uids: [w.acme, acmeTwin].sort(), count: 2 }]);
    expect(audit.total_collisions).toBe(1);
    expect(JSON.stringify(audit)).not.toContain(w.globex);
    expect(JSON.stringify(audit)).not.toContain(globexTwin);
  });
});
