import Database from 'better-sqlite3';
import { seededRandom } from '../testing/tie-order';
import { decodeFts5Averages } from './fts5-averages';
import { BM25_COLUMN_WEIGHTS, fts5Bm25, fts5Idf, fts5PartBound, fts5WeightedFrequency } from './fts5-bm25';
import { SqliteTextIndex } from './sqlite-text-index';

describe('fts5Bm25', () => {
  it("equals FTS5's own bm25() bit for bit on every matching row, after deletes and edits", () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const rand = seededRandom(11);
    // Zipf-like words, some stemmed by porter (running, runs), three columns of varied length
    const vocab = Array.from({ length: 120 }, (_, i) => ['run', 'running', 'runs', 'the', 'of', 'engine', 'engines'][i] ?? `t${i.toString(36)}q`);
    const word = () => vocab[Math.max(0, Math.min(vocab.length - 1, Math.floor(1 / (rand() + 1 / vocab.length)) - 1))];
    const words = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, word).join(' ');
    const doc = (i: number) => ({ org: 'o', uid: `u${i}`, node_type: 'Note', layer: 'reality', label: words(1, 5), summary: words(0, 30), body: rand() < 0.4 ? words(1, 60) : '' });
    index.upsertSync(Array.from({ length: 800 }, (_, i) => doc(i)));
    index.removeSync('o', Array.from({ length: 80 }, (_, i) => `u${i * 7}`));
    index.upsertSync(Array.from({ length: 100 }, (_, i) => doc(i * 5 + 1)));

    const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    const fts = `text_fts_${name}`;
    db.exec(`CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, ${fts}, 'instance')`);
    const counts = new Map<string, Map<number, number[]>>();
    const rowTokens = new Map<number, number>();
    for (const r of db.prepare('SELECT term, doc, col FROM temp.instances').iterate() as Iterable<{ term: string; doc: number; col: string }>) {
      const c = ['label', 'summary', 'body'].indexOf(r.col);
      let byDoc = counts.get(r.term);
      if (!byDoc) counts.set(r.term, (byDoc = new Map()));
      let a = byDoc.get(r.doc);
      if (!a) byDoc.set(r.doc, (a = [0, 0, 0]));
      a[c]++;
      rowTokens.set(r.doc, (rowTokens.get(r.doc) ?? 0) + 1);
    }
    const avg = decodeFts5Averages(db.prepare(`SELECT block FROM ${fts}_data WHERE id = 1`).pluck().get() as Buffer, 3);
    const avgdl = avg.tokens.reduce((a, b) => a + b, 0) / avg.rows;
    const sqliteLn = db.prepare<[number], number>('SELECT ln(?)').pluck();
    const ln = (x: number) => sqliteLn.get(x)!;
    // the token FTS5 makes of a word, from a scratch table with the same tokenizer
    db.exec(`CREATE VIRTUAL TABLE temp.scratch USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE temp.scratch_vocab USING fts5vocab(temp, scratch, 'row');`);
    const stem = (w: string) => {
      db.prepare('INSERT INTO temp.scratch (rowid, x) VALUES (1, ?)').run(w);
      const token = db.prepare('SELECT term FROM temp.scratch_vocab').pluck().get() as string;
      db.prepare('DELETE FROM temp.scratch').run();
      return token;
    };

    let compared = 0;
    const mismatches: unknown[] = [];
    const unbounded: unknown[] = [];
    for (let q = 0; q < 150; q++) {
      const terms = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 5) }, word))];
      // repeated stems are separate phrases to FTS5 as well
      const rows = db
        .prepare(`SELECT rowid AS id, bm25(${fts}, ${BM25_COLUMN_WEIGHTS.map((w) => w.toFixed(1)).join(', ')}) AS rank FROM ${fts} WHERE ${fts} MATCH ?`)
        .all(terms.map((t) => `"${t}"`).join(' OR ')) as Array<{ id: number; rank: number }>;
      const tokens = terms.map(stem);
      const idf = tokens.map((t) => fts5Idf(avg.rows, counts.get(t)?.size ?? 0, ln));
      for (const r of rows) {
        const freq = tokens.map((t) => fts5WeightedFrequency(counts.get(t)?.get(r.id) ?? [0, 0, 0]));
        const D = rowTokens.get(r.id)!;
        const mine = fts5Bm25(idf, freq, D, avgdl);
        if (mine !== r.rank) mismatches.push({ terms, row: r.id, fts5: r.rank, mine });
        // each phrase's part stays under the bound of a (higher frequency, shorter row) pair
        freq.forEach((f, i) => {
          if (-fts5Bm25([idf[i]], [f], D, avgdl) > fts5PartBound(idf[i], f + 1, Math.max(0, D - 1), avgdl)) unbounded.push({ terms, row: r.id });
        });
        compared++;
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(unbounded.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(5_000);
  });

  it('floors the IDF of a term in at least half the rows as FTS5 does', () => {
    expect(fts5Idf(10, 5, Math.log)).toBe(1e-6);
    expect(fts5Idf(10, 9, Math.log)).toBe(1e-6);
    expect(fts5Idf(10, 1, Math.log)).toBe(Math.log(9.5 / 1.5));
    expect(fts5WeightedFrequency([2, 1, 3])).toBe(2 * 10 + 4 + 3);
  });
});
