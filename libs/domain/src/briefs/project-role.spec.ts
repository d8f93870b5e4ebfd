import { ProjectCaller, ProjectRoleFacts, effectiveProjectRole } from './project-role';

const user = (org_role: ProjectCaller['org_role']): ProjectCaller => ({ credential: 'user_jwt', user_id: 'u1', org_role, scopes: ['read', 'write'], bound_agent_id: null });
const key = (scopes: ('read' | 'write')[], agent: string | null = null): ProjectCaller => ({ credential: 'api_key', user_id: null, org_role: null, scopes, bound_agent_id: agent });
const facts = (f: Partial<ProjectRoleFacts> = {}): ProjectRoleFacts => ({ inScope: true, userGrant: null, agentGrant: null, agentUnrestricted: true, ...f });

describe('effectiveProjectRole (REFERENCE §12.2)', () => {
  it('gives each credential its role', () => {
    expect(effectiveProjectRole(user('owner'), facts())).toBe('manager');
    expect(effectiveProjectRole(user('admin'), facts())).toBe('manager');
    expect(effectiveProjectRole(user('member'), facts())).toBe('editor');
    expect(effectiveProjectRole(user('viewer'), facts())).toBe('viewer');
    expect(effectiveProjectRole(key(['read', 'write']), facts())).toBe('editor');
    expect(effectiveProjectRole(key(['read']), facts())).toBe('viewer');
  });

  it('lets grants raise and never lower', () => {
    expect(effectiveProjectRole(user('viewer'), facts({ userGrant: 'editor' }))).toBe('editor');
    expect(effectiveProjectRole(user('admin'), facts({ userGrant: 'viewer' }))).toBe('manager');
    // no grant lifts a read-only key
    expect(effectiveProjectRole(key(['read'], 'a'), facts({ agentGrant: 'agent' }))).toBe('viewer');
  });

  it('gives a key bound to a restricted agent only the agent’s grant, capped at viewer when read-only', () => {
    const restricted = { agentUnrestricted: false };
    expect(effectiveProjectRole(key(['read', 'write'], 'a'), facts({ ...restricted }))).toBeNull();
    expect(effectiveProjectRole(key(['read', 'write'], 'a'), facts({ ...restricted, agentGrant: 'agent' }))).toBe('agent');
    expect(effectiveProjectRole(key(['read'], 'a'), facts({ ...restricted, agentGrant: 'agent' }))).toBe('viewer');
    // the key's own scope still narrows: out of scope, unrestricted, means no role
    expect(effectiveProjectRole(key(['read', 'write'], 'a'), facts({ inScope: false }))).toBeNull();
  });

  it('has no role outside the caller’s scope', () => {
    expect(effectiveProjectRole(key(['read', 'write']), facts({ inScope: false }))).toBeNull();
  });
});
