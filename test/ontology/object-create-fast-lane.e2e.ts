import { DomainError } from '@strata/domain/errors';
import { DtoBodyPipe } from '../../apps/api/src/platform/http/dto/dto-body.pipe';
import { CreateObjectDto } from '../../apps/api/src/ontology/objects/object.dto';
import { TestApp, startTestApp } from '../support/test-app';
import { request, signUp } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';

/** What the controller lane answered a body: the DTO pipe's error, as the exception filter sends it. */
function pipeAnswer(body: unknown): { status: number; body: unknown } | null {
  try {
    new DtoBodyPipe().transform(body, { type: 'body', metatype: CreateObjectDto });
    return null;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { status: e.status, body: e.toBody() };
  }
}

/**
 * `POST /v1/ontology/objects` runs on the fast lane: its body is checked as the controller's
 * DTO pipe checks it (the same first failing field, code and message), and a client cannot
 * tell the lanes apart.
 */
describe('POST /v1/ontology/objects on the fast lane', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimitPerMinute: 1000 });
  });
  afterAll(() => t.close());

  it('answers every bad body with the DTO pipe answer', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const sid = s.schema.id;
    // (a body that is not a JSON object is refused by the JSON parser, before either lane)
    const bodies: unknown[] = [
      {},
      { object_type: 'Client', canonical_name: 'Acme' },
      { schema_id: 7, object_type: 'Client', canonical_name: 'Acme' },
      { schema_id: sid, object_type: 'x'.repeat(101), canonical_name: 'Acme' },
      { schema_id: sid, object_type: 'Client', canonical_name: '' },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', fields: [1] },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', aliases: [1] },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', aliases: 'Acme' },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', identity: 'AC-1' },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', confidence: 1.5 },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', allow_duplicate: 'yes' },
      { schema_id: sid, object_type: 'Client', canonical_name: 'Acme', agent_id: 42 },
      // the first failing field in declaration order answers
      { schema_id: 7, object_type: 7, canonical_name: 7 },
    ];
    for (const body of bodies) {
      const expected = pipeAnswer(body);
      expect([body, expected]).not.toEqual([body, null]);
      const r = await w.k.post('/v1/ontology/objects', body);
      expect([body, { status: r.status, body: r.body }]).toEqual([body, expected]);
    }
  });

  it('treats null as omitted and drops unknown fields, as the pipe does', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const body = { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme', fields: { code: 'AC-9' }, aliases: null, confidence: null, colour: 'red' };
    expect(pipeAnswer(body)).toBeNull();
    const r = ok(await w.k.post('/v1/ontology/objects', body), 201);
    expect(r.object.props).toMatchObject({ canonical_name: 'Acme', aliases: [], fields: { code: 'AC-9' } });
    expect(r.object.props).not.toHaveProperty('colour');
  });

  it('refuses credentials as a guarded controller write route of the ontology does', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const stranger = await signUp(t.url);
    const body = { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme', fields: { code: 'AC-2' } };
    const cases: [string, Record<string, string>, number][] = [
      ['no Authorization header', {}, 401],
      ['an unknown key', { authorization: 'Bearer strata_0000000000000000000000000000000000000000000' }, 401],
      ['a user of another organization naming this one', { authorization: `Bearer ${stranger.access_token}`, 'x-org-id': w.org_id }, 403],
    ];
    for (const [what, headers, status] of cases) {
      const fast = await request(t.url, 'POST', '/v1/ontology/objects', { headers, body });
      const guarded = await request(t.url, 'POST', '/v1/ontology/schemas', { headers, body: { name: 'x' } });
      expect([what, fast.status, fast.body, fast.headers.get('www-authenticate')]).toEqual([what, guarded.status, guarded.body, guarded.headers.get('www-authenticate')]);
      expect([what, fast.status]).toEqual([what, status]);
    }
  });

  it('answers 201 with the object and the request id', async () => {
    const w = await world(t.url);
    const s = await clientServices(w.k);
    const r = await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme', fields: { code: 'AC-3' } }, { headers: { 'x-request-id': 'req-obj-1' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-request-id')).toBe('req-obj-1');
    expect(ok(await w.k.get(`/ontology/object/${r.body.uid}`), 200)).toEqual(r.body.object);
  });
});
