import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteTextIndex } from '../libs/text-index/src/sqlite/sqlite-text-index';
import type { TextDocument } from '../libs/text-index/src/text-index.port';
import { mulberry32, zipfSampler, percentile } from './support/synthetic';

/**
 * SQLite FTS5 text index at 100k nodes (override with STRATA_BENCH_TEXT_NODES).
 *
 * Corpus: a Zipf-distributed vocabulary of 30k pseudo-words, label 3–6 words, summary 10–20,
 * body 20–60, in one organization (the worst case: every posting is in scope). Queries are
 * 2–3 words drawn from the same distribution, so most contain at least one common word; a
 * second set uses only mid-frequency words (what people type), a third only the 20 most
 * frequent words (stop-word-like worst case).
 */
export async function run(): Promise<Record<string, number>> {
  const nodes = Number(process.env.STRATA_BENCH_TEXT_NODES ?? 100_000);
  const rand = mulberry32(42);
  const vocab = Array.from({ length: 30_000 }, (_, i) => pseudoWord(i, rand));
  const zipf = zipfSampler(vocab.length, 1.07, rand);
  const words = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => vocab[zipf()]).join(' ');

  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-text-'));
  const db = new Database(join(dir, 'projections.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const index = new SqliteTextIndex(db);
  const types = ['Claim', 'Goal', 'Person', 'Note', 'Document', 'Chunk', 'Question', 'Decision'];

  const t0 = performance.now();
  const batch = 1000;
  for (let start = 0; start < nodes; start += batch) {
    const docs: TextDocument[] = [];
    for (let i = start; i < Math.min(nodes, start + batch); i++) {
      docs.push({
        org: 'bench-org',
        uid: `n${i}`,
        node_type: types[i % types.length],
        layer: i % 3 ? 'reality' : 'epistemic',
        label: words(3, 6),
        summary: words(10, 20),
        body: words(20, 60),
      });
    }
    index.upsertSync(docs);
  }
  const indexMs = performance.now() - t0;

  const measure = (queries: string[], extra: Record<string, unknown> = {}) => {
    for (const q of queries.slice(0, 20)) index.searchSync({ org: 'bench-org', query: q, limit: 20, ...extra }); // warm-up
    const times: number[] = [];
    for (const q of queries) {
      const s = performance.now();
      index.searchSync({ org: 'bench-org', query: q, limit: 20, ...extra });
      times.push(performance.now() - s);
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99) };
  };

  const nQueries = 400;
  const zipfQueries = Array.from({ length: nQueries }, () => words(2, 3));
  const midQueries = Array.from({ length: nQueries }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 2) }, () => vocab[200 + Math.floor(rand() * 5000)]).join(' '),
  );
  const commonQueries = Array.from({ length: 100 }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 2) }, () => vocab[Math.floor(rand() * 20)]).join(' '),
  );

  const zipfRes = measure(zipfQueries);
  const midRes = measure(midQueries);
  const commonRes = measure(commonQueries);
  const filteredRes = measure(zipfQueries, { exclude_node_types: ['Document', 'Chunk'], layer: 'reality' });

  db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    text_nodes: nodes,
    text_index_docs_per_s: Math.round(nodes / (indexMs / 1000)),
    text_search_zipf_p50_ms: round(zipfRes.p50),
    text_search_zipf_p99_ms: round(zipfRes.p99),
    text_search_midfreq_p50_ms: round(midRes.p50),
    text_search_midfreq_p99_ms: round(midRes.p99),
    text_search_common_p50_ms: round(commonRes.p50),
    text_search_common_p99_ms: round(commonRes.p99),
    text_search_filtered_p50_ms: round(filteredRes.p50),
    text_search_filtered_p99_ms: round(filteredRes.p99),
  };
}


const round = (n: number) => Math.round(n * 1000) / 1000;


function pseudoWord(i: number, rand: () => number): string {
  const syll = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'shi', 'dor', 'pel', 'qua', 'zin', 'bru', 'fen', 'gat', 'hox'];
  let w = '';
  const n = 2 + (i % 3);
  for (let k = 0; k < n; k++) w += syll[Math.floor(rand() * syll.length)];
  return `${w}${i.toString(36)}`;
}


if (require.main === module) {
  run().then((r) => console.log(JSON.stringify(r, null, 2)));
}
