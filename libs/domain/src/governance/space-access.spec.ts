import { AccessPrincipal, assertMayLowerClassification, assertMayWriteSpaceNode, spaceAccessOf, SYSTEM_ACCESS_PRINCIPAL, writesOnlyInSpaces } from './access-principal';
import { Classification, CLASSIFICATIONS } from './classification';
import { holdsAnySpaceWrite, mayWriteIntoSpace, spaceRuleAllows, SpaceGrantTerms } from './space-access';

const S = 'space-a';
const OTHER = 'space-b';

function principal(over: Partial<AccessPrincipal>): AccessPrincipal {
  return { credential: 'user_jwt', user_id: 'u1', role: 'member', scopes: ['read', 'write'], bound_agent_id: null, space_uids: null, project_uids: null, ...over };
}

/** grants by principal uid, then by Space */
function lookup(grants: Record<string, Record<string, SpaceGrantTerms>>) {
  return (p: string) => new Map(Object.entries(grants[p] ?? {}));
}

const read = (ceiling: Classification | null = null): SpaceGrantTerms => ({ access: 'read', classification_ceiling: ceiling });
const write = (ceiling: Classification | null = null): SpaceGrantTerms => ({ access: 'write', classification_ceiling: ceiling });

type Row = [name: string, p: AccessPrincipal, grants: Record<string, Record<string, SpaceGrantTerms>>, level: Classification, canRead: boolean, canWrite: boolean];

// REFERENCE §13.1, "Access to a spaced node N of classification c", one row per case
const TABLE: Row[] = [
  ['owner JWT, no grant', principal({ role: 'owner' }), {}, 'restricted', true, true],
  ['admin JWT, no grant', principal({ role: 'admin' }), {}, 'restricted', true, true],
  ['unlimited API key', principal({ credential: 'api_key', role: null }), {}, 'restricted', true, true],
  ['member JWT without grant', principal({}), {}, 'public', false, false],
  ['member JWT, grant on another Space', principal({}), { 'user:u1': { [OTHER]: write() } }, 'public', false, false],
  ['member JWT, read grant, no ceiling', principal({}), { 'user:u1': { [S]: read() } }, 'restricted', true, false],
  ['member JWT, write grant, no ceiling', principal({}), { 'user:u1': { [S]: write() } }, 'restricted', true, true],
  ['member JWT, write grant, ceiling = level', principal({}), { 'user:u1': { [S]: write('confidential') } }, 'confidential', true, true],
  ['member JWT, write grant, ceiling below level', principal({}), { 'user:u1': { [S]: write('internal') } }, 'confidential', false, false],
  ['viewer JWT, write grant (writes inside the Space)', principal({ role: 'viewer' }), { 'user:u1': { [S]: write() } }, 'internal', true, true],
  ['viewer JWT, read grant', principal({ role: 'viewer' }), { 'user:u1': { [S]: read() } }, 'internal', true, false],
  ['key listing the Space, read+write', principal({ credential: 'api_key', role: null, space_uids: [S] }), {}, 'restricted', true, true],
  ['key listing the Space, read only', principal({ credential: 'api_key', role: null, scopes: ['read'], space_uids: [S] }), {}, 'restricted', true, false],
  ['key listing another Space', principal({ credential: 'api_key', role: null, space_uids: [OTHER] }), {}, 'public', false, false],
  ['key limited to Projects only', principal({ credential: 'api_key', role: null, project_uids: ['p1'] }), {}, 'public', false, false],
  ['agent-bound key, agent without grant', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1' }), {}, 'public', false, false],
  ['agent-bound key, agent read grant', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1' }), { 'agent:a1': { [S]: read() } }, 'internal', true, false],
  ['agent-bound key, agent write grant', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1' }), { 'agent:a1': { [S]: write() } }, 'internal', true, true],
  ['agent-bound key, agent grant ceiling too low', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1' }), { 'agent:a1': { [S]: write('public') } }, 'internal', false, false],
  ['agent-bound key, agent grant, key lists another Space', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1', space_uids: [OTHER] }), { 'agent:a1': { [S]: write() } }, 'internal', false, false],
  ['agent-bound key, agent grant, key lists the Space', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1', space_uids: [S] }), { 'agent:a1': { [S]: write() } }, 'internal', true, true],
  ['agent-bound read-only key, agent write grant', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1', scopes: ['read'], space_uids: [S] }), { 'agent:a1': { [S]: write() } }, 'internal', true, false],
  ['user grant does not reach an agent-bound key', principal({ credential: 'api_key', role: null, bound_agent_id: 'a1' }), { 'user:u1': { [S]: write() } }, 'public', false, false],
  ['system process', SYSTEM_ACCESS_PRINCIPAL, {}, 'restricted', true, true],
];

describe('the Space access table (REFERENCE §13.1)', () => {
  it.each(TABLE)('%s', (_name, p, grants, level, canRead, canWrite) => {
    const access = spaceAccessOf(p, lookup(grants));
    const node = { spaces: [S], classification: level };
    expect(spaceRuleAllows(access, node, 'read')).toBe(canRead);
    expect(spaceRuleAllows(access, node, 'write')).toBe(canWrite);
  });

  it.each(TABLE)('%s: an unspaced node keeps the other rules (the Space rule passes it)', (_name, p, grants) => {
    const access = spaceAccessOf(p, lookup(grants));
    for (const c of CLASSIFICATIONS) expect(spaceRuleAllows(access, { spaces: [], classification: c }, 'write')).toBe(true);
  });

  it('a node in several Spaces is reachable through any one of them', () => {
    const access = spaceAccessOf(principal({}), lookup({ 'user:u1': { [OTHER]: read() } }));
    expect(spaceRuleAllows(access, { spaces: [S, OTHER], classification: 'internal' }, 'read')).toBe(true);
    expect(spaceRuleAllows(access, { spaces: [S, OTHER], classification: 'internal' }, 'write')).toBe(false);
  });

  it('the ceiling compares on the ordered scale public < internal < confidential < restricted', () => {
    const access = spaceAccessOf(principal({}), lookup({ 'user:u1': { [S]: read('internal') } }));
    expect(CLASSIFICATIONS.map((c) => spaceRuleAllows(access, { spaces: [S], classification: c }, 'read'))).toEqual([true, true, false, false]);
  });

  it('write access to a Space itself follows its grants', () => {
    expect(mayWriteIntoSpace(spaceAccessOf(principal({}), lookup({ 'user:u1': { [S]: write('public') } })), S)).toBe(true);
    expect(mayWriteIntoSpace(spaceAccessOf(principal({}), lookup({ 'user:u1': { [S]: read() } })), S)).toBe(false);
  });
});

describe('who may write a Space node or lower a classification', () => {
  const codeOf = (f: () => void) => {
    try {
      f();
      return 'ok';
    } catch (e: any) {
      return e.code;
    }
  };
  it.each([
    ['owner JWT', principal({ role: 'owner' }), 'ok', 'ok'],
    ['admin JWT', principal({ role: 'admin' }), 'insufficient_role', 'ok'],
    ['member JWT', principal({ role: 'member' }), 'insufficient_role', 'insufficient_role'],
    ['viewer JWT', principal({ role: 'viewer' }), 'insufficient_role', 'insufficient_role'],
    ['API key', principal({ credential: 'api_key', role: null }), 'api_key_not_allowed', 'api_key_not_allowed'],
  ])('%s', (_n, p, spaceNode, lower) => {
    expect(codeOf(() => assertMayWriteSpaceNode(p))).toBe(spaceNode);
    expect(codeOf(() => assertMayLowerClassification(p))).toBe(lower);
  });
});

describe('an org viewer writes only inside Spaces it may write', () => {
  const viewer = principal({ role: 'viewer', scopes: ['read'] });

  it('only a read-only user JWT is confined to its Spaces; read-only keys stay read-only', () => {
    expect(writesOnlyInSpaces(viewer)).toBe(true);
    expect(writesOnlyInSpaces(principal({}))).toBe(false);
    expect(writesOnlyInSpaces(principal({ credential: 'api_key', role: null, scopes: ['read'] }))).toBe(false);
    expect(writesOnlyInSpaces(SYSTEM_ACCESS_PRINCIPAL)).toBe(false);
  });

  it('holds a write somewhere only through a write grant (or a writing Space list)', () => {
    expect(holdsAnySpaceWrite(spaceAccessOf(viewer, lookup({})))).toBe(false);
    expect(holdsAnySpaceWrite(spaceAccessOf(viewer, lookup({ 'user:u1': { [S]: read() } })))).toBe(false);
    expect(holdsAnySpaceWrite(spaceAccessOf(viewer, lookup({ 'user:u1': { [S]: read(), [OTHER]: write('internal') } })))).toBe(true);
    expect(holdsAnySpaceWrite(spaceAccessOf(principal({ role: 'owner' }), lookup({})))).toBe(true);
    expect(holdsAnySpaceWrite(spaceAccessOf(principal({ credential: 'api_key', role: null, scopes: ['read'], space_uids: [S] }), lookup({})))).toBe(false);
    expect(holdsAnySpaceWrite(spaceAccessOf(principal({ credential: 'api_key', role: null, space_uids: [S] }), lookup({})))).toBe(true);
  });
});
