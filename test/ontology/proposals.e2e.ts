import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

const TEXT = 'Globex Corporation renewed with Acme Corp. Ada Lovelace and Grace Hopper met in Paris to review it.';

describe('ontology extraction and proposals (offline provider)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'offline' } });
  });
  afterAll(() => t.close());

  async function chunk(k: Api, content: string): Promise<string> {
    return ok(await k.post('/node', { node_type: 'Chunk', label: 'notes · chunk 0', props: { content, chunk_type: 'text', chunk_index: 0 } }), 201).uid;
  }

  async function extract(k: Api, body: Record<string, unknown>) {
    const started = ok(await k.post('/ontology/extract', body), 202);
    expect(started.job_id).toMatch(/^[0-9a-f-]{36}$/);
    return eventually(
      async () => {
        const j = (await k.get(`/jobs/${started.job_id}`)).body;
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      },
      { what: 'the extraction job to finish' },
    );
  }

  async function setUp(opts: { contactPolicy?: string; orgHints?: unknown } = {}) {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    if (opts.contactPolicy) ok(await w.k.patch(`/v1/ontology/schemas/${s.schema.id}/object-types/${s.person.id}`, { review_policy: opts.contactPolicy }), 200);
    const acme = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme Corporation', aliases: ['Acme Corp'], fields: { code: 'AC' } }), 201);
    return { ...w, ...s, acme, src: await chunk(w.k, TEXT) };
  }

  it('links mentions of existing objects and applies proposals as the review policy says (never: applied)', async () => {
    const w = await setUp();
    const job = await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src] });
    expect(job).toMatchObject({ kind: 'ontology_extract', status: 'completed', result: { proposals_created: 3, auto_applied: 2 } });
    // Client (organization hints, policy always): Globex is pending; ClientContact (person, never): applied
    const list = ok(await w.k.get(`/v1/ontology/proposals?extract_job_id=${job.id}`), 200);
    const byName = Object.fromEntries(list.items.map((p: any) => [p.changes_json.adds[0].canonical_name, p]));
    expect(Object.keys(byName).sort()).toEqual(['Ada Lovelace', 'Globex Corporation', 'Grace Hopper']);
    expect(byName['Globex Corporation']).toMatchObject({ review_status: 'pending', object_type: 'Client', confidence: 0.6, source_uids: [w.src], proposal_type: 'object_create' });
    expect(byName['Ada Lovelace']).toMatchObject({ review_status: 'applied', object_type: 'ClientContact' });
    const ada = ok(await w.k.get(`/ontology/object/${byName['Ada Lovelace'].proposed_node_uid}`), 200);
    expect(ada.props).toMatchObject({ canonical_name: 'Ada Lovelace', proposal_id: byName['Ada Lovelace'].id, source_uids: [w.src] });
    // the existing Acme object was linked to the chunk through its alias
    const edges = ok(await w.k.get(`/edges?from_uid=${w.acme.uid}&edge_types=ExtractedFrom`), 200);
    expect((edges.items ?? edges).map((e: any) => e.to_uid)).toEqual([w.src]);
    // extracting again proposes nothing new for the applied objects
    const again = await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src], mode: 'propose_only' });
    expect(again.result).toMatchObject({ proposals_created: 1, auto_applied: 0 });
  });

  it('modes: propose_only leaves everything pending, force_auto_apply applies; low_confidence compares with default_confidence', async () => {
    const w = await setUp({ contactPolicy: 'low_confidence' });
    const job = await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src] });
    // 0.6 < 0.8: pending
    expect(job.result).toMatchObject({ proposals_created: 3, auto_applied: 0 });
    const w2 = await setUp();
    expect((await extract(w2.k, { ontology_schema_id: w2.schema.id, source_uids: [w2.src], mode: 'propose_only' })).result).toMatchObject({ proposals_created: 3, auto_applied: 0 });
    const w3 = await setUp();
    // Globex is a Client: its identity field `code` is missing, so applying it fails (apply_failed)
    const forced = await extract(w3.k, { ontology_schema_id: w3.schema.id, source_uids: [w3.src], mode: 'force_auto_apply' });
    expect(forced.result).toMatchObject({ proposals_created: 3, auto_applied: 2 });
    const failed = ok(await w3.k.get('/v1/ontology/proposals?status=apply_failed'), 200).items;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ object_type: 'Client', requires_manual_resolution: true, apply_attempt_count: 1 });
    expect(failed[0].applied_error).toContain('schema_validation_failed');
  });

  it('edit, approve (applies), reject, apply retries, and every illegal move is 409', async () => {
    const w = await setUp();
    await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src], mode: 'propose_only' });
    const pending = ok(await w.k.get('/v1/ontology/proposals?status=pending&object_type=client'), 200).items;
    expect(pending).toHaveLength(1);
    const id = pending[0].id;
    clock.advance(1);
    const edited = ok(await w.k.patch(`/v1/ontology/proposals/${id}`, { edits: { canonical_name: 'Globex Corp' } }), 200);
    expect(edited).toMatchObject({ review_status: 'pending', edited_by: expect.any(String), original_snapshot: pending[0].changes_json, changes_json: { adds: [{ canonical_name: 'Globex Corp' }] } });
    expect(edited.edited_at).toMatch(/Z$/);
    // edited fields are judged as they are made: 422 at the edit, nothing kept, the proposal still pending
    for (const fields of [{ nope: 1 }, { tier: 'platinum' }, { code: 7 }]) {
      const bad = await w.k.patch(`/v1/ontology/proposals/${id}`, { edits: { fields } });
      expect([bad.status, bad.body.code, bad.body.errors?.[0]?.path]).toEqual([422, 'schema_validation_failed', `edits.fields.${Object.keys(fields)[0]}`]);
      const refused = await w.k.post(`/v1/ontology/proposals/${id}/approve`, { edits: { fields } });
      expect([refused.status, refused.body.code]).toEqual([422, 'schema_validation_failed']);
    }
    expect(ok(await w.k.get(`/v1/ontology/proposals/${id}`), 200)).toEqual(edited);
    // approving applies: fields the type needs come with the edits
    const approved = ok(await w.k.post(`/v1/ontology/proposals/${id}/approve`, { feedback: 'ok', edits: { fields: { code: 'GX' } } }), 200);
    expect(approved).toMatchObject({ review_status: 'applied', original_snapshot: pending[0].changes_json, apply_attempt_count: 1 });
    const node = ok(await w.k.get(`/ontology/object/${approved.proposed_node_uid}`), 200);
    expect(node.props).toMatchObject({ canonical_name: 'Globex Corp', fields: { code: 'GX' }, identity: { code: 'GX' } });
    // apply is idempotent on an applied proposal
    expect(ok(await w.k.post(`/v1/ontology/proposals/${id}/apply`), 200)).toEqual(approved);
    for (const [method, path, body] of [
      ['post', 'approve', {}],
      ['post', 'reject', {}],
      ['patch', '', { edits: { canonical_name: 'x' } }],
    ] as const) {
      const r = method === 'post' ? await w.k.post(`/v1/ontology/proposals/${id}/${path}`, body) : await w.k.patch(`/v1/ontology/proposals/${id}`, body);
      expect([r.status, r.body.code, r.body.from_status]).toEqual([409, 'invalid_transition', 'applied']);
    }
    const people = ok(await w.k.get('/v1/ontology/proposals?status=pending&object_type=ClientContact'), 200).items;
    const rejected = ok(await w.k.post(`/v1/ontology/proposals/${people[0].id}/reject`, { reason: 'not a contact' }), 200);
    expect(rejected).toMatchObject({ review_status: 'rejected', resolved_by: expect.any(String) });
    expect((await w.k.post(`/v1/ontology/proposals/${people[0].id}/apply`)).body).toMatchObject({ code: 'invalid_transition', from_status: 'rejected' });
    expect((await w.k.get('/v1/ontology/proposals/nope')).status).toBe(404);
    expect((await w.k.patch(`/v1/ontology/proposals/${people[1].id}`, {})).body).toMatchObject({ code: 'missing_field', field: 'edits' });
  });

  it('apply_failed → applied via /apply once the cause is fixed', async () => {
    const w = await setUp();
    await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src], mode: 'propose_only' });
    const globex = ok(await w.k.get('/v1/ontology/proposals?object_type=Client&status=pending'), 200).items[0];
    const failed = ok(await w.k.post(`/v1/ontology/proposals/${globex.id}/approve`, {}), 200);
    expect(failed).toMatchObject({ review_status: 'apply_failed', requires_manual_resolution: true });
    // the cause: Client needs an identity code the extraction cannot know; the type drops that rule
    ok(await w.k.patch(`/v1/ontology/schemas/${w.schema.id}/object-types/${w.client.id}`, { identity_fields: [], fields: [{ name: 'code', type: 'string' }, { name: 'tier', type: 'enum', enum: ['gold', 'silver'] }] }), 200);
    const applied = ok(await w.k.post(`/v1/ontology/proposals/${globex.id}/apply`), 200);
    expect(applied).toMatchObject({ review_status: 'applied', apply_attempt_count: 2, applied_error: null, requires_manual_resolution: false });
  });

  it('batch approve and reject handle each proposal on its own; high risk goes through an Approval node', async () => {
    const w = await setUp();
    ok(await w.k.patch(`/v1/ontology/schemas/${w.schema.id}/object-types/${w.person.id}`, { extraction_hints: { categories: ['person'], risk_level: 'high' } }), 200);
    await extract(w.k, { ontology_schema_id: w.schema.id, source_uids: [w.src] });
    const high = ok(await w.k.get('/v1/ontology/proposals?status=approval_required'), 200).items;
    expect(high).toHaveLength(2);
    const approval = ok(await w.k.get(`/node/${high[0].approval_uid}`), 200);
    expect(approval).toMatchObject({ node_type: 'Approval', props: { status: 'pending', target_uid: high[0].id } });
    const batch = ok(await w.k.post('/v1/ontology/proposals/batch-approve', { ids: [high[0].id, 'nope', high[0].id] }), 200);
    expect(batch).toMatchObject({ succeeded: 1, failed: 2 });
    expect(batch.results.map((r: any) => [r.id, r.review_status, r.error?.code])).toEqual([
      [high[0].id, 'applied', undefined],
      ['nope', null, 'not_found'],
      [high[0].id, 'applied', 'invalid_transition'],
    ]);
    expect(ok(await w.k.get(`/node/${high[0].approval_uid}`), 200).props).toMatchObject({ status: 'approved' });
    const rej = ok(await w.k.post('/v1/ontology/proposals/batch-reject', { ids: [high[1].id], reason: 'dup' }), 200);
    expect(rej).toEqual({ results: [{ id: high[1].id, review_status: 'rejected' }], succeeded: 1, failed: 0 });
    expect(ok(await w.k.get(`/node/${high[1].approval_uid}`), 200).props).toMatchObject({ status: 'denied' });
    expect((await w.k.post('/v1/ontology/proposals/batch-approve', { ids: Array.from({ length: 101 }, (_, i) => `p${i}`) })).body).toMatchObject({ code: 'invalid_field', field: 'ids' });
  });

  it('extract validates its request: 404 schema or source, 409 inactive schema, 400 wrong type', async () => {
    const w = await setUp();
    const person = ok(await w.k.post('/node', { node_type: 'Person', label: 'Bob' }), 201).uid;
    expect((await w.k.post('/ontology/extract', { ontology_schema_id: 'nope', source_uids: [w.src] })).status).toBe(404);
    expect((await w.k.post('/ontology/extract', { ontology_schema_id: w.schema.id, source_uids: ['missing'] })).body).toMatchObject({ code: 'not_found', field: 'source_uids[0]' });
    expect((await w.k.post('/ontology/extract', { ontology_schema_id: w.schema.id, source_uids: [person] })).body).toMatchObject({ code: 'wrong_node_type' });
    expect((await w.k.post('/ontology/extract', { ontology_schema_id: w.schema.id, source_uids: [w.src], mode: 'yolo' })).body).toMatchObject({ code: 'invalid_field', field: 'mode' });
    expect((await w.k.post('/ontology/extract', { source_uids: [w.src] })).body).toMatchObject({ code: 'missing_field', field: 'ontology_schema_id' });
    ok(await w.k.post(`/v1/ontology/schemas/${w.schema.id}/deprecate`), 200);
    expect((await w.k.post('/ontology/extract', { ontology_schema_id: w.schema.id, source_uids: [w.src] })).body).toMatchObject({ code: 'schema_not_active' });
  });
});

describe('ontology extraction without a model provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T00:00:00Z')) });
  });
  afterAll(() => t.close());

  it('answers 501 llm_not_configured', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const r = await w.k.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: ['x'] });
    expect([r.status, r.body.code]).toEqual([501, 'llm_not_configured']);
  });
});
