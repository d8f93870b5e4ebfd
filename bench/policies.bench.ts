import { ARGUMENT_BODY } from './cognitive.bench';
import { load, LoadResult } from './support/load';
import { startServer } from './support/server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const POLICIES = 100;

/**
 * The cost of structured policies (REFERENCE §13.6) on governed writes: POST /node and
 * /epistemic/argument under 32 clients, first with no policy, then with 100 published ones
 * (none of which matches the bench's requests, so every request is evaluated against all 100
 * and allowed), then with one more that matches every request (a decision record is appended
 * with each). Same process, same data dir, back to back.
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
  const measure = async (): Promise<{ node: LoadResult; argument: LoadResult }> => ({
    node: await load({ url: `${url}/node`, method: 'POST', token, body: NODE, connections: 32, seconds: SECONDS }),
    argument: await load({ url: `${url}/epistemic/argument`, method: 'POST', token, body: ARGUMENT_BODY, connections: 32, seconds: SECONDS }),
  });
  try {
    await post('/node', NODE, token); // warm-up
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
      errors: before.node.errors + after.node.errors + before.argument.errors + after.argument.errors + recorded.node.errors + recorded.argument.errors,
    };
  } finally {
    await server.stop();
  }
}
