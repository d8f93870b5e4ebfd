import { CredentialChange } from '../accounts-directory.port';
import { PlanCatalogue, parsePlanOverrides } from './plan-catalogue';
import { PlanLimits, UsageCounters } from './plan-limits';

function setup(nodes: number, plan: 'free' | 'pro' = 'free') {
  const listeners: ((c: CredentialChange) => void)[] = [];
  let currentPlan = plan;
  const dir = {
    keyBySecretHash: () => null,
    membershipsOf: () => [],
    planOf: () => currentPlan,
    onCredentialChange: (l: (c: CredentialChange) => void) => listeners.push(l),
  };
  const counts = { approx: nodes, exact: nodes, credits: 0, exactCalls: 0 };
  const counters: UsageCounters = {
    liveNodes: (_o, exact) => (exact ? (counts.exactCalls++, counts.exact) : counts.approx),
    creditsUsed: () => counts.credits,
  };
  const limits = new PlanLimits(new PlanCatalogue({ free: { nodes: 1000 } }), dir, counters, () => 1_800_000_000);
  return { limits, counts, setPlan: (p: 'free' | 'pro') => ((currentPlan = p), listeners.forEach((l) => l({ kind: 'org', org_id: 'o' }))) };
}

describe('PlanLimits', () => {
  it('far from the limit: answers from the cached count, no exact count', () => {
    const { limits, counts } = setup(10);
    limits.assertCanAddNodes({ org: 'o' }, 5);
    expect(counts.exactCalls).toBe(0);
  });
  it('near the limit: counts exactly and refuses with plan_limit_reached naming the limit', () => {
    const { limits, counts } = setup(900);
    counts.exact = 1000;
    expect(() => limits.assertCanAddNodes({ org_id: 'o' }, 1)).toThrow(
      expect.objectContaining({ status: 403, code: 'plan_limit_reached', context: { limit: 'nodes', max: 1000, current: 1000, plan: 'free' } }),
    );
    counts.exact = 999;
    expect(() => limits.assertCanAddNodes({ org: 'o' }, 1)).not.toThrow();
    expect(() => limits.assertCanAddNodes({ org: 'o' }, 2)).toThrow();
  });
  it('follows plan changes (cache evicted) and unlimited plans never count', () => {
    const { limits, counts, setPlan } = setup(5000);
    expect(() => limits.assertCanAddNodes({ org: 'o' })).toThrow();
    setPlan('pro');
    expect(() => limits.assertCanAddNodes({ org: 'o' })).not.toThrow();
    const ent = new PlanLimits(new PlanCatalogue(), { keyBySecretHash: () => null, membershipsOf: () => [], planOf: () => 'enterprise', onCredentialChange: () => undefined }, { liveNodes: () => { throw new Error('must not count'); }, creditsUsed: () => 0 }, () => 0);
    expect(() => ent.assertCanAddNodes({ org: 'o' }, 1_000_000)).not.toThrow();
    expect(counts.exactCalls).toBeGreaterThan(0);
  });
  it('managed agents need Pro or higher (plan_required)', () => {
    const { limits, setPlan } = setup(0);
    expect(() => limits.assertManagedAgentsAllowed({ org: 'o' })).toThrow(expect.objectContaining({ code: 'plan_required', context: { required_plan: 'pro' } }));
    setPlan('pro');
    expect(() => limits.assertManagedAgentsAllowed({ org: 'o' })).not.toThrow();
  });
  it('ingestion credits per month', () => {
    const { limits, counts } = setup(0);
    counts.credits = 99;
    expect(() => limits.assertCreditsAvailable({ org: 'o' }, 1)).not.toThrow();
    expect(() => limits.assertCreditsAvailable({ org: 'o' }, 2)).toThrow(expect.objectContaining({ code: 'plan_limit_reached', context: expect.objectContaining({ limit: 'ingestion_credits_per_month' }) }));
  });
});

describe('parsePlanOverrides', () => {
  it('accepts known plans and limits, refuses the rest', () => {
    expect(parsePlanOverrides('{"free":{"nodes":5,"requests_per_minute":10,"managed_agents":true},"enterprise":{"nodes":null}}')).toEqual({
      free: { nodes: 5, requests_per_minute: 10, managed_agents: true },
      enterprise: { nodes: null },
    });
    expect(parsePlanOverrides(undefined)).toEqual({});
    expect(parsePlanOverrides('{"free":{"mcp_connections":0},"team":{"mcp_connections":null}}')).toEqual({ free: { mcp_connections: 0 }, team: { mcp_connections: null } });
    for (const bad of ['nope', '[]', '{"gold":{}}', '{"free":{"nodes":-1}}', '{"free":{"colour":1}}', '{"free":{"requests_per_minute":0}}', '{"free":{"mcp_connections":-1}}', '{"free":{"mcp_connections":1.5}}'])
      expect(() => parsePlanOverrides(bad)).toThrow();
  });
});
