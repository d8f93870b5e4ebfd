import Database from 'better-sqlite3';
import { describeTextIndexConformance } from '../testing/text-index.conformance';
import { SqliteTextIndex } from './sqlite-text-index';

describeTextIndexConformance('SqliteTextIndex', () => new SqliteTextIndex(new Database(':memory:')));

describe('SqliteTextIndex specifics', () => {
  it('shares the caller transaction: a rollback undoes the index write', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const doc = { org: 'o', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'walrus', summary: '', body: '' };
    const failing = db.transaction(() => {
      index.upsertSync([doc]);
      throw new Error('projection failed');
    });
    expect(() => failing()).toThrow('projection failed');
    expect(index.searchSync({ org: 'o', query: 'walrus', limit: 5 })).toEqual([]);
    db.transaction(() => index.upsertSync([doc]))();
    expect(index.searchSync({ org: 'o', query: 'walrus', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it('clears every organization for a rebuild', () => {
    const index = new SqliteTextIndex(new Database(':memory:'));
    index.upsertSync([
      { org: 'a', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' },
      { org: 'b', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' },
    ]);
    index.clearSync();
    expect(index.countSync('a') + index.countSync('b')).toBe(0);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 })).toEqual([]);
    index.upsertSync([{ org: 'a', uid: 'u2', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' }]);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 }).map((h) => h.uid)).toEqual(['u2']);
  });

  it('reopens its tables on an existing database without losing rows', () => {
    const db = new Database(':memory:');
    new SqliteTextIndex(db).upsertSync([
      { org: 'o', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'narwhal', summary: '', body: '' },
    ]);
    const again = new SqliteTextIndex(db);
    expect(again.countSync('o')).toBe(1);
    expect(again.searchSync({ org: 'o', query: 'narwhal', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it.each([5_000, 200, 20])('planned ranking equals plain BM25 over all terms (essential df budget %d)', (budget) => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { essentialDfBudget: budget });
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    // Zipf-ish vocabulary so that some words are in most rows and others in few.
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
    const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.pow(rand(), 3) * vocab.length))];
    const text = (n: number) => Array.from({ length: 1 + Math.floor(rand() * n) }, word).join(' ');
    const docs = Array.from({ length: 6000 }, (_, i) => ({
      org: i % 5 === 0 ? 'other' : 'o',
      uid: `n${i}`,
      node_type: i % 2 ? 'Claim' : 'Note',
      layer: 'reality',
      label: text(4),
      summary: text(10),
      body: text(30),
    }));
    index.upsertSync(docs);
    const exact = db.prepare(
      `SELECT d.uid AS uid, -bm25(text_fts, 10.0, 4.0, 1.0) AS score
         FROM text_fts CROSS JOIN text_docs d ON d.id = text_fts.rowid
        WHERE text_fts MATCH ? AND d.org = ? ORDER BY score DESC, d.uid`,
    );
    for (let n = 0; n < 150; n++) {
      const terms = [...new Set(Array.from({ length: 2 + Math.floor(rand() * 3) }, word))];
      const limit = [1, 5, 20][n % 3];
      const all = exact.all(terms.map((t) => `"${t}"`).join(' OR '), 'o') as Array<{ uid: string; score: number }>;
      const expected = new Map(all.map((r) => [r.uid, r.score]));
      const got = index.searchSync({ org: 'o', query: terms.join(' '), limit });
      expect(got.length).toBe(Math.min(limit, all.length));
      got.forEach((hit, i) => {
        // same score as the plain query gives that row, and the i-th best score overall
        // (terms left out for their 1e-6 IDF floor may shift scores by ≤ 2.2e-6 each)
        expect(Math.abs(hit.score - expected.get(hit.uid)!)).toBeLessThan(1e-5);
        expect(Math.abs(hit.score - all[i].score)).toBeLessThan(1e-5);
      });
    }
  });
});
