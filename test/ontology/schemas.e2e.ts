import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at as atInstant } from '@strata/domain/testing/fixed-time';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('ontology schemas and types', () => {
  let t: TestApp;
  const clock = new FixedClock(atInstant('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('creates a draft schema and reads it back with its types', async () => {
    const { k } = await world(t.url);
    const s = ok(await k.post('/v1/ontology/schemas', { name: 'CS', description: 'd' }), 201);
    expect(s).toMatchObject({ name: 'CS', description: 'd', status: 'draft', version: 1, propose_status: null, semantic_validation_mode: 'off', activated_at: null, archived_at: null });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.created_at).toMatch(ISO);
    const ot = ok(await k.post(`/v1/ontology/schemas/${s.id}/object-types`, { name: 'Client', fields: [{ name: 'code', type: 'string' }], examples: [{ code: 'A1' }] }), 201);
    expect(ot).toMatchObject({ schema_id: s.id, name: 'Client', fields_json: [{ name: 'code', type: 'string' }], examples_json: [{ code: 'A1' }], default_confidence: 0.8, review_policy: 'always', status: 'active', version: 1, backing: null });
    expect(ot).not.toHaveProperty('fields');
    const detail = ok(await k.get(`/v1/ontology/schemas/${s.id}`), 200);
    expect(detail.object_types.map((x: any) => x.id)).toEqual([ot.id]);
    expect(detail.relation_types).toEqual([]);
  });

  it('validates schema input (400) and lists with status filter and pagination', async () => {
    const { k } = await world(t.url);
    expect((await k.post('/v1/ontology/schemas', {})).body).toMatchObject({ code: 'missing_field', field: 'name' });
    expect((await k.post('/v1/ontology/schemas', { name: 5 })).body).toMatchObject({ code: 'invalid_field', field: 'name' });
    const a = ok(await k.post('/v1/ontology/schemas', { name: 'a' }), 201);
    clock.advance(1);
    const b = ok(await k.post('/v1/ontology/schemas', { name: 'b' }), 201);
    const page = ok(await k.get('/v1/ontology/schemas?limit=1'), 200);
    expect(page).toMatchObject({ has_more: true, limit: 1, offset: 0 });
    expect(page.items.map((x: any) => x.id)).toEqual([b.id]);
    expect(ok(await k.get('/v1/ontology/schemas?limit=5000&offset=1'), 200)).toMatchObject({ limit: 1000, offset: 1, has_more: false, items: [{ id: a.id }] });
    expect((await k.get('/v1/ontology/schemas?status=live')).body).toMatchObject({ code: 'invalid_field', field: 'status' });
    expect((await k.get('/v1/ontology/schemas?limit=-1')).body).toMatchObject({ code: 'invalid_field', field: 'limit' });
    expect((await k.patch(`/v1/ontology/schemas/${a.id}`, { semantic_validation_mode: 'strict' })).body).toMatchObject({ code: 'invalid_field', field: 'semantic_validation_mode' });
    expect(ok(await k.patch(`/v1/ontology/schemas/${a.id}`, { semantic_validation_mode: 'advisory', name: 'A' }), 200)).toMatchObject({ name: 'A', semantic_validation_mode: 'advisory' });
    expect((await k.patch(`/v1/ontology/schemas/${a.id}`, { name: '', semantic_validation_mode: 'review' })).body).toMatchObject({ code: 'missing_field', field: 'name' });
    expect(ok(await k.get(`/v1/ontology/schemas/${a.id}`), 200)).toMatchObject({ name: 'A', semantic_validation_mode: 'advisory' });
  });

  // the REFERENCE §11 lifecycle table, row by row: the outcome of each move from each status
  const LIFECYCLE: [string, string, string, string, string][] = [
    // from        activate       deprecate        DELETE         PATCH
    ['draft', '200 active', '409', '200 archived', '200 draft'],
    ['active', '200 active', '200 deprecated', '200 archived', '200 active'],
    ['deprecated', '200 active', '200 deprecated', '200 archived', '409'],
    ['archived', '409', '409', '200 archived', '409'],
  ];
  it.each(LIFECYCLE)('from %s: activate %s, deprecate %s, DELETE %s, PATCH %s', async (from, activate, deprecate, archive, patch) => {
    const { k } = await world(t.url);
    const at = async () => {
      const s = ok(await k.post('/v1/ontology/schemas', { name: 's' }), 201);
      ok(await k.post(`/v1/ontology/schemas/${s.id}/object-types`, { name: 'Thing' }), 201);
      if (from !== 'draft') ok(await k.post(`/v1/ontology/schemas/${s.id}/activate`), 200);
      if (from === 'deprecated') ok(await k.post(`/v1/ontology/schemas/${s.id}/deprecate`), 200);
      if (from === 'archived') ok(await k.delete(`/v1/ontology/schemas/${s.id}`), 200);
      return s.id as string;
    };
    const outcome = (r: { status: number; body: any }) => {
      if (r.status === 409) {
        expect(r.body).toMatchObject({ code: 'invalid_transition', from_status: from });
        return '409';
      }
      return `${r.status} ${r.body.status}`;
    };
    expect(outcome(await k.post(`/v1/ontology/schemas/${await at()}/activate`))).toBe(activate);
    expect(outcome(await k.post(`/v1/ontology/schemas/${await at()}/deprecate`))).toBe(deprecate);
    expect(outcome(await k.delete(`/v1/ontology/schemas/${await at()}`))).toBe(archive);
    expect(outcome(await k.patch(`/v1/ontology/schemas/${await at()}`, { description: 'x' }))).toBe(patch);
    // type edits follow the PATCH column
    const typeEdit = await k.post(`/v1/ontology/schemas/${await at()}/object-types`, { name: 'Other' });
    expect(typeEdit.status === 409 ? '409' : '200').toBe(patch === '409' ? '409' : '200');
  });

  it('activating a draft without object types is 422; several active, the latest activated is the default', async () => {
    const { k } = await world(t.url);
    const empty = ok(await k.post('/v1/ontology/schemas', { name: 'empty' }), 201);
    expect((await k.post(`/v1/ontology/schemas/${empty.id}/activate`)).body).toMatchObject({ code: 'schema_validation_failed', errors: [{ path: 'object_types' }] });
    const one = await clientServices(k);
    clock.advance(1);
    const two = await clientServices(k);
    const active = ok(await k.get('/v1/ontology/schemas?status=active'), 200);
    expect(active.items.map((s: any) => s.id).sort()).toEqual([one.schema.id, two.schema.id].sort());
    const a1 = ok(await k.get(`/v1/ontology/schemas/${one.schema.id}`), 200);
    const a2 = ok(await k.get(`/v1/ontology/schemas/${two.schema.id}`), 200);
    expect(a2.activated_at > a1.activated_at).toBe(true);
  });

  it('type changes of an active schema bump the type and schema versions', async () => {
    const { k } = await world(t.url);
    const w = await clientServices(k);
    const before = ok(await k.get(`/v1/ontology/schemas/${w.schema.id}`), 200);
    const u = ok(await k.patch(`/v1/ontology/schemas/${w.schema.id}/object-types/${w.client.id}`, { description: 'our clients', review_policy: 'low_confidence' }), 200);
    expect(u).toMatchObject({ version: 2, description: 'our clients', review_policy: 'low_confidence' });
    const after = ok(await k.get(`/v1/ontology/schemas/${w.schema.id}`), 200);
    expect(after.version).toBe(before.version + 1);
    const r = ok(await k.patch(`/v1/ontology/schemas/${w.schema.id}/relation-types/${w.worksWith.id}`, { description: 'x' }), 200);
    expect(r.version).toBe(2);
    expect(ok(await k.get(`/v1/ontology/schemas/${w.schema.id}`), 200).version).toBe(before.version + 2);
    const del = ok(await k.delete(`/v1/ontology/schemas/${w.schema.id}/relation-types/${w.worksWith.id}`), 200);
    expect(del).toMatchObject({ id: w.worksWith.id, status: 'archived' });
    expect(ok(await k.delete(`/v1/ontology/schemas/${w.schema.id}/object-types/${w.person.id}`), 200)).toMatchObject({ status: 'archived' });
  });

  it('every type validation rule answers its code', async () => {
    const { k } = await world(t.url);
    const w = await clientServices(k, { activate: false });
    const sid = w.schema.id;
    const cases: [string, unknown, number, string, string[]?][] = [
      ['object-types', { name: 'Client' }, 409, 'duplicate'],
      ['object-types', { name: 'CLIENT' }, 409, 'duplicate'],
      ['object-types', { name: 'open_question' }, 422, 'schema_validation_failed', ['name']],
      ['object-types', { name: 'Person' }, 422, 'schema_validation_failed', ['name']],
      ['object-types', { name: 'X', fields: [{ name: 'c', type: 'reference', reference_object_type: 'Nope' }] }, 422, 'schema_validation_failed', ['fields[0].reference_object_type']],
      ['object-types', { name: 'X', required_fields: ['nope'] }, 422, 'schema_validation_failed', ['required_fields[0]']],
      ['object-types', { name: 'X', identity_fields: ['nope'] }, 422, 'schema_validation_failed', ['identity_fields[0]']],
      ['object-types', { name: 'X', fields: [{ name: 'a', type: 'varchar' }] }, 422, 'schema_validation_failed', ['fields[0].type']],
      ['object-types', { name: 'X', backing: { kind: 'rest' } }, 422, 'schema_validation_failed', ['backing.kind', 'backing.sources', 'backing.primary_key']],
      ['object-types', { name: 'X', fields: 'code' }, 400, 'invalid_field'],
      ['object-types', {}, 400, 'missing_field'],
      ['relation-types', { name: 'r', source_type: 'Client', target_type: 'Nope' }, 422, 'schema_validation_failed', ['target_type']],
      ['relation-types', { name: 'r', source_type: 'Client' }, 400, 'missing_field'],
      ['relation-types', { name: 'has_contract', source_type: 'Client', target_type: 'Contract' }, 409, 'duplicate'],
      ['relation-types', { name: 'client', source_type: 'Client', target_type: 'Client' }, 409, 'duplicate'],
      ['object-types', { name: 'works_with' }, 409, 'duplicate'],
      ['relation-types', { name: 'r', source_type: 'Client', target_type: 'Client', cardinality: 'some' }, 400, 'invalid_field'],
      ['relation-types', { name: 'r', source_type: 'Client', target_type: 'Client', backing: { kind: 'sql_fk' } }, 422, 'schema_validation_failed', ['backing.connection_ref', 'backing.table']],
    ];
    for (const [kind, body, status, code, paths] of cases) {
      const r = await k.post(`/v1/ontology/schemas/${sid}/${kind}`, body);
      expect([kind, body, r.status, r.body.code]).toEqual([kind, body, status, code]);
      if (paths) expect(r.body.errors.map((e: any) => e.path)).toEqual(paths);
    }
    const ok1 = await k.post(`/v1/ontology/schemas/${sid}/object-types`, {
      name: 'Account',
      backing: { kind: 'sql', sources: [{ connection_ref: 'crm', table: 'accounts', key: 'id', filter: 'active', field_map: { code: 'acct_code' } }], primary_key: 'id', title_field: 'name', sync: { interval: 'daily' } },
    });
    expect(ok1.status).toBe(201);
    expect(ok1.body.backing.sources[0].field_map).toEqual({ code: 'acct_code' });
    expect((await k.patch(`/v1/ontology/schemas/${sid}/object-types/${w.client.id}`, { name: 'Customer' })).body).toMatchObject({ code: 'immutable_field', field: 'name' });
    expect((await k.patch(`/v1/ontology/schemas/${sid}/object-types/nope`, {})).status).toBe(404);
  });

  it('a field default its own type refuses is 422 and adds no type; a valid one fills creates', async () => {
    const { k } = await world(t.url);
    const w = await clientServices(k, { activate: false });
    const sid = w.schema.id;
    for (const [field, path] of [
      [{ name: 'seats', type: 'integer', default: 'many' }, 'fields[0].default'],
      [{ name: 'tier', type: 'enum', enum: ['gold', 'silver'], default: 'bronze' }, 'fields[0].default'],
      [{ name: 'tags', type: 'array', array_item_type: 'string', default: [1] }, 'fields[0].default[0]'],
    ] as const) {
      const r = await k.post(`/v1/ontology/schemas/${sid}/object-types`, { name: 'Supplier', fields: [field] });
      expect([r.status, r.body.code, r.body.errors?.map((e: any) => e.path)]).toEqual([422, 'schema_validation_failed', [path]]);
    }
    const patched = await k.patch(`/v1/ontology/schemas/${sid}/object-types/${w.client.id}`, { fields: [{ name: 'code', type: 'string', default: 7 }] });
    expect(patched.status).toBe(422);
    expect(patched.body.errors.map((e: any) => e.path)).toContain('fields[0].default');
    const detail = ok(await k.get(`/v1/ontology/schemas/${sid}`), 200);
    expect(detail.object_types.map((o: any) => o.name)).not.toContain('Supplier');
    expect(detail.object_types.find((o: any) => o.id === w.client.id).version).toBe(1);
    ok(await k.post(`/v1/ontology/schemas/${sid}/object-types`, { name: 'Supplier', fields: [{ name: 'seats', type: 'integer', default: 3 }] }), 201);
    ok(await k.post(`/v1/ontology/schemas/${sid}/activate`, {}), 200);
    const made = ok(await k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Supplier', canonical_name: 'Initech' }), 201);
    expect(made.object.props.fields).toEqual({ seats: 3 });
  });

  it("another organization's schema is 404; a read-only key cannot write", async () => {
    const a = await world(t.url);
    const b = await world(t.url);
    const s = ok(await a.k.post('/v1/ontology/schemas', { name: 's' }), 201);
    for (const r of [
      await b.k.get(`/v1/ontology/schemas/${s.id}`),
      await b.k.patch(`/v1/ontology/schemas/${s.id}`, { name: 'x' }),
      await b.k.post(`/v1/ontology/schemas/${s.id}/activate`),
      await b.k.post(`/v1/ontology/schemas/${s.id}/object-types`, { name: 'X' }),
      await b.k.delete(`/v1/ontology/schemas/${s.id}`),
    ])
      expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    expect(ok(await b.k.get('/v1/ontology/schemas'), 200).items).toEqual([]);
    const ro = await createApiKey(t.url, a.access_token, { scopes: ['read'] });
    const r = api(t.url, ro.key);
    expect((await r.post('/v1/ontology/schemas', { name: 'x' })).body.code).toBe('read_only_credential');
    expect((await r.get(`/v1/ontology/schemas/${s.id}`)).status).toBe(200);
  });
});
