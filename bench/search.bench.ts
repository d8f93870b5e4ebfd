import Database from 'better-sqlite3';
import * as path from 'node:path';
import { queryTerms } from '../libs/text-index/src/analysis/text-analysis';
import { loadMailParagraphs } from './support/mail-corpus';
import { startServer, BenchServer } from './support/server';
import { mulberry32 } from './support/synthetic';
import { client } from './support/http-timing';
import { processCpuMs } from './support/process-cpu';

/**
 * Full-text search on the queries people type, end to end over HTTP against the built service
 * (one client, requests in sequence: each figure is one request's latency with HTTP and auth),
 * beside raw SQLite FTS5 on the same rows (`ORDER BY bm25 LIMIT 20` in this process, on the
 * service's own projections file) as the floor:
 *
 * - ties: N nodes made with POST /batch, label `entity <i>`, summary `about <word> number <i>`;
 *   queries `entity <i>`, `number <i>`, `<word> number <d>`: a word in every row makes
 *   thousands of hits tie on score. Measured at STRATA_BENCH_SEARCH_TIE_START (10,000) nodes,
 *   then again at STRATA_BENCH_SEARCH_NODES (100,000);
 * - mail: STRATA_BENCH_SEARCH_NODES nodes whose label and summary are paragraphs of real
 *   English mail (SpamAssassin corpus), embedded by the built-in lexical embedder; queries are
 *   1–6 consecutive words sampled from the corpus, stop words included. `/search`,
 *   `/retrieve` text and hybrid, and `/retrieve/context` (defaults); then `/search` again with
 *   a `POST /node` before each query (`search_after_write`).
 *
 * The `search-1m` suite (opt-in: `BENCH_ONLY=search-1m`) runs the mail corpus alone at
 * STRATA_BENCH_SEARCH_1M_NODES (1,000,000), without embeddings (hybrid is then its text leg).
 */
export async function run(): Promise<Record<string, number>> {
  const n = Number(process.env.STRATA_BENCH_SEARCH_NODES ?? 100_000);
  const tieStart = Number(process.env.STRATA_BENCH_SEARCH_TIE_START ?? 10_000);
  const out: Record<string, number> = { nodes: n, tie_start_nodes: tieStart };
  await withServer({ STRATA_EMBEDDING_PROVIDER: 'none' }, (s) => measureTies(s, tieStart, n, out));
  await withServer({}, (s) => measureMail(s, n, out, { context: true, waitForVectors: true, prefix: 'mail' }));
  return out;
}

export async function runMillion(): Promise<Record<string, number>> {
  const n = Number(process.env.STRATA_BENCH_SEARCH_1M_NODES ?? 1_000_000);
  const out: Record<string, number> = { nodes: n };
  await withServer({ STRATA_EMBEDDING_PROVIDER: 'none' }, (s) => measureMail(s, n, out, { context: false, waitForVectors: false, prefix: 'mail' }));
  return out;
}

const LIMIT = 20;
/** queries timed per kind (STRATA_BENCH_SEARCH_QUERIES) */
const QUERIES = Number(process.env.STRATA_BENCH_SEARCH_QUERIES ?? 150);
const TIE_WORDS = ['river', 'stone', 'cloud', 'ember', 'harbor', 'meadow', 'signal', 'copper', 'lantern', 'orbit'];

async function withServer(env: Record<string, string>, fn: (s: BenchServer) => Promise<void>): Promise<void> {
  const s = await startServer(env);
  try {
    await fn(s);
  } catch (err) {
    // a closed socket means little until we know whether the service itself went away
    const { exitCode, signalCode } = s.child;
    if (exitCode !== null || signalCode !== null) (err as Error).message += ` (the service exited: code ${exitCode}, signal ${signalCode})`;
    throw err;
  } finally {
    await s.stop();
  }
}

async function measureTies(s: BenchServer, start: number, end: number, out: Record<string, number>): Promise<void> {
  const http = client(s.url, s.token);
  const rand = mulberry32(23);
  let made = 0;
  const grow = async (to: number) => {
    for (; made < to; ) {
      const nodes = [];
      for (let i = made; i < Math.min(to, made + 1000); i++) nodes.push({ node_type: 'Concept', label: `entity ${i}`, summary: `about ${TIE_WORDS[i % TIE_WORDS.length]} number ${i}` });
      await http.post('/batch', { nodes });
      made += nodes.length;
    }
  };
  const kinds: Record<string, () => string> = {
    entity: () => `entity ${Math.floor(rand() * made)}`,
    number: () => `number ${Math.floor(rand() * made)}`,
    word_number: () => `${TIE_WORDS[Math.floor(rand() * TIE_WORDS.length)]} number ${Math.floor(rand() * 10)}`,
  };
  for (const size of [start, end]) {
    await grow(size);
    const fts = rawFts(s.dataDir);
    const all: string[] = [];
    for (const [kind, q] of Object.entries(kinds)) {
      const queries = Array.from({ length: QUERIES }, q);
      all.push(...queries);
      const t = await timed(queries, (query) => http.post('/search', { query, limit: LIMIT }));
      out[`ties_${size}_${kind}_p50_ms`] = t.p50;
      out[`ties_${size}_${kind}_raw_fts_p50_ms`] = fts.time(queries).p50;
    }
    const t = await timed(all, (query) => http.post('/search', { query, limit: LIMIT }));
    const raw = fts.time(all);
    fts.close();
    const tag = size === start ? 'start' : 'end';
    out[`ties_${tag}_search_p50_ms`] = t.p50;
    out[`ties_${tag}_search_p99_ms`] = t.p99;
    out[`ties_${tag}_raw_fts_p50_ms`] = raw.p50;
    out[`ties_${tag}_raw_fts_p99_ms`] = raw.p99;
    // exact pages: consecutive pages through a heavy tie are one order, whatever the page size
    const q = 'entity 7';
    const whole = ((await http.post('/search', { query: q, limit: 60 })) as { uid: string }[]).map((r) => r.uid);
    const paged: string[] = [];
    for (let off = 0; off < 60; off += 15) paged.push(...((await http.post('/search', { query: q, limit: 15, offset: off })) as { uid: string }[]).map((r) => r.uid));
    if (whole.length !== 60 || whole.join() !== paged.join()) throw new Error('search bench: pages through a tie disagree with one larger page');
  }
}

async function measureMail(s: BenchServer, n: number, out: Record<string, number>, o: { context: boolean; waitForVectors: boolean; prefix: string }): Promise<void> {
  const http = client(s.url, s.token);
  const paragraphs = loadMailParagraphs();
  const rand = mulberry32(77);
  const pick = () => paragraphs[Math.floor(rand() * paragraphs.length)];
  // the service's CPU per node loaded and per query: on a shared machine it moves far less than wall time
  const cpu0 = processCpuMs(s.child.pid);
  const t0 = performance.now();
  for (let made = 0; made < n; ) {
    const nodes = [];
    for (let i = made; i < Math.min(n, made + 1000); i++) {
      const words = pick().split(' ');
      const at = Math.floor(rand() * Math.max(1, words.length - 8));
      nodes.push({ node_type: 'Concept', label: words.slice(at, at + 4 + Math.floor(rand() * 7)).join(' '), summary: pick() });
    }
    await http.post('/batch', { nodes });
    made += nodes.length;
  }
  out[`${o.prefix}_load_nodes_per_s`] = Math.round(n / ((performance.now() - t0) / 1000));
  const cpu1 = processCpuMs(s.child.pid);
  if (cpu0 !== null && cpu1 !== null) out[`${o.prefix}_load_cpu_us_per_node`] = Math.round(((cpu1 - cpu0) * 1000) / n);
  if (o.waitForVectors) {
    for (let i = 0; i < 2400; i++) {
      const stats = (await http.get('/stats')) as { embedding_index_backlog?: number };
      if (!stats.embedding_index_backlog) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // 1–6 consecutive words of a paragraph, as typed: stop words and all
  const queries = Array.from({ length: 2 * QUERIES }, () => {
    const words = pick().split(' ');
    const len = 1 + Math.floor(rand() * 6);
    const at = Math.floor(rand() * Math.max(1, words.length - len));
    return words.slice(at, at + len).join(' ');
  });
  const cpu2 = processCpuMs(s.child.pid);
  const search = await timed(queries, (query) => http.post('/search', { query, limit: LIMIT }));
  const cpu3 = processCpuMs(s.child.pid);
  if (cpu2 !== null && cpu3 !== null) out[`${o.prefix}_search_cpu_us_per_query`] = Math.round(((cpu3 - cpu2) * 1000) / (queries.length + 5));
  out[`${o.prefix}_search_p50_ms`] = search.p50;
  out[`${o.prefix}_search_p99_ms`] = search.p99;
  const text = await timed(queries.slice(0, QUERIES), (query) => http.post('/retrieve', { action: 'text', query, limit: LIMIT }));
  out[`${o.prefix}_retrieve_text_p50_ms`] = text.p50;
  out[`${o.prefix}_retrieve_text_p99_ms`] = text.p99;
  const hybrid = await timed(queries.slice(0, QUERIES), (query) => http.post('/retrieve', { action: 'hybrid', query, k: 10 }));
  out[`${o.prefix}_retrieve_hybrid_p50_ms`] = hybrid.p50;
  out[`${o.prefix}_retrieve_hybrid_p99_ms`] = hybrid.p99;
  if (o.context) {
    const ctx = await timed(queries.slice(0, QUERIES), (query) => http.post('/retrieve/context', { query }));
    out[`${o.prefix}_context_p50_ms`] = ctx.p50;
    out[`${o.prefix}_context_p95_ms`] = ctx.p95;
    out[`${o.prefix}_context_p99_ms`] = ctx.p99;
  }
  // with a write before each query (agents and ingestion write while people search): each
  // write starts the index's cached document frequencies over
  const afterWrite: number[] = [];
  for (const query of queries.slice(0, QUERIES)) {
    await http.post('/node', { node_type: 'Concept', label: pick().split(' ').slice(0, 6).join(' '), summary: pick() });
    const t = performance.now();
    await http.post('/search', { query, limit: LIMIT });
    afterWrite.push(performance.now() - t);
  }
  const aw = percentiles(afterWrite);
  out[`${o.prefix}_search_after_write_p50_ms`] = aw.p50;
  out[`${o.prefix}_search_after_write_p99_ms`] = aw.p99;
  // the floor last: at a million rows its timing blocks this process for minutes, and the
  // service then closes the idle pooled socket under the next request
  const fts = rawFts(s.dataDir);
  const raw = fts.time(queries);
  fts.close();
  out[`${o.prefix}_raw_fts_p50_ms`] = raw.p50;
  out[`${o.prefix}_raw_fts_p99_ms`] = raw.p99;
}

/** Sequential latencies after a short warm-up: p50, p95, p99 in ms. */
async function timed<T>(inputs: T[], fn: (x: T) => Promise<unknown>): Promise<{ p50: number; p95: number; p99: number }> {
  for (const x of inputs.slice(0, 5)) await fn(x);
  const times: number[] = [];
  for (const x of inputs) {
    const t = performance.now();
    await fn(x);
    times.push(performance.now() - t);
  }
  return percentiles(times);
}

function percentiles(times: number[]): { p50: number; p95: number; p99: number } {
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(100 * times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]) / 100;
  return { p50: at(50), p95: at(95), p99: at(99) };
}

/**
 * The floor: FTS5's own top 20 by bm25 with the service's column weights, read-only on the
 * service's projections file, for the organization holding the most rows.
 */
function rawFts(dataDir: string) {
  const db = new Database(path.join(dataDir, 'projections.db'), { readonly: true, fileMustExist: true });
  const names = db.prepare('SELECT name FROM text_orgs').pluck().all() as string[];
  let best = names[0];
  let rows = -1;
  for (const name of names) {
    const c = db.prepare(`SELECT count(*) FROM text_docs_${name}`).pluck().get() as number;
    if (c > rows) [best, rows] = [name, c];
  }
  const stmt = db.prepare(`SELECT rowid, bm25(text_fts_${best}, 10.0, 4.0, 1.0) AS r FROM text_fts_${best} WHERE text_fts_${best} MATCH ? ORDER BY r LIMIT ${LIMIT}`);
  const expr = (q: string) => queryTerms(q).map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  return {
    time(queries: string[]) {
      const exprs = queries.map(expr).filter((e) => e.length);
      for (const e of exprs.slice(0, 20)) stmt.all(e);
      const times = exprs.map((e) => {
        const t = performance.now();
        stmt.all(e);
        return performance.now() - t;
      });
      return percentiles(times);
    },
    close: () => db.close(),
  };
}
