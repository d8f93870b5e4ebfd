import { LexicalEmbedder } from '../libs/ai/src/embeddings/lexical-embedder';
import { TopK, norm } from '../libs/vector-index/src/embedded/vector-math';
import { startServer } from './support/server';
import { mulberry32, zipfSampler } from './support/synthetic';
import { client, pseudoWord, timeAll as timeAllAfterWarmup } from './support/http-timing';

/** a longer warm-up than the other suites: the first hybrid queries load the vector index */
const timeAll = <T>(inputs: T[], fn: (x: T) => Promise<unknown>) => timeAllAfterWarmup(inputs, fn, 30);

/**
 * Issue 4's retrieval figures, end to end over HTTP against the built service (one client,
 * requests in sequence, so each figure is one request's latency including HTTP and auth):
 *
 * - loads 100,000 nodes (POST /batch) — embedded by the built-in lexical embedder as they land;
 * - `/search` p50/p99 (2–3-word queries of mid-frequency words);
 * - `/embeddings/search` at 384 dimensions: recall@10 against an exact scan of the same vectors
 *   (computed here with the same deterministic embedder) and p50;
 * - `/retrieve` hybrid p50;
 * - then adds 1,000,000 random edges and measures `GET /neighborhood/{uid}?depth=2` p50/p99.
 *
 * `run(ctx)` uses a running service on a fresh organization; without ctx it starts one.
 * Sizes: STRATA_BENCH_RETRIEVAL_NODES (100000), STRATA_BENCH_RETRIEVAL_EDGES (1000000).
 */
export async function run(ctx?: { url: string; token: string; dataDir: string }): Promise<Record<string, number>> {
  const own = ctx ? null : await startServer();
  const target = ctx ?? own!;
  try {
    return await measure(target.url, target.token);
  } finally {
    await own?.stop();
  }
}

const N = Number(process.env.STRATA_BENCH_RETRIEVAL_NODES ?? 100_000);
const E = Number(process.env.STRATA_BENCH_RETRIEVAL_EDGES ?? 1_000_000);
const DIMS = 384;
const TYPES = ['Claim', 'Evidence', 'Question', 'Goal', 'Decision'];

async function measure(url: string, token: string): Promise<Record<string, number>> {
  const out: Record<string, number> = { nodes: N, edges: E };
  const http = client(url, token);
  const rand = mulberry32(4242);
  const vocab = Array.from({ length: 30_000 }, (_, i) => pseudoWord(i, rand));
  const zipf = zipfSampler(vocab.length, 1.07, rand);
  const words = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => vocab[zipf()]).join(' ');

  // ---- 100k nodes ----
  const texts: string[] = [];
  const uids: string[] = [];
  const t0 = performance.now();
  for (let start = 0; start < N; start += 1000) {
    const nodes = [];
    for (let i = start; i < Math.min(N, start + 1000); i++) {
      const label = words(3, 6);
      const summary = words(8, 15);
      texts.push(`${label}\n${summary}`);
      nodes.push({ label, summary, node_type: TYPES[i % TYPES.length] });
    }
    const r = await http.post('/batch', { nodes });
    uids.push(...(r.node_uids as string[]));
  }
  out.load_nodes_per_s = Math.round(N / ((performance.now() - t0) / 1000));
  // writes answer before their vectors enter the ANN graph; measure searches once it caught up
  const t1 = performance.now();
  for (let i = 0; i < 1200; i++) {
    const stats = (await http.get('/stats')) as { embedding_index_backlog?: number };
    if (!stats.embedding_index_backlog) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  out.ann_catch_up_s = Math.round((performance.now() - t1) / 100) / 10;

  // ---- /search ----
  const midWord = () => vocab[50 + Math.floor(rand() * 2000)];
  const queries = Array.from({ length: 600 }, () => Array.from({ length: 2 + Math.floor(rand() * 2) }, midWord).join(' '));
  const search = await timeAll(queries, (q) => http.post('/search', { query: q, limit: 20 }));
  out.search_p50_ms = search.p50;
  out.search_p99_ms = search.p99;

  // ---- vectors: recall@10 against an exact scan, and latency ----
  const embedder = new LexicalEmbedder({ dimensions: DIMS });
  const matrix = new Float32Array(N * DIMS);
  const norms = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    matrix.set(embedder.embedOne(texts[i]), i * DIMS);
    norms[i] = norm(matrix, i * DIMS, DIMS);
  }
  // queries: the label of a random node (what a user would type to find similar nodes)
  const vecQueries = Array.from({ length: 200 }, () => Array.from(embedder.embedOne(texts[Math.floor(rand() * N)].split('\n')[0])));
  const truths = vecQueries.map((v) => exactTop10(matrix, norms, v));
  const indexOf = new Map(uids.map((u, i) => [u, i]));
  const answers: string[][] = [];
  const vec = await timeAll(vecQueries, async (v) => {
    const r = (await http.post('/embeddings/search', { vector: v, k: 10 })) as { node: { uid: string } }[];
    answers.push(r.map((x) => x.node.uid));
  });
  // the last 200 answers are the timed ones, in query order; ties: a node scoring at least the
  // 10th exact score is as good an answer as any other
  let hits = 0;
  let total = 0;
  answers.slice(-vecQueries.length).forEach((got, qi) => {
    const truth = truths[qi];
    const kth = truth.length ? truth[truth.length - 1].score - 1e-6 : Infinity;
    let h = 0;
    for (const uid of got) if (exactScore(matrix, norms, vecQueries[qi], indexOf.get(uid)!) >= kth) h++;
    hits += Math.min(h, truth.length);
    total += truth.length;
  });
  out.vector_recall_at_10 = Math.round((1000 * hits) / total) / 1000;
  out.vector_p50_ms = vec.p50;
  out.vector_p99_ms = vec.p99;

  // ---- hybrid /retrieve ----
  const hybrid = await timeAll(queries.slice(0, 300), (q) => http.post('/retrieve', { action: 'hybrid', query: q, k: 10 }));
  out.hybrid_p50_ms = hybrid.p50;
  out.hybrid_p99_ms = hybrid.p99;

  // ---- 1M edges, then neighborhood depth 2 ----
  const e0 = performance.now();
  for (let start = 0; start < E; start += 5000) {
    const edges = [];
    for (let i = start; i < Math.min(E, start + 5000); i++) {
      const from = Math.floor(rand() * N);
      let to = Math.floor(rand() * N);
      if (to === from) to = (to + 1) % N;
      edges.push({ from_uid: uids[from], to_uid: uids[to], edge_type: i % 3 ? 'RelatedTo' : 'Supports', weight: Math.round(rand() * 100) / 100 });
    }
    await http.post('/batch', { nodes: [], edges });
  }
  out.load_edges_per_s = Math.round(E / ((performance.now() - e0) / 1000));
  const starts = Array.from({ length: 400 }, () => uids[Math.floor(rand() * N)]);
  let reached = 0;
  const nb = await timeAll(starts, async (uid) => {
    const r = (await http.get(`/neighborhood/${uid}?depth=2`)) as { steps: unknown[] };
    reached += r.steps.length;
  });
  out.neighborhood_p50_ms = nb.p50;
  out.neighborhood_p99_ms = nb.p99;
  out.neighborhood_avg_nodes = Math.round(reached / starts.length);
  return out;
}

function exactScore(matrix: Float32Array, norms: Float32Array, q: number[], i: number): number {
  const qn = norm(q);
  let dot = 0;
  const off = i * DIMS;
  for (let j = 0; j < DIMS; j++) dot += q[j] * matrix[off + j];
  return qn === 0 || norms[i] === 0 ? 0 : dot / (qn * norms[i]);
}

function exactTop10(matrix: Float32Array, norms: Float32Array, q: number[]): { id: number; score: number }[] {
  const top = new TopK(10);
  for (let i = 0; i < norms.length; i++) top.push(i, exactScore(matrix, norms, q, i));
  return top.sorted();
}





