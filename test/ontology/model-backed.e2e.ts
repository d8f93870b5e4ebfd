import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

const SAMPLE = 'Initech hired Peter Gibbons. Initech and Globex Corporation opened offices in Austin.';

describe('propose-schema and semantic guidance (offline provider)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), env: { STRATA_LLM_PROVIDER: 'offline' } });
  });
  afterAll(() => t.close());

  async function proposed(w: Awaited<ReturnType<typeof world>>, body: Record<string, unknown>) {
    const r = ok(await w.k.post('/v1/ontology/propose-schema', body), 202);
    const first = ok(await w.k.get(`/v1/ontology/schemas/${r.schema_id}`), 200);
    expect(first).toMatchObject({ status: 'draft', propose_job_id: r.job_id });
    expect(['pending', 'running', 'ready']).toContain(first.propose_status);
    const job = await eventually(async () => {
      const j = (await w.k.get(`/jobs/${r.job_id}`)).body;
      return j.status === 'completed' || j.status === 'failed' ? j : null;
    });
    expect(job).toMatchObject({ kind: 'ontology_propose', status: 'completed', result: { schema_id: r.schema_id } });
    return ok(await w.k.get(`/v1/ontology/schemas/${r.schema_id}`), 200);
  }

  it('builds a draft from a template and the sample documents’ named entities', async () => {
    const w = await world(t.url);
    const s = await proposed(w, { description: 'our consulting clients', template_hint: 'client_services', source_documents: [{ title: 'memo', content: SAMPLE }] });
    expect(s).toMatchObject({ name: 'Client services', status: 'draft', propose_status: 'ready', propose_error: null });
    expect(s.object_types.map((o: any) => o.name)).toEqual(['Client', 'Engagement', 'Stakeholder', 'Site']);
    expect(s.relation_types.map((r: any) => r.name)).toEqual(['HasEngagement', 'StakeholderOf']);
    // the organizations found became examples of the Client type (its hints cover them)
    expect(s.object_types[0].examples_json.map((e: any) => e.canonical_name)).toContain('Globex Corporation');
    expect(s.object_types[2].examples_json.map((e: any) => e.canonical_name)).toEqual(['Peter Gibbons']);
    // the proposal is a normal draft: it can be activated
    expect(ok(await w.k.post(`/v1/ontology/schemas/${s.id}/activate`), 200).status).toBe('active');
    for (const hint of ['healthcare', 'supply_chain', 'research_intel']) {
      const other = await proposed(w, { description: hint, template_hint: hint });
      expect(other.object_types.length).toBeGreaterThanOrEqual(3);
    }
    const custom = await proposed(w, { source_documents: [{ content: SAMPLE }] });
    expect(custom.object_types.map((o: any) => o.name)).toEqual(['Company', 'Contact', 'Site']);
  });

  it('validates its request', async () => {
    const w = await world(t.url);
    expect((await w.k.post('/v1/ontology/propose-schema', {})).body).toMatchObject({ code: 'missing_field', field: 'description' });
    expect((await w.k.post('/v1/ontology/propose-schema', { description: 'x', template_hint: 'banking' })).body).toMatchObject({ code: 'invalid_field', field: 'template_hint' });
    expect((await w.k.post('/v1/ontology/propose-schema', { source_documents: [{ title: 'x' }] })).body).toMatchObject({ code: 'invalid_field', field: 'source_documents[0].content' });
    expect((await w.k.post('/v1/ontology/propose-schema', { description: 'x', source_uids: ['missing'] })).body).toMatchObject({ code: 'not_found', field: 'source_uids[0]' });
    expect((await w.k.post('/v1/ontology/propose-schema', { description: 'x', parent_schema_id: 'nope' })).status).toBe(404);
  });

  it('semantic guidance classifies each current type against the built-ins; nothing applied', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const r = ok(await w.k.post(`/v1/ontology/schemas/${s.schema.id}/semantic-guidance/analyze`, {}), 200);
    expect(r).toMatchObject({ schema_id: s.schema.id, review_required: true });
    expect(r.classifications.map((c: any) => [c.type_name, c.type_kind])).toEqual([
      ['Client', 'object'],
      ['Contract', 'object'],
      ['ClientContact', 'object'],
      ['HasContract', 'relation'],
      ['PartnerOf', 'relation'],
      ['WorksWith', 'relation'],
    ]);
    for (const c of r.classifications) expect(c.semantic_match).toMatchObject({ status: 'candidate', builtin_type: expect.any(String) });
    expect(ok(await w.k.get(`/v1/ontology/schemas/${s.schema.id}`), 200).object_types.every((o: any) => o.semantic_match === null)).toBe(true);
    // a reviewer applies one by PATCHing the type
    const chosen = r.classifications[0].semantic_match;
    const patched = ok(await w.k.patch(`/v1/ontology/schemas/${s.schema.id}/object-types/${s.client.id}`, { semantic_match: { ...chosen, status: 'accepted' } }), 200);
    expect(patched.semantic_match).toMatchObject({ status: 'accepted', builtin_type: chosen.builtin_type });
    expect((await w.k.post('/v1/ontology/schemas/nope/semantic-guidance/analyze', {})).status).toBe(404);
  });
});

describe('model-backed ontology routes without a provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')) });
  });
  afterAll(() => t.close());

  it('answer 501 llm_not_configured and write nothing', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const before = ok(await w.k.get('/v1/ontology/schemas'), 200);
    for (const r of [
      await w.k.post('/v1/ontology/propose-schema', { description: 'x', template_hint: 'healthcare' }),
      await w.k.post(`/v1/ontology/schemas/${s.schema.id}/semantic-guidance/analyze`, {}),
    ])
      expect([r.status, r.body.code]).toEqual([501, 'llm_not_configured']);
    expect(ok(await w.k.get('/v1/ontology/schemas'), 200)).toEqual(before);
  });
});
