import { ARGUMENT_BODY } from './cognitive.bench';
import { load, LoadResult } from './support/load';
import { processCpuMs } from './support/process-cpu';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const POLICIES = 100;

/**
 * The cost of structured policies (REFERENCE §13.6) on governed writes: POST /node and
 * /epistemic/argument under 32 clients, first with no policy, then with 100 published ones
 * (none of which matches the bench's requests, so every request is evaluated against all 100
 * and allowed), then with one more that matches every request (a decision record is appended
 * with each). Same process, same data dir, back to back. Beside throughput, the service's own
 * CPU time per request (from /proc): on a shared machine it says far more than req/s does.
 */
export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  const { url, token, ownerToken } = server;
  const post = async (path: string, body: unknown, auth: string) => {
    const r = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<Record<string, any>>;
  };
  const NODE = { label: 'bench node', node_type: 'Concept', summary: 'a node' };
  type Leg = LoadResult & { cpu_us: number | null };
  const leg = async (path: string, body: unknown): Promise<Leg> => {
    const cpu0 = processCpuMs(server.child.pid);
    const r = await load({ url: `${url}${path}`, method: 'POST', token, body, connections: 32, seconds: SECONDS });
    const cpu1 = processCpuMs(server.child.pid);
    return { ...r, cpu_us: cpu0 === null || cpu1 === null || r.requests === 0 ? null : Math.round(((cpu1 - cpu0) * 1000) / r.requests) };
  };
  const measure = async (): Promise<{ node: Leg; argument: Leg }> => ({ node: await leg('/node', NODE), argument: await leg('/epistemic/argument', ARGUMENT_BODY) });
  try {
    // a first round unmeasured: the service's code is compiled hot before either figure is taken
    await measure();
    const before = await measure();
    const kinds = ['Claim', 'Lesson', 'Task', 'Decision', 'Goal'];
    for (let i = 0; i < POLICIES; i++) {
      const match =
        i % 4 === 0
          ? { principals: [`user:nobody-${i}`], node_types: [kinds[i % kinds.length]] }
          : i % 4 === 1
            ? { routes: [`POST /agent/plan#create_task`], layers: ['intent'] }
            : i % 4 === 2
              ? { node_types: [kinds[i % kinds.length]], min_classification: 'restricted' }
              : { principals: ['role:viewer'], routes: ['* /node/{uid}'] };
      await post('/v1/governance/policies', { name: `bench policy ${i}`, effect: i % 2 ? 'deny' : 'require_approval', priority: i % 7, match, status: 'published' }, ownerToken);
    }
    const after = await measure();
    await post('/v1/governance/policies', { name: 'log every write', effect: 'allow', match: { principals: ['api_key:*'] }, status: 'published' }, ownerToken);
    const recorded = await measure();
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
      errors: before.node.errors + after.node.errors + before.argument.errors + after.argument.errors + recorded.node.errors + recorded.argument.errors,
    };
  } finally {
    await server.stop();
  }
}
