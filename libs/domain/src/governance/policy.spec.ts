import { checkPolicyMatch, compilePolicy, decidePolicyPatch, evaluatePolicies, PolicyIndex, PolicyMatch, RequestFacts, requestFingerprint, routeTest, templateMatchesRoute } from './policy';
import { DomainError } from '../errors';
import { policyRecord } from '../testing/policy-record';

const policy = policyRecord;

const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  principal: { kind: 'api_key', id: 'k1', role: null, bound_agent_id: 'planner' },
  method: 'POST',
  path: '/node',
  action: null,
  tool_uid: null,
  written: [{ uid: 'n1', node_type: 'Claim', layer: 'epistemic', classification: 'confidential', spaces: ['s1'], projects: [] }],
  ...over,
});

describe('policy match (REFERENCE §13.6)', () => {
  const env = { routeExists: (m: string, t: string) => templateMatchesRoute(t, '/node/:uid') || t === '/node', nodeTypeOf: (u: string) => ({ s1: 'Space', a1: 'Affordance' })[u] ?? null, customNodeTypeExists: () => false };

  it('normalises a valid match and lists every error of an invalid one', () => {
    expect(checkPolicyMatch({ node_types: ['claim', 'Claim'], layers: ['Epistemic'], spaces: ['s1'], routes: ['* /node/{uid}'] }, env)).toEqual({
      match: { node_types: ['Claim'], layers: ['epistemic'], spaces: ['s1'], routes: ['* /node/{uid}'] },
      errors: [],
    });
    const bad = checkPolicyMatch({ principals: ['root'], tools: ['s1'], extra: 1, min_classification: 'secret' }, env);
    expect(bad.match).toBeNull();
    expect(bad.errors.map((e) => e.path)).toEqual(['match.principals[0]', 'match.tools[0]', 'match.extra', 'match.min_classification']);
    expect(checkPolicyMatch({}, env).errors[0].path).toBe('match');
  });

  it('routes: exact segments, placeholders, trailing /**, #action', () => {
    expect(routeTest('POST /node')('POST', '/node', null)).toBe(true);
    expect(routeTest('POST /node')('PATCH', '/node', null)).toBe(false);
    expect(routeTest('* /node/{uid}')('PATCH', '/node/abc', null)).toBe(true);
    expect(routeTest('* /node/{uid}')('PATCH', '/node/abc/history', null)).toBe(false);
    expect(routeTest('GET /v1/**')('GET', '/v1/spaces/x/grants', null)).toBe(true);
    expect(routeTest('POST /agent/governance#resolve_approval')('POST', '/agent/governance', 'get_pending')).toBe(false);
  });
});

describe('policy evaluation', () => {
  it('highest priority wins; at equal priority deny > require_approval > allow; shadow only logs', () => {
    const ps = [
      policy({ uid: 'a', effect: 'allow', priority: 1 }),
      policy({ uid: 'r', effect: 'require_approval', priority: 1 }),
      policy({ uid: 'd', effect: 'deny', priority: 0 }),
      policy({ uid: 's', effect: 'deny', status: 'shadow', priority: 99 }),
      policy({ uid: 'x', effect: 'deny', status: 'draft', priority: 99 }),
    ].map(compilePolicy);
    const d = evaluatePolicies(ps, facts(), 'enforce');
    expect(d).toMatchObject({ effect: 'require_approval', enforced: true, policy_uids: ['r', 'a', 'd'], shadow: [{ policy_uid: 's', effect: 'deny' }] });
    const shadowMode = evaluatePolicies(ps, facts(), 'shadow');
    expect(shadowMode).toMatchObject({ effect: 'allow', enforced: false, matched: true });
    expect(shadowMode.shadow.map((s) => s.policy_uid).sort()).toEqual(['a', 'd', 'r', 's']);
    expect(evaluatePolicies(ps, facts(), 'off')).toMatchObject({ effect: 'allow', matched: false, shadow: [] });
  });

  it('node conditions hold for one and the same written node; agent: matches a bound key', () => {
    const p = compilePolicy(policy({ match: { node_types: ['Claim'], min_classification: 'restricted' } }));
    expect(evaluatePolicies([p], facts(), 'enforce').matched).toBe(false);
    const two = facts({ written: [...facts().written, { uid: 'n2', node_type: 'Goal', layer: 'intent', classification: 'restricted', spaces: [], projects: [] }] });
    expect(evaluatePolicies([p], two, 'enforce').matched).toBe(false);
    expect(evaluatePolicies([compilePolicy(policy({ match: { principals: ['agent:planner'] } }))], facts(), 'enforce').effect).toBe('deny');
    expect(evaluatePolicies([compilePolicy(policy({ match: { principals: ['role:owner'] } }))], facts(), 'enforce').matched).toBe(false);
  });

  it('fingerprint: method, path, canonical body and principal', () => {
    expect(requestFingerprint('post', '/node', { b: 1, a: 2 }, 'u')).toBe(requestFingerprint('POST', '/node', { a: 2, b: 1 }, 'u'));
    expect(requestFingerprint('POST', '/node', { a: 2 }, 'u')).not.toBe(requestFingerprint('POST', '/node', { a: 2 }, 'v'));
  });
});

describe('policy lifecycle', () => {
  it('moves, no-ops, refuses', () => {
    expect(decidePolicyPatch(policy({ status: 'draft' }), { status: 'shadow' }, 'u', 5)).toMatchObject({ policy: { status: 'shadow', version: 2, status_changed_at: 5 }, status: { from: 'draft', to: 'shadow' } });
    expect(decidePolicyPatch(policy({ status: 'shadow' }), { status: 'shadow' }, 'u', 5)).toBeNull();
    expect(() => decidePolicyPatch(policy({ status: 'published' }), { priority: 3 }, 'u', 5)).toThrow(expect.objectContaining({ code: 'immutable_field' }));
    expect(() => decidePolicyPatch(policy({ status: 'rejected' }), { name: 'x' }, 'u', 5)).toThrow(DomainError);
    expect(() => decidePolicyPatch(policy({ status: 'shadow' }), { status: 'draft' }, 'u', 5)).toThrow(expect.objectContaining({ code: 'invalid_transition' }));
    expect(() => decidePolicyPatch(policy({}), { name: 'x', expected_version: 3 }, 'u', 5)).toThrow(expect.objectContaining({ code: 'version_conflict' }));
  });
});

describe('policy index', () => {
  // a small deterministic generator: the same draws on every run
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);

  it('evaluates exactly as testing every policy, over random policies and requests', () => {
    const rand = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const some = <T>(xs: readonly T[]): T[] => [...new Set(Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(xs)))];
    const principals = ['user:u1', 'user:*', 'api_key:k1', 'api_key:*', 'agent:planner', 'agent:*', 'role:admin', 'role:viewer'];
    const routes = ['POST /node', '* /node/{uid}', 'PATCH /node/{uid}', 'POST /batch', 'POST /agent/plan#create_task', '* /agent/**', '* /{x}', '* /**', 'GET /node/{uid}/history'];
    const types = ['Claim', 'Concept', 'Task', 'Space'];
    const keys: (keyof PolicyMatch)[] = ['principals', 'routes', 'tools', 'node_types', 'layers', 'min_classification', 'spaces'];
    let matched = 0;
    for (let round = 0; round < 80; round++) {
      const ps = Array.from({ length: 1 + Math.floor(rand() * 12) }, (_, i) => {
        const match: PolicyMatch = {};
        for (const k of keys) {
          if (rand() > 0.35) continue;
          if (k === 'principals') match.principals = some(principals);
          if (k === 'routes') match.routes = some(routes);
          if (k === 'tools') match.tools = some(['a1', 'a2']);
          if (k === 'node_types') match.node_types = some(types);
          if (k === 'layers') match.layers = some(['epistemic', 'semantic', 'intent']);
          if (k === 'min_classification') match.min_classification = pick(['internal', 'confidential', 'restricted'] as const);
          if (k === 'spaces') match.spaces = some(['s1', 's2']);
        }
        if (!Object.keys(match).length) match.layers = ['epistemic'];
        return compilePolicy(policy({ uid: `p${i}`, match, priority: Math.floor(rand() * 3), effect: pick(['allow', 'deny', 'require_approval'] as const), status: pick(['published', 'shadow'] as const) }));
      });
      const index = new PolicyIndex(ps);
      for (let q = 0; q < 20; q++) {
        const f = facts({
          principal: { kind: pick(['user', 'api_key', 'agent', 'system'] as const), id: pick(['u1', 'k1', 'planner']), role: pick([null, 'admin', 'viewer']), bound_agent_id: pick([null, 'planner']) },
          method: pick(['POST', 'PATCH', 'GET']),
          path: pick(['/node', '/node/n1', '/batch', '/agent/plan', '/agent/execution', '/node/n1/history', '/']),
          action: pick([null, 'create_task', 'start']),
          tool_uid: pick([null, 'a1', 'a2']),
          written: Array.from({ length: Math.floor(rand() * 3) }, (_, k) => ({
            uid: `n${k}`, node_type: pick(types), layer: pick(['epistemic', 'semantic', 'intent']), classification: pick(['internal', 'confidential', 'restricted'] as const), spaces: some(['s1', 's2', 's3']), projects: [],
          })),
        });
        for (const mode of ['enforce', 'shadow'] as const) {
          const want = evaluatePolicies(ps, f, mode);
          if (want.matched) matched++;
          expect(evaluatePolicies(index, f, mode)).toEqual(want);
        }
      }
    }
    // the draws do match: the comparison is not between two empty decisions
    expect(matched).toBeGreaterThan(100);
  });

  it('tests only the policies a request can match', () => {
    const ps = [
      policy({ uid: 'by-type', match: { node_types: ['Task'], principals: ['api_key:*'] } }),
      policy({ uid: 'by-route', match: { routes: ['* /node/{uid}'], principals: ['api_key:*'] } }),
      policy({ uid: 'by-principal', match: { principals: ['role:viewer'], layers: ['epistemic'] } }),
      policy({ uid: 'always', match: { layers: ['epistemic'] } }),
    ].map(compilePolicy);
    const index = new PolicyIndex(ps);
    const f = facts();
    expect([...index.candidates(f, ['node'])].map((i) => ps[i].policy.uid)).toEqual(['always']);
    expect([...index.candidates(facts({ written: [{ ...f.written[0], node_type: 'Task' }] }), ['node', 'n1'])].map((i) => ps[i].policy.uid)).toEqual(['by-type', 'by-route', 'always']);
  });
});
