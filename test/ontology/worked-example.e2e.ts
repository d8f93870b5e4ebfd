import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

/** docs/ontology.md's worked example, step by step, as the page shows it. */
describe('docs/ontology.md worked example', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')), env: { STRATA_LLM_PROVIDER: 'offline' } });
  });
  afterAll(() => t.close());

  it('goes from an empty workspace to a reviewed, queryable schema', async () => {
    const { k } = await world(t.url);
    const SCHEMA = ok(await k.post('/v1/ontology/schemas', { name: 'Client services' }), 201).id;
    ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/object-types`, {
      name: 'Client',
      fields: [{ name: 'code', type: 'string', required: true }, { name: 'tier', type: 'enum', enum: ['gold', 'silver'] }],
      identity_fields: ['code'],
      aliases: ['customer'],
      extraction_hints: { categories: ['organization'] },
    }), 201);
    ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/object-types`, { name: 'ClientContact', fields: [{ name: 'email', type: 'string' }], extraction_hints: { categories: ['person'] }, review_policy: 'always' }), 201);
    expect(ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/relation-types`, { name: 'works_with', source_type: 'ClientContact', target_type: 'Client', cardinality: 'many_to_many' }), 201).name).toBe('WorksWith');
    ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/activate`), 200);
    const ACME = ok(await k.post('/v1/ontology/objects', { schema_id: SCHEMA, object_type: 'Client', canonical_name: 'Acme Corporation', aliases: ['Acme Corp'], fields: { code: 'AC-1', tier: 'gold' } }), 201).uid;
    ok(await k.patch(`/v1/ontology/objects/${ACME}`, { fields: { tier: 'silver' }, reason: 'downgraded', expected_version: 1 }), 200);
    expect((await k.patch(`/v1/ontology/objects/${ACME}`, { fields: { tier: 'silver' }, reason: 'downgraded', expected_version: 1 })).body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    expect((await k.patch(`/v1/ontology/objects/${ACME}`, { fields: { code: 'X' }, reason: 'r', expected_version: 2 })).body.code).toBe('immutable_field');

    const CHUNK = ok(await k.post('/node', { node_type: 'Chunk', label: 'memo · chunk 0', props: { content: 'Globex Corporation renewed with Acme Corp. Ada Lovelace will lead it.', chunk_type: 'text', chunk_index: 0 } }), 201).uid;
    const JOB = ok(await k.post('/ontology/extract', { ontology_schema_id: SCHEMA, source_uids: [CHUNK] }), 202).job_id;
    const job = await eventually(async () => ((await k.get(`/jobs/${JOB}`)).body.status === 'completed' ? (await k.get(`/jobs/${JOB}`)).body : null));
    expect(job.result).toMatchObject({ proposals_created: 2, auto_applied: 0 });
    const pending = ok(await k.get(`/v1/ontology/proposals?status=pending&extract_job_id=${JOB}`), 200).items;
    const P = pending.find((p: any) => p.object_type === 'Client').id;
    ok(await k.patch(`/v1/ontology/proposals/${P}`, { edits: { canonical_name: 'Globex Corp' } }), 200);
    expect(ok(await k.post(`/v1/ontology/proposals/${P}/approve`, { edits: { fields: { code: 'GX' } } }), 200).review_status).toBe('applied');
    const other = pending.find((p: any) => p.object_type === 'ClientContact').id;
    expect(ok(await k.post('/v1/ontology/proposals/batch-reject', { ids: [other], reason: 'not a contact' }), 200)).toMatchObject({ succeeded: 1 });

    const found = ok(await k.post('/ontology/objects/search', { query: 'globex', schema_id: SCHEMA }), 200);
    expect(found.items[0].object.props.canonical_name).toBe('Globex Corp');
    expect(ok(await k.get(`/ontology/objects?schema_id=${SCHEMA}&sort=canonical_name&limit=50`), 200).items.map((o: any) => o.label)).toEqual(['Acme Corporation', 'Globex Corp']);
    const ctx = ok(await k.get(`/ontology/object/${ACME}/context?depth=2`), 200);
    expect(ctx.sources.map((x: any) => x.uid)).toEqual([CHUNK]);
    const q = ok(await k.post('/ontology/query', { query: 'acme', schema_id: SCHEMA, depth: 2, limit: 1 }), 200);
    expect(q.provenance).toEqual([{ node_uid: ACME, source_uid: CHUNK, text_span: null }]);
    expect(ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/test`, { example_queries: ['gold clients'] }), 200).experimental).toBe(true);
    expect(ok(await k.post(`/v1/ontology/schemas/${SCHEMA}/duplicates/audit`, {}), 200).total_collisions).toBe(0);
  });
});
