import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedVectorIndex, EmbeddedVectorIndexOptions } from '../libs/vector-index/src/embedded/embedded-vector-index';
import { exactSearch } from '../libs/vector-index/src/embedded/vector-math';
import { LexicalEmbedder } from '../libs/ai/src/embeddings/lexical-embedder';
import { mulberry32, percentile } from './support/synthetic';

/**
 * Embedded vector index at 100k × 384 (override with STRATA_BENCH_VECTORS / _DIMS).
 *
 * Three data sets: uniform random vectors (the hard case for HNSW: no structure), a
 * clustered set (1000 Gaussian clusters, closer to real embeddings), and the built-in
 * lexical embedder's vectors of synthetic 8–20-word texts queried with 3 words of a random
 * text (the default embedded pipeline). For each: build rate, search p50/p99 at k=10,
 * recall@10 against brute force over 200 queries, and a filtered search (a type holding 20%
 * of the space), for the default index (`vec_<set>_*`: at this size cosine spaces are
 * searched by the 8-bit scan) and for the index forced through its HNSW graph
 * (`vec_<set>_graph_*`, what larger spaces use). Also the lexical embedder's throughput.
 */
export async function run(): Promise<Record<string, number>> {
  const n = Number(process.env.STRATA_BENCH_VECTORS ?? 100_000);
  const d = Number(process.env.STRATA_BENCH_DIMS ?? 384);
  const rand = mulberry32(7);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const out: Record<string, number> = { vec_count: n, vec_dims: d };

  // synthetic texts for the lexical embedder
  const embedder = new LexicalEmbedder({ dimensions: d });
  const vocab = Array.from({ length: 20_000 }, (_, i) => `${['ka', 'lo', 'mi', 'ren', 'tas', 'vo'][i % 6]}${i.toString(36)}${['a', 'e', 'o'][i % 3]}`);
  const zipfWord = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * Math.log(vocab.length))) - 1)];
  const texts: string[] = [];
  const makeText = () => Array.from({ length: 8 + Math.floor(rand() * 13) }, zipfWord).join(' ');
  const e0 = performance.now();
  let embedded = 0;
  for (let i = 0; i < 20_000; i++) {
    embedder.embedOne(makeText());
    embedded++;
  }
  out.embedder_texts_per_s = Math.round(embedded / ((performance.now() - e0) / 1000));

  const datasets: Record<string, () => Float32Array> = {
    uniform: () => Float32Array.from({ length: d }, () => rand() * 2 - 1),
    clustered: (() => {
      const centers = Array.from({ length: 1000 }, () => Float32Array.from({ length: d }, gauss));
      return () => {
        const c = centers[Math.floor(rand() * centers.length)];
        return Float32Array.from(c, (x) => x + 0.35 * gauss());
      };
    })(),
    lexical: () => {
      const text = makeText();
      texts.push(text);
      return Float32Array.from(embedder.embedOne(text));
    },
  };
  const lexicalQuery = () => {
    const words = texts[Math.floor(rand() * texts.length)].split(' ');
    const picked = Array.from({ length: 3 }, () => words[Math.floor(rand() * words.length)]).join(' ');
    return Float32Array.from(embedder.embedOne(picked));
  };

  // STRATA_BENCH_VEC_SETS=clustered,lexical skips the slow uniform set
  const only = process.env.STRATA_BENCH_VEC_SETS?.split(',');
  // the default index (cosine spaces of this size are searched by the 8-bit scan) and the same
  // index forced through its HNSW graph (what larger spaces use), with the same vectors and queries
  const variants: Array<[string, EmbeddedVectorIndexOptions]> = [
    ['', {}],
    ['graph_', { scanLimit: 0 }],
  ];
  for (const [name, make] of Object.entries(datasets)) {
    if (only && !only.includes(name)) continue;
    const vectors = Array.from({ length: n }, make);
    const queries = Array.from({ length: 200 }, name === 'lexical' ? lexicalQuery : make);
    const truths = queries.map((q) => exactSearch(vectors, q, 'cosine', 10).map((h) => ({ uid: `n${h.index}`, score: h.score })));
    const goalIdx = vectors.map((_, i) => i).filter((i) => i % 5 === 1);
    const goalTruths = queries.map((q) =>
      exactSearch(goalIdx.map((i) => vectors[i]), q, 'cosine', 10).map((h) => ({ uid: `n${goalIdx[h.index]}`, score: h.score })),
    );
    const types = ['Claim', 'Goal', 'Note', 'Person', 'Document'];
    for (const [variant, options] of variants) {
      const key = `vec_${name}_${variant}`;
      const dir = mkdtempSync(join(tmpdir(), 'strata-bench-vec-'));
      const index = new EmbeddedVectorIndex(dir, options);
      index.configureSync('bench', { dimensions: d, metric: 'cosine' });

      const t0 = performance.now();
      for (let i = 0; i < n; i += 5000) {
        index.upsertSync(
          'bench',
          vectors.slice(i, i + 5000).map((vector, j) => ({ uid: `n${i + j}`, vector, node_type: types[(i + j) % 5], layer: 'reality' })),
        );
      }
      // writes only queue vectors for the graph; the build rate includes inserting them all
      index.indexAllPendingSync();
      out[`${key}build_per_s`] = Math.round(n / ((performance.now() - t0) / 1000));

      const times: number[] = [];
      const filteredTimes: number[] = [];
      let hit = 0;
      let filteredHit = 0;
      for (const q of queries.slice(0, 10)) index.searchSync({ org: 'bench', vector: q, k: 10 }); // warm-up
      queries.forEach((q, qi) => {
        let s = performance.now();
        const got = index.searchSync({ org: 'bench', vector: q, k: 10 });
        times.push(performance.now() - s);
        hit += recallHits(got, truths[qi]);

        s = performance.now();
        const gotF = index.searchSync({ org: 'bench', vector: q, k: 10, node_types: ['Goal'] });
        filteredTimes.push(performance.now() - s);
        filteredHit += recallHits(gotF, goalTruths[qi]);
      });
      out[`${key}recall_at_10`] = round(hit / (queries.length * 10));
      out[`${key}search_p50_ms`] = round(percentile(times, 50));
      out[`${key}search_p99_ms`] = round(percentile(times, 99));
      out[`${key}filtered_recall_at_10`] = round(filteredHit / (queries.length * 10));
      out[`${key}filtered_p50_ms`] = round(percentile(filteredTimes, 50));

      const f0 = performance.now();
      index.flushSync();
      out[`${key}flush_ms`] = Math.round(performance.now() - f0);
      await index.close();
      const r0 = performance.now();
      const reopened = new EmbeddedVectorIndex(dir, options);
      out[`${key}reopen_ms`] = Math.round(performance.now() - r0);
      await reopened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/**
 * Hits among the true top-10, tie-aware: a returned vector scoring at least the true 10th
 * score counts (lexical vectors tie a lot, and any of the tied ones is a correct answer).
 */
function recallHits(got: Array<{ uid: string; score: number }>, truth: Array<{ uid: string; score: number }>): number {
  const ids = new Set(truth.map((t) => t.uid));
  const kth = truth[truth.length - 1]?.score ?? Infinity;
  return got.slice(0, truth.length).filter((h) => ids.has(h.uid) || h.score >= kth - 1e-6).length;
}


const round = (x: number) => Math.round(x * 1000) / 1000;


if (require.main === module) {
  run().then((r) => console.log(JSON.stringify(r, null, 2)));
}
