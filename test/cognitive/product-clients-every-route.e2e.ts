import { randomUUID } from 'node:crypto';
import { PROPS_ADDITIONS, PROPS_ALIASES } from '@strata/domain/catalogue';
import { Api } from '../support/http';
import { call, CognitiveFixture, makeNode, node, startCognitive } from './cognitive-fixture';

/*
 * The product's clients work unchanged on every route that validates props: each row of the
 * REFERENCE §2.8 props-alias table, sent alone and beside its catalogue name, on POST /node,
 * /batch, PATCH /node, /evolve update, /import and the cognitive create that makes the type
 * (inside `props` and flattened beside the label), is stored under the catalogue name only.
 */

type Stored = { uid: string; props: Record<string, unknown> };

/** One way to create a node of `type` whose props are `props`; returns the stored node. */
type Create = (c: Api, type: string, props: Record<string, unknown>) => Promise<Stored>;

async function ok(r: Promise<{ status: number; body: any; text: string }>, status: number, what: string) {
  const a = await r;
  if (a.status !== status) throw new Error(`${what}: expected ${status}, got ${a.status}: ${a.text}`);
  return a.body;
}

const GENERIC_CREATES: Record<string, Create> = {
  'POST /node': async (c, type, props) => ok(c.post('/node', { node_type: type, label: `${type} node`, props }), 201, 'POST /node'),
  '/batch': async (c, type, props) => {
    const b = await ok(c.post('/batch', { nodes: [{ node_type: type, label: `${type} batch`, props }] }), 201, '/batch');
    return node(c, b.node_uids[0]);
  },
  '/import': async (c, type, props) => {
    const uid = randomUUID();
    await ok(c.post('/import', { format: 'strata.graph', format_version: 1, nodes: [{ uid, node_type: type, label: `${type} import`, props }] }), 200, '/import');
    return node(c, uid);
  },
};

/** The props a type needs besides the aliased field to be created on a generic route. */
const BASE: Record<string, Record<string, unknown>> = {};

/** Cognitive creates of each aliased type: `flat` sends the props beside the label instead of in `props`. */
function cognitiveCreates(type: string): Record<string, (c: Api, props: Record<string, unknown>, flat: boolean) => Promise<Stored>> {
  const body = (flat: boolean, props: Record<string, unknown>, rest: Record<string, unknown>) => (flat ? { ...rest, ...props } : { ...rest, props });
  const created = async (c: Api, path: string, b: Record<string, unknown>, pick: (a: any) => string, status = 201) => node(c, pick(await call(c, path, b, status)));
  const uid = (a: any) => a.uid as string;
  switch (type) {
    case 'Question':
      return { '/epistemic/inquiry question': (c, p, flat) => created(c, '/epistemic/inquiry', body(flat, p, { action: 'question', label: 'Q' }), uid) };
    case 'OpenQuestion':
      return { '/epistemic/inquiry open_question': (c, p, flat) => created(c, '/epistemic/inquiry', body(flat, p, { action: 'open_question', label: 'OQ' }), uid) };
    case 'Claim':
      return { '/epistemic/argument claim': (c, p, flat) => created(c, '/epistemic/argument', { claim: body(flat, p, { label: 'C' }) }, (a) => a.claim_uid) };
    case 'Evidence':
      return {
        '/epistemic/argument evidence[]': (c, p, flat) =>
          created(c, '/epistemic/argument', { claim: { label: 'C' }, evidence: [{ label: 'first' }, body(flat, p, { label: 'E' })] }, (a) => a.evidence_uids[1]),
      };
    case 'Warrant':
      return { '/epistemic/argument warrant': (c, p, flat) => created(c, '/epistemic/argument', { claim: { label: 'C' }, warrant: body(flat, p, { label: 'W' }) }, (a) => a.warrant_uid) };
    case 'Person':
      return {
        '/reality/entity create person': (c, p, flat) =>
          created(c, '/reality/entity', flat ? { action: 'create', label: `P ${randomUUID()}`, entity_type: 'person', ...p } : { action: 'create', label: `P ${randomUUID()}`, props: { entity_type: 'person', ...p } }, uid),
      };
    case 'Concept':
      return {
        '/epistemic/structure concept': (c, p, flat) => created(c, '/epistemic/structure', body(flat, p, { action: 'concept', label: 'K' }), uid),
        '/reality/entity create concept': (c, p, flat) =>
          created(c, '/reality/entity', flat ? { action: 'create', label: `K ${randomUUID()}`, entity_type: 'concept', ...p } : { action: 'create', label: `K ${randomUUID()}`, props: { entity_type: 'concept', ...p } }, uid),
      };
    default:
      throw new Error(`no cognitive create listed for ${type}`);
  }
}

/** Every (type, alias, field) of the table whose alias names a props field. */
const FIELD_ROWS = PROPS_ALIASES.flatMap((r) => (r.field === null ? [] : r.types.map((type) => ({ type, alias: r.alias, field: r.field as string }))));
/** Every (type, alias) registered as an alias of the node instead. */
const NODE_ALIAS_ROWS = PROPS_ALIASES.flatMap((r) => (r.field === null ? r.types.map((type) => ({ type, alias: r.alias })) : []));

async function aliasesOf(c: Api, uid: string): Promise<string[]> {
  return ((await ok(c.get(`/aliases/${uid}`), 200, 'GET /aliases')) as { text: string }[]).map((a) => a.text).sort();
}

describe("the product's clients work unchanged on every route that validates props (REFERENCE §2.8)", () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it('the table has every row §2.8 lists', () => {
    expect(FIELD_ROWS.map((r) => `${r.type}.${r.alias}→${r.field}`).sort()).toEqual(
      [
        'Question.question→text',
        'OpenQuestion.question→text',
        'Claim.statement→content',
        'Evidence.statement→description',
        'Evidence.content→description',
        'Warrant.content→principle',
        'Warrant.statement→principle',
        'Person.canonical_name→full_name',
        'Person.name→full_name',
        'Concept.canonical_name→name',
      ].sort(),
    );
    expect(NODE_ALIAS_ROWS.map((r) => `${r.type}.${r.alias}`).sort()).toEqual(['Event.canonical_name', 'Nation.canonical_name', 'Organization.canonical_name', 'Place.canonical_name']);
  });

  describe.each(FIELD_ROWS.map((r) => [`${r.type} ${r.alias} → ${r.field}`, r] as const))('%s', (_name, { type, alias, field }) => {
    const expectStored = (stored: Stored, value: string) => {
      expect(stored.props[field]).toBe(value);
      expect(stored.props).not.toHaveProperty(alias);
    };

    it.each(Object.keys(GENERIC_CREATES))('%s: the alias alone, and beside its catalogue name (which wins)', async (route) => {
      const create = GENERIC_CREATES[route];
      expectStored(await create(f.w, type, { ...BASE[type], [alias]: `${alias} via ${route}` }), `${alias} via ${route}`);
      expectStored(await create(f.w, type, { ...BASE[type], [alias]: 'the alias', [field]: 'the field' }), 'the field');
    });

    it('PATCH /node and /evolve update: the alias alone, and beside its catalogue name (which wins)', async () => {
      const uid = await makeNode(f.w, type, `${type} patched`, { [field]: 'first' });
      expectStored(await ok(f.w.patch(`/node/${uid}`, { props: { [alias]: 'patched' } }), 200, 'PATCH /node'), 'patched');
      expectStored(await node(f.w, uid), 'patched');
      expectStored(await ok(f.w.patch(`/node/${uid}`, { props: { [alias]: 'the alias', [field]: 'the field' } }), 200, 'PATCH /node'), 'the field');
      expectStored(await ok(f.w.post('/evolve', { action: 'update', uid, props_patch: { [alias]: 'evolved' } }), 200, '/evolve update'), 'evolved');
      expectStored(await ok(f.w.post('/evolve', { action: 'update', uid, props_patch: { [field]: 'field again', [alias]: 'alias again' } }), 200, '/evolve update'), 'field again');
      expectStored(await node(f.w, uid), 'field again');
    });

    it('the cognitive create of the type: in props, flattened, and beside its catalogue name (which wins)', async () => {
      for (const [route, create] of Object.entries(cognitiveCreates(type))) {
        expectStored(await create(f.w, { [alias]: `${route} in props` }, false), `${route} in props`);
        expectStored(await create(f.w, { [alias]: `${route} flattened` }, true), `${route} flattened`);
        expectStored(await create(f.w, { [alias]: 'the alias', [field]: 'the field' }, false), 'the field');
        expectStored(await create(f.w, { [alias]: 'the alias', [field]: 'the field' }, true), 'the field');
      }
    });
  });

  describe.each(NODE_ALIAS_ROWS.map((r) => [r.type, r] as const))('%s canonical_name: an alias of the node, never a props field', (type) => {
    const canonical = (route: string) => `${type} canonical via ${route}`;

    it.each(['POST /node', '/batch', '/import'])('%s', async (route) => {
      const stored = await GENERIC_CREATES[route](f.w, type, { canonical_name: canonical(route) });
      expect(stored.props).not.toHaveProperty('canonical_name');
      expect(await aliasesOf(f.w, stored.uid)).toEqual([canonical(route)]);
    });

    it('PATCH /node and /evolve update register it too, and leave props as they were', async () => {
      const uid = await makeNode(f.w, type, `${type} patched`);
      const before = (await node(f.w, uid)).props;
      const patched = await ok(f.w.patch(`/node/${uid}`, { props: { canonical_name: `${type} by PATCH`, description: 'kept' } }), 200, 'PATCH /node');
      expect(patched.props).toEqual({ ...before, description: 'kept' });
      await ok(f.w.post('/evolve', { action: 'update', uid, props_patch: { canonical_name: `${type} by evolve` } }), 200, '/evolve update');
      expect((await node(f.w, uid)).props).toEqual({ ...before, description: 'kept' });
      expect(await aliasesOf(f.w, uid)).toEqual([`${type} by PATCH`, `${type} by evolve`].sort());
      // the client's name now finds it
      expect((await call(f.w, '/reality/entity', { action: 'resolve', text: `${type} by evolve` }, 200)).uid).toBe(uid);
    });

    it('a canonical_name that cannot be matched is 400 invalid_props on PATCH too, and nothing changes', async () => {
      const uid = await makeNode(f.w, type, `${type} unmatched`);
      const r = await f.w.patch(`/node/${uid}`, { props: { canonical_name: '!!!', description: 'not written' } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_props', field: 'props.canonical_name' });
      expect((await node(f.w, uid)).version).toBe(1);
      expect(await aliasesOf(f.w, uid)).toEqual([]);
    });

    it('/reality/entity create, in props and flattened', async () => {
      const entityType = type.toLowerCase();
      const inProps = await call(f.w, '/reality/entity', { action: 'create', label: `${type} A`, props: { entity_type: entityType, canonical_name: `${type} A canonical` } }, 201);
      const flat = await call(f.w, '/reality/entity', { action: 'create', label: `${type} B`, entity_type: entityType, canonical_name: `${type} B canonical` }, 201);
      expect(flat.warnings).toBeUndefined();
      for (const [uid, label] of [
        [inProps.uid, `${type} A`],
        [flat.uid, `${type} B`],
      ]) {
        expect((await node(f.w, uid)).props).not.toHaveProperty('canonical_name');
        expect(await aliasesOf(f.w, uid)).toEqual([label, `${label} canonical`].sort());
      }
    });
  });

  describe('props additions are fields of their types, null when absent', () => {
    const ADDED = Object.entries(PROPS_ADDITIONS).flatMap(([type, fields]) => fields.split(';').map((f) => [type, f.trim().split(' ')[0]] as const));

    it('the additions are the ones §2.8 lists', () => {
      expect(ADDED.map(([t, f]) => `${t}.${f}`).sort()).toEqual(
        ['Control.action', 'Control.condition', 'Journal.mood', 'MemoryPolicy.principle', 'RiskAssessment.vulnerability', 'SafetyBudget.description'].sort(),
      );
    });

    it.each(ADDED)('%s.%s: null when absent, stored when sent, on POST /node', async (type, field) => {
      const BASE_PROPS: Record<string, Record<string, unknown>> = { Journal: { content: 'x' }, Control: { control_type: 'conditional' } };
      const absent = await ok(f.w.post('/node', { node_type: type, label: `${type} without`, props: BASE_PROPS[type] }), 201, 'POST /node');
      expect(absent.props).toHaveProperty(field, null);
      expect((await node(f.w, absent.uid)).props).toHaveProperty(field, null);
      const sent = await ok(f.w.post('/node', { node_type: type, label: `${type} with`, props: { ...BASE_PROPS[type], [field]: 'given' } }), 201, 'POST /node');
      expect((await node(f.w, sent.uid)).props).toHaveProperty(field, 'given');
      // and a wrong JSON type is the usual 400
      expect((await f.w.post('/node', { node_type: type, label: 'bad', props: { [field]: 7 } })).body.code).toBe('invalid_props');
    });

    it.each([
      ['/memory/session', { action: 'journal', label: 'J' }, ['mood']],
      ['/action/risk', { action: 'assess' }, ['vulnerability']],
      ['/memory/config', { action: 'set_policy', label: 'P' }, ['principle']],
      ['/agent/governance', { action: 'set_budget' }, ['description']],
      ['/action/procedure', { action: 'add_control', label: 'C' }, ['condition', 'action']],
    ] as const)('%s %j: null when absent in the cognitive create', async (path, body, fields) => {
      const r = await call(f.w, path, { ...body }, 201);
      const stored = await node(f.w, r.uid);
      for (const field of fields) expect(stored.props).toHaveProperty(field, null);
    });
  });
});
