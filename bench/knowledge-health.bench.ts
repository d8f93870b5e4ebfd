import { startServer } from './support/server';
import { mulberry32 } from './support/synthetic';
import { client, timeAll } from './support/http-timing';

/**
 * Knowledge Health (REFERENCE §14) on a realistic graph, over HTTP against the built service,
 * one client in sequence, as the owner (a user JWT: the routes refuse API keys):
 *
 * - 5 Projects admitting 100 Documents × 40 Chunks, each chunk with 3 Claims (one extracted,
 *   one supported by Evidence, one bare), and among them Contradicts and PossibleDuplicate
 *   edges, failed chunks, Tasks targeting some claims and pending Approvals: about 20,000 nodes;
 * - `GET /v1/knowledge-health/summary` p50/p99;
 * - `GET /v1/knowledge-health/exceptions` (first page of 50, all filters default) p50/p99, and
 *   the same narrowed to one Project.
 *
 * Sizes: STRATA_BENCH_KH_DOCS (100), STRATA_BENCH_KH_CHUNKS (40).
 */
export async function run(): Promise<Record<string, number>> {
  const own = await startServer({ STRATA_EMBEDDING_PROVIDER: 'none', STRATA_PLAN_LIMITS: '{"free":{"nodes":null}}' });
  try {
    return await measure(own.url, own.token, own.ownerToken);
  } finally {
    await own.stop();
  }
}

const DOCS = Number(process.env.STRATA_BENCH_KH_DOCS ?? 100);
const CHUNKS = Number(process.env.STRATA_BENCH_KH_CHUNKS ?? 40);
const PROJECTS = 5;

async function measure(url: string, keyToken: string, ownerToken: string): Promise<Record<string, number>> {
  const http = client(url, keyToken);
  const owner = client(url, ownerToken);
  const rand = mulberry32(1414);
  const projects: string[] = [];
  for (let p = 0; p < PROJECTS; p++) projects.push((await http.post('/node', { node_type: 'Project', label: `Project ${p}`, props: { name: `Project ${p}` } })).uid as string);
  let nodes = PROJECTS;
  const t0 = performance.now();
  for (let d = 0; d < DOCS; d++) {
    const ns: Record<string, unknown>[] = [{ ref: 'doc', node_type: 'Document', label: `Report ${d}`, props: { title: `Report ${d}`, document_type: 'article', processing_status: 'completed' } }];
    const es: Record<string, unknown>[] = [{ from_ref: 'doc', to_uid: projects[d % PROJECTS], edge_type: 'PartOfProject' }];
    for (let c = 0; c < CHUNKS; c++) {
      const failed = rand() < 0.02;
      ns.push({ ref: `c${c}`, node_type: 'Chunk', label: `Report ${d} · ${c}`, props: { content: `chunk ${d}.${c}`, chunk_type: 'document', chunk_index: c, processing_status: failed ? 'failed' : 'completed' } });
      es.push({ from_ref: `c${c}`, to_ref: 'doc', edge_type: 'ChunkOf' });
      for (let i = 0; i < 3; i++) ns.push({ ref: `n${c}_${i}`, node_type: 'Claim', label: `claim ${d}.${c}.${i}`, props: { content: `claim ${d}.${c}.${i}` } });
      ns.push({ ref: `e${c}`, node_type: 'Evidence', label: `evidence ${d}.${c}`, props: { description: 'measured' } });
      es.push({ from_ref: `n${c}_0`, to_ref: `c${c}`, edge_type: 'ExtractedFrom' });
      es.push({ from_ref: `e${c}`, to_ref: `n${c}_1`, edge_type: 'Supports' });
      if (c % 3 === 0) es.push({ from_ref: `n${c}_0`, to_ref: `n${c}_2`, edge_type: 'Contradicts' });
      if (c % 4 === 0) es.push({ from_ref: `n${c}_2`, to_ref: `n${c}_1`, edge_type: 'PossibleDuplicate', props: { similarity: 0.9, method: 'fuzzy' } });
    }
    ns.push({ ref: 'task', node_type: 'Task', label: `review ${d}`, props: { description: 'review', status: 'pending' } });
    es.push({ from_ref: 'task', to_ref: 'n0_2', edge_type: 'Targets' });
    nodes += ns.length;
    await http.post('/batch', { nodes: ns, edges: es });
    if (d % 10 === 0) await http.post('/agent/governance', { action: 'request_approval', label: `approval ${d}` });
  }
  const loadS = (performance.now() - t0) / 1000;
  process.stderr.write(`knowledge-health: loaded ${nodes} nodes in ${loadS.toFixed(1)} s\n`);
  const out: Record<string, number> = { nodes, load_nodes_per_s: Math.round(nodes / loadS) };

  const summary = await timeAll(Array.from({ length: 30 }, (_, i) => i), () => owner.get('/v1/knowledge-health/summary'), 3);
  out.summary_p50_ms = summary.p50;
  out.summary_p99_ms = summary.p99;
  const first = await owner.get('/v1/knowledge-health/exceptions');
  out.open_exceptions = (first.groups as { open: number; acknowledged: number }[]).reduce((a, g) => a + g.open + g.acknowledged, 0);
  const list = await timeAll(Array.from({ length: 30 }, (_, i) => i), () => owner.get('/v1/knowledge-health/exceptions'), 3);
  out.exceptions_p50_ms = list.p50;
  out.exceptions_p99_ms = list.p99;
  const narrowed = await timeAll(Array.from({ length: 30 }, (_, i) => i), () => owner.get(`/v1/knowledge-health/exceptions?project=${projects[0]}&severity=medium`), 3);
  out.exceptions_project_p50_ms = narrowed.p50;
  process.stderr.write(`knowledge-health: summary p50 ${summary.p50} ms, exceptions p50 ${list.p50} ms (${out.open_exceptions} open)\n`);
  return out;
}
