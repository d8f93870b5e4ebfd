import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

describe('ontology domain objects and relations', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  async function setUp() {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const acme = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme Corp', fields: { code: 'AC-1', tier: 'gold' }, aliases: ['Acme'] }), 201);
    return { ...w, ...s, acme };
  }

  it('creates an authored object: a node of the ontology layer, an applied proposal', async () => {
    const w = await setUp();
    expect(w.acme.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.acme.object).toMatchObject({
      uid: w.acme.uid,
      label: 'Acme Corp',
      node_type: 'Client',
      layer: 'ontology',
      version: 1,
      props: {
        _type: 'Client',
        schema_id: w.schema.id,
        object_type_id: w.client.id,
        canonical_name: 'Acme Corp',
        fields: { code: 'AC-1', tier: 'gold' },
        aliases: ['Acme'],
        identity: { code: 'AC-1' },
        review_status: 'approved',
        proposal_id: w.acme.proposal_id,
        source_uids: [],
      },
    });
    expect(typeof w.acme.object.created_at).toBe('number');
    expect(ok(await w.k.get(`/ontology/object/${w.acme.uid}`), 200)).toEqual(w.acme.object);
    expect(ok(await w.k.get(`/node/${w.acme.uid}`), 200).layer).toBe('ontology');
    const p = ok(await w.k.get(`/v1/ontology/proposals/${w.acme.proposal_id}`), 200);
    expect(p).toMatchObject({ id: w.acme.proposal_id, proposal_type: 'object_create', object_type: 'Client', review_status: 'applied', proposed_node_uid: w.acme.uid, apply_attempt_count: 1 });
  });

  it('validates fields against the type: required, type, enum, reference, unknown', async () => {
    const w = await setUp();
    const sid = w.schema.id;
    const cases: [Record<string, unknown>, string[]][] = [
      [{ object_type: 'Client', fields: {} }, ['fields.code']],
      [{ object_type: 'Client', fields: { code: 7 } }, ['fields.code']],
      [{ object_type: 'Client', fields: { code: 'X', tier: 'bronze' } }, ['fields.tier']],
      [{ object_type: 'Client', fields: { code: 'X', employees: 1.5, since: '2020-13' } }, ['fields.employees', 'fields.since']],
      [{ object_type: 'Client', fields: { code: 'X', colour: 'red' } }, ['fields.colour']],
      [{ object_type: 'Contract', fields: { number: 'C1', client: 'no-such-uid' } }, ['fields.client']],
      [{ object_type: 'Nope', fields: {} }, ['object_type']],
    ];
    for (const [body, paths] of cases) {
      const r = await w.k.post('/v1/ontology/objects', { schema_id: sid, canonical_name: 'x', ...body });
      expect([r.status, r.body.code, (r.body.errors ?? []).map((e: any) => e.path)]).toEqual([422, 'schema_validation_failed', paths]);
    }
    // a reference must be a live object of the referenced type
    const person = ok(await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'ClientContact', canonical_name: 'Ada' }), 201);
    const wrong = await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Contract', canonical_name: 'C1', fields: { number: 'C1', client: person.uid } });
    expect([wrong.status, wrong.body.errors[0].path]).toEqual([422, 'fields.client']);
    const contract = await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'contract', canonical_name: 'C1', fields: { number: 'C1', client: w.acme.uid, value: 10 } });
    expect(contract.status).toBe(201);
    expect((await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client' })).body).toMatchObject({ code: 'missing_field', field: 'canonical_name' });
    expect((await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client', canonical_name: 'x', confidence: 2 })).body).toMatchObject({ code: 'invalid_field', field: 'confidence' });
  });

  it('duplicates: same identity (or normalised name without identity fields) is 409 duplicate_object unless allowed', async () => {
    const w = await setUp();
    const sid = w.schema.id;
    const dup = await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client', canonical_name: 'Other name', fields: { code: 'AC-1' } });
    expect([dup.status, dup.body.code, dup.body.existing_uid]).toEqual([409, 'duplicate_object', w.acme.uid]);
    expect((await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client', canonical_name: 'Other', fields: { code: 'AC-1' }, allow_duplicate: true })).status).toBe(201);
    const ada = ok(await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'ClientContact', canonical_name: 'Ada Lovelace' }), 201);
    const again = await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'ClientContact', canonical_name: '  ada   LOVELACE!' });
    expect([again.status, again.body.existing_uid]).toEqual([409, ada.uid]);
    const audit = ok(await w.k.post(`/v1/ontology/schemas/${sid}/duplicates/audit`, {}), 200);
    expect(audit).toMatchObject({ schema_id: sid, total_collisions: 1, collisions: [{ object_type: 'Client', identity: { code: 'AC-1' }, count: 2 }] });
    expect(audit.object_types_checked).toBe(3);
  });

  it('a duplicate held outside a confined agent’s scope is refused without naming the holder', async () => {
    const w = await setUp();
    const sid = w.schema.id;
    const agent = api(t.url, (await createApiKey(t.url, w.access_token, { agent_id: 'scout' })).key);
    const dupOf = (a: typeof agent) => a.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client', canonical_name: 'Other name', fields: { code: 'AC-1' } });
    // unrestricted (no grant yet): it sees Acme, so the refusal names it
    const open = await dupOf(agent);
    expect([open.status, open.body.code, open.body.existing_uid]).toEqual([409, 'duplicate_object', w.acme.uid]);

    // confined to a Project that admits nothing: Acme is outside its scope
    const owner = api(t.url, w.access_token);
    const project = ok(await w.k.post('/node', { node_type: 'Project', label: 'Orion' }), 201).uid;
    ok(await owner.post(`/v1/projects/${project}/grants`, { principal_uid: 'agent:scout', role: 'agent' }), 201);
    expect((await agent.get(`/ontology/object/${w.acme.uid}`)).status).toBe(404);
    const hidden = await dupOf(agent);
    expect([hidden.status, hidden.body.code]).toEqual([409, 'duplicate_object']);
    expect(hidden.body).not.toHaveProperty('existing_uid');
    expect(hidden.text).not.toContain(w.acme.uid);
    // the same request from an organization-wide key still names the holder
    expect((await dupOf(w.k)).body.existing_uid).toBe(w.acme.uid);
  });

  it('needs an active schema (409 schema_not_active) and an existing one (404)', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k, { activate: false });
    expect((await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'x', fields: { code: 'a' } })).body).toMatchObject({ code: 'schema_not_active' });
    expect((await w.k.post('/v1/ontology/objects', { schema_id: 'nope', object_type: 'Client', canonical_name: 'x' })).status).toBe(404);
  });

  it('each create is decided on the schema as it is now: a field, a type, an archive or a deprecation made after the last create counts at once', async () => {
    const w = await setUp(); // one create already decided on this schema
    const sid = w.schema.id;
    const create = (object_type: string, canonical_name: string, fields: Record<string, unknown>) => w.k.post('/v1/ontology/objects', { schema_id: sid, object_type, canonical_name, fields });
    const fields = [...w.client.fields_json, { name: 'region', type: 'enum', enum: ['north', 'south'] }];
    ok(await w.k.patch(`/v1/ontology/schemas/${sid}/object-types/${w.client.id}`, { fields }), 200);
    ok(await create('Client', 'Borealis', { code: 'B-1', region: 'north' }), 201);
    expect((await create('Client', 'Austral', { code: 'A-1', region: 'east' })).body).toMatchObject({ code: 'schema_validation_failed' });
    const supplier = ok(await w.k.post(`/v1/ontology/schemas/${sid}/object-types`, { name: 'Supplier', fields: [{ name: 'vat', type: 'string' }] }), 201);
    ok(await create('Supplier', 'Parts Ltd', { vat: 'GB1' }), 201);
    ok(await w.k.delete(`/v1/ontology/schemas/${sid}/object-types/${supplier.id}`), 200);
    expect((await create('Supplier', 'Bolts Ltd', { vat: 'GB2' })).status).toBe(422);
    ok(await w.k.post(`/v1/ontology/schemas/${sid}/deprecate`, {}), 200);
    expect((await create('Client', 'Cirrus', { code: 'C-1' })).body).toMatchObject({ code: 'schema_not_active' });
  });

  it('PATCH: reason and expected_version required, identity immutable, versions and history', async () => {
    const w = await setUp();
    const path = `/v1/ontology/objects/${w.acme.uid}`;
    expect((await w.k.patch(path, { expected_version: 1 })).body).toMatchObject({ code: 'missing_field', field: 'reason' });
    expect((await w.k.patch(path, { reason: 'r' })).body).toMatchObject({ code: 'missing_field', field: 'expected_version' });
    expect((await w.k.patch(path, { reason: 'r', expected_version: 1, fields: { code: 'AC-2' } })).body).toMatchObject({ code: 'immutable_field', field: 'fields.code' });
    expect((await w.k.patch(path, { reason: 'r', expected_version: 1, fields: { tier: 'iron' } })).body).toMatchObject({ code: 'schema_validation_failed' });
    // a blank canonical_name is refused, not read as omitted while the rest applies
    expect((await w.k.patch(path, { reason: 'r', expected_version: 1, canonical_name: '  ', fields: { tier: 'silver' } })).body).toMatchObject({ code: 'missing_field', field: 'canonical_name' });
    clock.advance(5);
    const u = ok(await w.k.patch(path, { reason: 'upgraded', expected_version: 1, fields: { tier: 'silver', code: 'AC-1' }, canonical_name: 'Acme Corporation' }), 200);
    expect(u).toMatchObject({ version: 2, label: 'Acme Corporation', props: { canonical_name: 'Acme Corporation', fields: { code: 'AC-1', tier: 'silver' }, identity: { code: 'AC-1' } } });
    const stale = await w.k.patch(path, { reason: 'r', expected_version: 1 });
    expect([stale.status, stale.body.code, stale.body.current_version]).toEqual([409, 'version_conflict', 2]);
    const h = ok(await w.k.get(`/ontology/object/${w.acme.uid}/history`), 200);
    expect(h.map((v: any) => [v.version, v.change_type, v.change_reason])).toEqual([
      [1, 'create', null],
      [2, 'update', 'upgraded'],
    ]);
    expect((await w.k.patch('/v1/ontology/objects/nope', { reason: 'r', expected_version: 1 })).status).toBe(404);
  });

  it('concurrent PATCHes of one object at the same version: one wins, the other is 409', async () => {
    const w = await setUp();
    const path = `/v1/ontology/objects/${w.acme.uid}`;
    const results = await Promise.all([1, 2, 3, 4].map((i) => w.k.patch(path, { reason: `r${i}`, expected_version: 1, fields: { employees: i } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    expect(ok(await w.k.get(`/ontology/object/${w.acme.uid}`), 200).version).toBe(2);
  });

  it('concurrent creates of one identity: exactly one is created, the others are 409 duplicate_object', async () => {
    const w = await setUp();
    const body = { schema_id: w.schema.id, object_type: 'Client', canonical_name: 'Race', fields: { code: 'RACE' } };
    const results = await Promise.all(Array.from({ length: 6 }, () => w.k.post('/v1/ontology/objects', body)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.body.code, r.body.existing_uid]).toEqual([409, 'duplicate_object', created[0].body.uid]);
  });

  it('lists with sort and pagination', async () => {
    const w = await setUp();
    const sid = w.schema.id;
    for (const [name, code] of [['Zeta', 'Z'], ['Beta', 'B']]) {
      clock.advance(1);
      ok(await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type: 'Client', canonical_name: name, fields: { code } }), 201);
    }
    const names = async (q: string) => ok(await w.k.get(`/ontology/objects?schema_id=${sid}${q}`), 200).items.map((o: any) => o.props.canonical_name);
    expect(await names('')).toEqual(['Beta', 'Zeta', 'Acme Corp']);
    expect(await names('&sort=canonical_name')).toEqual(['Acme Corp', 'Beta', 'Zeta']);
    expect(await names('&sort=-canonical_name&object_type=client')).toEqual(['Zeta', 'Beta', 'Acme Corp']);
    expect(await names('&sort=created_at&limit=1&offset=1')).toEqual(['Zeta']);
    expect(ok(await w.k.get(`/ontology/objects?schema_id=${sid}&limit=2`), 200)).toMatchObject({ has_more: true, limit: 2, offset: 0 });
    expect(await names('&object_type=Contract')).toEqual([]);
    expect((await w.k.get(`/ontology/objects?schema_id=${sid}&sort=label`)).body).toMatchObject({ code: 'invalid_field', field: 'sort' });
    expect((await w.k.get('/ontology/objects')).body).toMatchObject({ code: 'missing_field', field: 'schema_id' });
  });

  it('relations: endpoint typing, symmetric, cardinality, idempotent create', async () => {
    const w = await setUp();
    const sid = w.schema.id;
    const mk = async (object_type: string, canonical_name: string, fields: Record<string, unknown> = {}) =>
      ok(await w.k.post('/v1/ontology/objects', { schema_id: sid, object_type, canonical_name, fields }), 201).uid as string;
    const globex = await mk('Client', 'Globex', { code: 'GX' });
    const initech = await mk('Client', 'Initech', { code: 'IN' });
    const c1 = await mk('Contract', 'C1', { number: 'C1', client: w.acme.uid });
    const ada = await mk('ClientContact', 'Ada');

    const link = (from_uid: string, to_uid: string, relation_type: string, extra = {}) => w.k.post('/ontology/relation', { from_uid, to_uid, relation_type, ...extra });
    const first = await link(w.acme.uid, c1, 'has_contract');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: true, edge: { from_uid: w.acme.uid, to_uid: c1, edge_type: 'HasContract', layer: 'ontology', props: { _type: 'HasContract', schema_id: sid, relation_type_id: w.hasContract.id, fields: {} } } });
    const again = await link(w.acme.uid, c1, 'HasContract');
    expect([again.status, again.body.created, again.body.edge.uid]).toEqual([200, false, first.body.edge.uid]);
    // the same link with fields its relation does not define is refused, not answered as the existing one
    const badAgain = await link(w.acme.uid, c1, 'has_contract', { fields: { signed_by: 'x' } });
    expect([badAgain.status, badAgain.body.code, badAgain.body.errors?.[0]?.path]).toEqual([422, 'schema_validation_failed', 'fields.signed_by']);
    // one_to_many: the contract already has its client
    expect((await link(globex, c1, 'has_contract')).body).toMatchObject({ code: 'cardinality_violation' });
    // endpoint types
    expect((await link(c1, w.acme.uid, 'has_contract')).body).toMatchObject({ code: 'schema_validation_failed' });
    expect((await link(ada, w.acme.uid, 'works_with')).status).toBe(201);
    expect((await link(w.acme.uid, ada, 'works_with')).body).toMatchObject({ code: 'schema_validation_failed' });
    // symmetric one_to_one: the reverse is the same link; a third party breaks cardinality
    expect((await link(w.acme.uid, globex, 'partner_of')).status).toBe(201);
    const reverse = await link(globex, w.acme.uid, 'partner_of');
    expect([reverse.status, reverse.body.created]).toEqual([200, false]);
    expect((await link(initech, globex, 'partner_of')).body).toMatchObject({ code: 'cardinality_violation' });
    // errors of the request itself
    expect((await link(w.acme.uid, c1, 'owns')).body).toMatchObject({ code: 'schema_validation_failed', errors: [{ path: 'relation_type' }] });
    expect((await link(w.acme.uid, 'missing', 'has_contract')).body).toMatchObject({ code: 'not_found', field: 'to_uid' });
    expect((await link(w.acme.uid, 'bad uid', 'has_contract')).body).toMatchObject({ code: 'invalid_uid', field: 'to_uid' });
    expect((await w.k.post('/ontology/relation', { action: 'delete', from_uid: w.acme.uid, to_uid: c1, relation_type: 'has_contract' })).body).toMatchObject({ code: 'unknown_action', valid_actions: ['create'] });
    const plain = ok(await w.k.post('/node', { node_type: 'Person', label: 'Bob' }), 201);
    expect((await link(plain.uid, c1, 'has_contract')).body).toMatchObject({ code: 'wrong_node_type', field: 'from_uid' });
    expect((await w.k.get(`/ontology/object/${plain.uid}`)).status).toBe(404);
  });

  it('a key reaching several Spaces creates an object in the Space it names', async () => {
    const w = await setUp();
    const owner = api(t.url, w.access_token);
    const [east, west] = [ok(await owner.post('/node', { node_type: 'Space', label: 'East' }), 201).uid, ok(await owner.post('/node', { node_type: 'Space', label: 'West' }), 201).uid];
    const both = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read', 'write'], space_uids: [east, west] })).key);
    const body = { schema_id: w.schema.id, object_type: 'Client', canonical_name: 'Westwind', fields: { code: 'WW' } };
    expect((await both.post('/v1/ontology/objects', body)).body).toMatchObject({ code: 'missing_field', field: 'space_uid' });
    const made = ok(await both.post('/v1/ontology/objects', { ...body, space_uid: west }), 201);
    expect(ok(await w.k.get(`/edges?from_uid=${made.uid}`), 200).map((e: any) => [e.edge_type, e.to_uid])).toEqual([['InSpace', west]]);
    const eastOnly = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read'], space_uids: [east] })).key);
    expect((await eastOnly.get(`/ontology/object/${made.uid}`)).status).toBe(404);
    expect((await both.post('/v1/ontology/objects', { ...body, fields: { code: 'WX' }, space_uid: 'elsewhere' })).body).toMatchObject({ code: 'not_found', field: 'space_uid' });
  });

  it('a relation joins objects of its own schema: an object of a same-named type in another schema is refused, nothing written', async () => {
    const w = await setUp();
    const ada = ok(await w.k.post('/v1/ontology/objects', { schema_id: w.schema.id, object_type: 'ClientContact', canonical_name: 'Ada' }), 201).uid as string;
    const other = ok(await w.k.post('/v1/ontology/schemas', { name: 'Other' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${other.id}/object-types`, { name: 'Client' }), 201);
    ok(await w.k.post(`/v1/ontology/schemas/${other.id}/activate`, {}), 200);
    const foreign = ok(await w.k.post('/v1/ontology/objects', { schema_id: other.id, object_type: 'Client', canonical_name: 'Foreign client' }), 201).uid as string;
    const r = await w.k.post('/ontology/relation', { from_uid: ada, to_uid: foreign, relation_type: 'works_with' });
    expect([r.status, r.body.code, r.body.errors?.[0]?.path]).toEqual([422, 'schema_validation_failed', 'to_uid']);
    expect(ok(await w.k.get(`/edges?from_uid=${ada}`), 200)).toEqual([]);
    expect((await w.k.post('/ontology/relation', { from_uid: ada, to_uid: w.acme.uid, relation_type: 'works_with' })).status).toBe(201);
  });

  it("another organization's objects are 404; a read-only key reads but cannot write", async () => {
    const w = await setUp();
    const other = await world(t.url);
    expect((await other.k.get(`/ontology/object/${w.acme.uid}`)).status).toBe(404);
    expect((await other.k.patch(`/v1/ontology/objects/${w.acme.uid}`, { reason: 'r', expected_version: 1 })).status).toBe(404);
    expect((await other.k.get(`/ontology/objects?schema_id=${w.schema.id}`)).status).toBe(404);
    expect((await other.k.post('/v1/ontology/objects', { schema_id: w.schema.id, object_type: 'Client', canonical_name: 'x', fields: { code: 'q' } })).status).toBe(404);
    const ro = api(t.url, (await createApiKey(t.url, w.access_token, { scopes: ['read'] })).key);
    expect((await ro.get(`/ontology/object/${w.acme.uid}`)).status).toBe(200);
    for (const r of [
      await ro.post('/v1/ontology/objects', { schema_id: w.schema.id, object_type: 'Client', canonical_name: 'x', fields: { code: 'q' } }),
      await ro.patch(`/v1/ontology/objects/${w.acme.uid}`, { reason: 'r', expected_version: 1 }),
      await ro.post('/ontology/relation', { from_uid: w.acme.uid, to_uid: w.acme.uid, relation_type: 'partner_of' }),
    ])
      expect([r.status, r.body.code]).toEqual([403, 'read_only_credential']);
  });
});
