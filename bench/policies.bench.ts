import Database from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import { PolicyRecord } from '@strata/domain/governance';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { PolicyGate } from '@strata/platform/policy/policy-gate';
import { PolicyService } from '@strata/platform/policy/policy.service';
import { ProvenanceService } from '@strata/platform/scope/provenance.service';
import { GovernanceProjection } from '@strata/projections/governance/governance.projection';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { ARGUMENT_BODY } from './cognitive.bench';
import { load, LoadResult } from './support/load';
import { processCpuMs } from './support/process-cpu';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const POLICIES = 100;
const KINDS = ['Claim', 'Lesson', 'Task', 'Decision', 'Goal'];

/** The i-th bench policy's `match`: none matches an API key's POST /node of a Concept. */
function benchMatch(i: number): Record<string, unknown> {
  return i % 4 === 0
    ? { principals: [`user:nobody-${i}`], node_types: [KINDS[i % KINDS.length]] }
    : i % 4 === 1
      ? { routes: [`POST /agent/plan#create_task`], layers: ['intent'] }
      : i % 4 === 2
        ? { node_types: [KINDS[i % KINDS.length]], min_classification: 'restricted' }
        : { principals: ['role:viewer'], routes: ['* /node/{uid}'] };
}

/**
 * The cost of structured policies (REFERENCE §13.6) on governed writes: POST /node and
 * /epistemic/argument under 32 clients, in two organizations of one service: one with 100
 * published policies (none of which matches the bench's requests, so every request is
 * evaluated against all 100 and allowed), one with none. Their legs alternate, so both write
 * into the same growing data dir and the growth weighs on each alike. Then one more policy that
 * matches every request (a decision record is appended with each). Beside throughput, the
 * service's own CPU time per request (from /proc): on a shared machine it says far more than
 * req/s does.
 */
export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  const { url, token, ownerToken } = server;
  const post = async (path: string, body: unknown, auth: string) => {
    const r = await fetch(url + path, { method: 'POST', headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<Record<string, any>>;
  };
  // the organization without policies: its own owner, plan and key
  const other = await post('/v1/auth/signup', { email: `bench-policies-none-${Date.now()}@example.com`, password: 'bench password 123' }, '');
  await post('/v1/billing/subscribe', { plan: 'enterprise' }, other.access_token);
  const noneToken = (await post('/v1/api-keys', { name: 'bench', scopes: ['read', 'write'] }, other.access_token)).key as string;
  const NODE = { label: 'bench node', node_type: 'Concept', summary: 'a node' };
  type Leg = LoadResult & { cpu_us: number | null };
  const leg = async (key: string, path: string, body: unknown): Promise<Leg> => {
    const cpu0 = processCpuMs(server.child.pid);
    const r = await load({ url: `${url}${path}`, method: 'POST', token: key, body, connections: 32, seconds: SECONDS });
    const cpu1 = processCpuMs(server.child.pid);
    return { ...r, cpu_us: cpu0 === null || cpu1 === null || r.requests === 0 ? null : Math.round(((cpu1 - cpu0) * 1000) / r.requests) };
  };
  /** two rounds of alternating legs per route, added up (requests, time, CPU) */
  const paired = async (path: string, body: unknown): Promise<{ none: Leg; hundred: Leg }> => {
    const legs: { none: Leg[]; hundred: Leg[] } = { none: [], hundred: [] };
    for (let round = 0; round < 2; round++) {
      const first = round % 2 === 0 ? 'none' : 'hundred';
      for (const side of first === 'none' ? (['none', 'hundred'] as const) : (['hundred', 'none'] as const))
        legs[side].push(await leg(side === 'none' ? noneToken : token, path, body));
    }
    const sum = (ls: Leg[]): Leg => {
      const requests = ls.reduce((n, l) => n + l.requests, 0);
      const cpu = ls.every((l) => l.cpu_us !== null) ? ls.reduce((n, l) => n + l.cpu_us! * l.requests, 0) / requests : null;
      return { ...ls[0], requests, rps: ls.reduce((n, l) => n + l.rps, 0) / ls.length, p99_ms: Math.max(...ls.map((l) => l.p99_ms)), errors: ls.reduce((n, l) => n + l.errors, 0), cpu_us: cpu === null ? null : Math.round(cpu) };
    };
    return { none: sum(legs.none), hundred: sum(legs.hundred) };
  };
  try {
    for (let i = 0; i < POLICIES; i++) {
      const match = benchMatch(i);
      await post('/v1/governance/policies', { name: `bench policy ${i}`, effect: i % 2 ? 'deny' : 'require_approval', priority: i % 7, match, status: 'published' }, ownerToken);
    }
    // a first round unmeasured: the service's code is compiled hot before any figure is taken
    await leg(noneToken, '/node', NODE);
    await leg(token, '/node', NODE);
    await leg(noneToken, '/epistemic/argument', ARGUMENT_BODY);
    await leg(token, '/epistemic/argument', ARGUMENT_BODY);
    const node = await paired('/node', NODE);
    const argument = await paired('/epistemic/argument', ARGUMENT_BODY);
    const before = { node: node.none, argument: argument.none };
    const after = { node: node.hundred, argument: argument.hundred };
    await post('/v1/governance/policies', { name: 'log every write', effect: 'allow', match: { principals: ['api_key:*'] }, status: 'published' }, ownerToken);
    const recorded = { node: await leg(token, '/node', NODE), argument: await leg(token, '/epistemic/argument', ARGUMENT_BODY) };
    const gate = await gateInProcess();
    const pct = (a: number, b: number) => Math.round(((a - b) / a) * 1000) / 10;
    const cpuPct = (a: number | null, b: number | null) => (a && b ? Math.round(((b - a) / a) * 1000) / 10 : -1);
    return {
      node_rps_no_policies: Math.round(before.node.rps),
      node_rps_100_policies: Math.round(after.node.rps),
      node_rps_100_policies_one_matching: Math.round(recorded.node.rps),
      node_overhead_pct: pct(before.node.rps, after.node.rps),
      node_p99_ms_no_policies: before.node.p99_ms,
      node_p99_ms_100_policies: after.node.p99_ms,
      argument_rps_no_policies: Math.round(before.argument.rps),
      argument_rps_100_policies: Math.round(after.argument.rps),
      argument_rps_100_policies_one_matching: Math.round(recorded.argument.rps),
      argument_overhead_pct: pct(before.argument.rps, after.argument.rps),
      node_cpu_us_no_policies: before.node.cpu_us ?? -1,
      node_cpu_us_100_policies: after.node.cpu_us ?? -1,
      node_cpu_overhead_pct: cpuPct(before.node.cpu_us, after.node.cpu_us),
      argument_cpu_us_no_policies: before.argument.cpu_us ?? -1,
      argument_cpu_us_100_policies: after.argument.cpu_us ?? -1,
      argument_cpu_overhead_pct: cpuPct(before.argument.cpu_us, after.argument.cpu_us),
      gate_us_no_policies: gate.none_us,
      gate_us_100_policies: gate.hundred_us,
      // the gate's added cost, as a share of the CPU a POST /node costs the service with no policy
      gate_overhead_pct_of_post_node_cpu: before.node.cpu_us ? Math.round(((gate.hundred_us - gate.none_us) / before.node.cpu_us) * 1000) / 10 : -1,
      errors: before.node.errors + after.node.errors + before.argument.errors + after.argument.errors + recorded.node.errors + recorded.argument.errors,
    };
  } finally {
    await server.stop();
  }
}

/**
 * The policy gate alone, in process: the check a POST /node request goes through in its unit of
 * work (one staged NodeCreated of a Concept, by an API key), with no policy and then with the
 * bench's 100 published ones (none matching), on a governance read model of its own. Unlike the
 * HTTP figures it does not move with the graph growing between the phases. Microseconds per
 * request, the best of 5 rounds.
 */
async function gateInProcess(): Promise<{ none_us: number; hundred_us: number }> {
  const db = new Database(':memory:');
  const projection = new GovernanceProjection(db);
  const policies = new PolicyService(new GovernanceReadModel(db));
  // a policy naming a Project would ask it; none of the bench's does
  const provenance = { admittedBy: async () => new Set<string>() } as unknown as ProvenanceService;
  const gate = new PolicyGate(policies, new GovernanceReadModel(db), provenance);
  const org = 'org-bench';
  const node = { uid: 'n-1', node_type: 'Concept', layer: 'semantic', label: 'bench node', summary: 'a node', props: {}, classification: 'internal', version: 1, created_at: 1, updated_at: 1, tombstone_at: null };
  const staged = [{ type: 'NodeCreated', data: { node } }];
  const body = { label: 'bench node', node_type: 'Concept', summary: 'a node' };
  const tx = () =>
    ({
      refusal: null,
      org,
      now: 1000,
      writesLater: false,
      ctx: {
        http: { method: 'POST', path: '/node', route: '/node', body: () => body, approvalUid: null, warnings: [] },
        principal: { kind: 'api_key', id: 'key-bench' },
        access: { credential: 'api_key', role: null, bound_agent_id: null },
      },
      hasChanges: () => true,
      stagedEvents: () => staged,
      node: async () => null,
      storedNode: () => undefined,
      emit: () => {
        throw new Error('no policy of the bench matches: nothing is recorded');
      },
      refuseKeeping: () => {
        throw new Error('no policy of the bench matches: nothing is refused');
      },
    }) as unknown as GraphTx;
  const time = async (): Promise<number> => {
    const N = 20000;
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i++) await gate.commit(tx());
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / N);
    }
    return Math.round(best * 100) / 100;
  };
  await time();
  const none_us = await time();
  for (let i = 0; i < POLICIES; i++) {
    const policy: PolicyRecord = {
      uid: `policy-${String(i).padStart(3, '0')}`, name: `bench policy ${i}`, description: null, status: 'published', effect: i % 2 ? 'deny' : 'require_approval',
      priority: i % 7, match: benchMatch(i) as PolicyRecord['match'], version: 1, status_reason: null, created_by: 'user:bench', created_at: i, updated_at: i,
      status_changed_by: 'user:bench', status_changed_at: i, mirrored_version: null,
    };
    projection.apply({
      id: `e-${i}`, position: i + 1, stream: `policy-${org}:${policy.uid}`, type: 'PolicyCreated', data: { org_id: org, policy },
      metadata: { org_id: org, occurred_at: i, request_id: `r-${i}`, principal: { kind: 'user', id: 'bench' } },
    } as unknown as RecordedEvent);
  }
  await time();
  const hundred_us = await time();
  db.close();
  process.stderr.write(`policies: the gate alone, in process: ${none_us} µs per POST /node with no policy, ${hundred_us} µs with ${POLICIES}\n`);
  return { none_us, hundred_us };
}
