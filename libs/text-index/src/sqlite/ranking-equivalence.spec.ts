import Database from 'better-sqlite3';
import { queryTerms } from '../analysis/text-analysis';
import { DEFAULT_SALIENCE, type TextDocument, type TextHit, type TextQuery } from '../text-index.port';
import { seededRandom } from '../testing/tie-order';
import { SqliteTextIndex, type SqliteTextIndexOptions } from './sqlite-text-index';

/**
 * The ranking as REFERENCE §5.1 and docs/search.md define it, computed the slow, obvious way:
 * every row matching the query is read and scored, then sorted (score desc, salience desc,
 * uid asc) in JavaScript. Any planned or pruned path of the index (MaxScore, the zero tier of
 * common terms, and whatever early-terminating index replaces them) must answer exactly a
 * prefix of this list, scores included.
 *
 * The scoring rule: FTS5 bm25() with weights 10, 4, 1 over the query's terms, except that
 * terms found in at least half of the organization's N rows add nothing when together they
 * match more than `commonTermRows` rows; rows matching only such terms then score 0.
 */
function referenceRanking(db: Database.Database, commonTermRows: number, q: TextQuery): TextHit[] {
  const name = db.prepare('SELECT name FROM text_orgs WHERE org = ?').pluck().get(q.org) as string | undefined;
  if (!name || (q.uids && q.uids.length === 0) || !(q.limit > 0)) return [];
  const fts = `text_fts_${name}`;
  const docs = new Map(
    (db.prepare(`SELECT id, uid, node_type, layer, salience FROM text_docs_${name}`).all() as Array<{ id: number; uid: string; node_type: string; layer: string; salience: number }>).map((d) => [d.id, d]),
  );
  const terms = queryTerms(q.query);
  if (!terms.length) return [];
  const expr = (ts: string[]) => ts.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  const n = docs.size;
  const df = (t: string) => db.prepare(`SELECT count(*) FROM ${fts} WHERE ${fts} MATCH ?`).pluck().get(expr([t])) as number;
  const common = terms.filter((t) => 2 * df(t) >= n);
  const commonRows = common.reduce((s, t) => s + df(t), 0);
  const scoredTerms = common.length && commonRows > commonTermRows ? terms.filter((t) => !common.includes(t)) : terms;
  const zeroTerms = scoredTerms.length === terms.length ? [] : common;

  const score = new Map<number, number>();
  if (scoredTerms.length) {
    for (const r of db.prepare(`SELECT rowid AS id, bm25(${fts}, 10.0, 4.0, 1.0) AS rank FROM ${fts} WHERE ${fts} MATCH ?`).all(expr(scoredTerms)) as Array<{ id: number; rank: number }>) {
      score.set(r.id, -r.rank);
    }
  }
  if (zeroTerms.length) {
    for (const id of db.prepare(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?`).pluck().all(expr(zeroTerms)) as number[]) if (!score.has(id)) score.set(id, 0);
  }
  const uids = q.uids ? new Set(q.uids) : null;
  const hits = [...score]
    .map(([id, s]) => ({ d: docs.get(id)!, s }))
    .filter(
      ({ d }) =>
        (!q.node_types?.length || q.node_types.includes(d.node_type)) &&
        (!q.exclude_node_types?.length || !q.exclude_node_types.includes(d.node_type)) &&
        (q.layer === undefined || d.layer === q.layer) &&
        (!uids || uids.has(d.uid)),
    )
    .sort((a, b) => b.s - a.s || b.d.salience - a.d.salience || (a.d.uid < b.d.uid ? -1 : a.d.uid > b.d.uid ? 1 : 0))
    .map(({ d, s }) => ({ uid: d.uid, score: s === 0 ? 0 : s, salience: d.salience }));
  const out: TextHit[] = [];
  for (const h of hits.slice(0, q.limit)) {
    if (q.min_score !== undefined && h.score < q.min_score) break;
    out.push(h);
  }
  return out;
}

/** A Zipf-like vocabulary: the first words are in most rows, the last in a handful. */
const VOCAB = Array.from({ length: 70 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
const ZIPF = (() => {
  const w = VOCAB.map((_, i) => 1 / (i + 1));
  const total = w.reduce((a, b) => a + b, 0);
  let acc = 0;
  return w.map((x) => (acc += x / total));
})();
const TYPES = ['Note', 'Concept', 'Person'];
const LAYERS = ['reality', 'plan'];
const SALIENCES = [0.1, 0.5, 0.5, 0.9, 1];

class Corpus {
  readonly rand: () => number;
  readonly live = new Map<string, TextDocument>();
  private next = 0;
  constructor(seed: number) {
    this.rand = seededRandom(seed);
  }
  word(): string {
    const r = this.rand();
    return VOCAB[ZIPF.findIndex((c) => r <= c)] ?? VOCAB[VOCAB.length - 1];
  }
  words(min: number, max: number): string {
    return Array.from({ length: min + Math.floor(this.rand() * (max - min + 1)) }, () => this.word()).join(' ');
  }
  pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }
  doc(org: string, uid: string): TextDocument {
    // a few texts repeat exactly, so whole groups tie on score
    const copy = this.live.size > 20 && this.rand() < 0.15 ? this.pick([...this.live.values()]) : null;
    return {
      org,
      uid,
      // a rare type: type filters on it are ranked from its rows (`typeWalkRatio`)
      node_type: this.rand() < 0.04 ? 'Article' : this.pick(TYPES),
      layer: this.pick(LAYERS),
      label: copy ? copy.label : this.words(1, 4),
      summary: copy ? copy.summary : this.words(0, 12),
      body: copy ? copy.body : this.rand() < 0.5 ? '' : this.words(1, 8),
      salience: this.pick(SALIENCES),
    };
  }
  fresh(org: string): TextDocument {
    // uids in no particular order relative to insertion
    const uid = `n${((this.next++ * 7919) % 100_003).toString(36).padStart(5, '0')}`;
    const d = this.doc(org, uid);
    this.live.set(uid, d);
    return d;
  }
  query(allUids: string[]): TextQuery {
    const terms = Array.from({ length: 1 + Math.floor(this.rand() * 6) }, () => (this.rand() < 0.08 ? 'absentword' : this.word()));
    const q: TextQuery = { org: 'o', query: terms.join(' '), limit: 0 };
    const f = this.rand();
    if (f < 0.15) q.node_types = this.rand() < 0.5 ? ['Article'] : [this.pick(TYPES)];
    else if (f < 0.3) q.exclude_node_types = [this.pick(TYPES)];
    else if (f < 0.4) q.layer = this.pick(LAYERS);
    else if (f < 0.6) q.uids = allUids.filter(() => this.rand() < 0.2); // a scoped (Space-restricted) caller, gone uids included
    if (this.rand() < 0.1) q.min_score = this.rand() * 3;
    return q;
  }
}

const CONFIGS: Array<[string, SqliteTextIndexOptions]> = [
  ['default thresholds', {}],
  ['small thresholds (MaxScore, zero tier walk and fallback)', { commonTermRows: 300, essentialDfBudget: 200 }],
  ['tiny thresholds (every common term dropped, one essential term)', { commonTermRows: 0, essentialDfBudget: 1 }],
  ['postings, every query', { postings: true, postingsMinRows: 0 }],
  ['postings, small thresholds', { postings: true, postingsMinRows: 0, commonTermRows: 300, essentialDfBudget: 200 }],
  ['postings, segments merged two at a time', { postings: true, postingsMinRows: 0, postingsMergeFactor: 2 }],
  ['every node-type filter ranked from its types\' rows', { typeWalkRatio: 0 }],
  ['every node-type filter ranked from its types\' rows, small thresholds', { typeWalkRatio: 0, commonTermRows: 300, essentialDfBudget: 200 }],
  ['postings, merges made a few postings per unit of work', { postings: true, postingsMinRows: 0, postingsMergeFactor: 2, postingsMergeStep: 64 }],
  ['term lists on every query', { termListsMinRows: 0 }],
  ['term lists on every query, small thresholds', { termListsMinRows: 0, commonTermRows: 300, essentialDfBudget: 200 }],
  ['term lists within a tiny budget, read again after a few changed rows', { termListsMinRows: 0, termListsBytes: 2048, termListsStaleRows: 8 }],
  ['FTS5 statements only (no term lists)', { termLists: false }],
  ['FTS5 statements only, small thresholds', { termLists: false, commonTermRows: 300, essentialDfBudget: 200 }],
];
const LIMITS = [1, 3, 7, 20, 64, 100_000];

describe.each(CONFIGS)('SqliteTextIndex ranking equals the reference ranking (%s)', (_name, options) => {
  const commonTermRows = options.commonTermRows ?? 5_000;

  const check = (db: Database.Database, index: SqliteTextIndex, c: Corpus, queries: number) => {
    const allUids = [...c.live.keys(), 'n-gone-1', 'n-gone-2'];
    for (let i = 0; i < queries; i++) {
      const q = c.query(allUids);
      const reference = referenceRanking(db, commonTermRows, { ...q, limit: 100_000 });
      for (const limit of LIMITS) {
        const got = index.searchSync({ ...q, limit });
        // pages are slices: the first `limit` hits of one order, scores included
        if (JSON.stringify(got) !== JSON.stringify(reference.slice(0, limit))) {
          expect({ q, limit, got }).toEqual({ q, limit, got: reference.slice(0, limit) });
        }
      }
    }
  };

  it('on a generated corpus, then after updates, salience changes and deletes, and equal to a rebuild', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, options);
    const c = new Corpus(4242);
    // another organization's rows must change nothing
    const other = new Corpus(7);
    index.upsertSync(Array.from({ length: 300 }, () => other.fresh('other')));
    for (let i = 0; i < 1500; i += 250) index.upsertSync(Array.from({ length: 250 }, () => c.fresh('o')));
    check(db, index, c, 40);

    const uids = () => [...c.live.keys()];
    // text edits (some to an existing text), type/layer moves, salience-only changes, deletes
    for (const uid of uids().filter(() => c.rand() < 0.15)) {
      const d = { ...c.doc('o', uid), salience: c.live.get(uid)!.salience };
      c.live.set(uid, d);
      index.upsertSync([d]);
    }
    const moved = uids()
      .filter(() => c.rand() < 0.2)
      .map((uid) => ({ uid, salience: c.pick(SALIENCES) }));
    index.setSalienceSync('o', moved);
    for (const m of moved) c.live.get(m.uid)!.salience = m.salience;
    const gone = uids().filter(() => c.rand() < 0.12);
    index.removeSync('o', gone);
    for (const uid of gone) c.live.delete(uid);
    for (let i = 0; i < 100; i++) index.upsertSync([c.fresh('o')]);
    check(db, index, c, 40);

    // a rebuild (same documents, another insertion order, no history) answers the same
    const rebuiltDb = new Database(':memory:');
    const rebuilt = new SqliteTextIndex(rebuiltDb, options);
    const docs = [...c.live.values()].sort(() => c.rand() - 0.5);
    rebuilt.upsertSync(docs.map((d) => ({ ...d, salience: d.salience ?? DEFAULT_SALIENCE })));
    const probe = new Corpus(99);
    for (let i = 0; i < 30; i++) {
      const q = probe.query(uids());
      for (const limit of [5, 50]) expect(rebuilt.searchSync({ ...q, limit })).toEqual(index.searchSync({ ...q, limit }));
    }
  });

  it('with writes between queries: inserts, text edits, deletes, each followed by queries', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, options);
    const c = new Corpus(31);
    for (let i = 0; i < 1200; i += 300) index.upsertSync(Array.from({ length: 300 }, () => c.fresh('o')));
    // every query after a write finds the frequency cache started over, and the lists held
    check(db, index, c, 5);
    for (let round = 0; round < 30; round++) {
      const r = c.rand();
      const uids = [...c.live.keys()];
      if (r < 0.5) index.upsertSync([c.fresh('o')]);
      else if (r < 0.8) {
        const uid = c.pick(uids);
        const d = { ...c.doc('o', uid), salience: c.live.get(uid)!.salience };
        c.live.set(uid, d);
        index.upsertSync([d]);
      } else {
        const uid = c.pick(uids);
        index.removeSync('o', [uid]);
        c.live.delete(uid);
      }
      check(db, index, c, 2);
    }
  });
});

describe('SqliteTextIndex pages ending inside a heavy tie', () => {
  // `about <word> number <i>`: every row holding a word scores the same for `<word> number <d>`,
  // so a page ends inside a tie of hundreds of rows, ordered by salience then uid
  const WORDS = ['river', 'stone', 'cloud', 'ember', 'harbor'];
  const build = (rand: () => number, n: number) =>
    Array.from({ length: n }, (_, i): TextDocument => ({
      org: 'o',
      uid: `u${((i * 7919) % 100_003).toString(36).padStart(5, '0')}`,
      node_type: 'Concept',
      layer: 'reality',
      label: `entity ${i}`,
      summary: `about ${WORDS[i % WORDS.length]} number ${i}`,
      body: '',
      salience: SALIENCES[Math.floor(rand() * SALIENCES.length)],
    }));

  it('answers the reference order at every page size, after salience changes and deletes, finding the tied rows by the salience walk', () => {
    const rand = seededRandom(11);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, {});
    const docs = build(rand, 6000);
    index.upsertSync(docs);
    const walk = jest.spyOn(SqliteTextIndex.prototype as unknown as { tiedRows: (...a: unknown[]) => unknown }, 'tiedRows');
    const check = () => {
      for (const word of WORDS)
        for (const d of [3, 7]) {
          const q = { org: 'o', query: `${word} number ${d}`, limit: 0 };
          const reference = referenceRanking(db, 5_000, { ...q, limit: 100_000 });
          for (const limit of [1, 2, 5, 20, 45, 100]) expect(index.searchSync({ ...q, limit })).toEqual(reference.slice(0, limit));
        }
    };
    check();
    index.setSalienceSync('o', docs.filter(() => rand() < 0.3).map((d) => ({ uid: d.uid, salience: SALIENCES[Math.floor(rand() * SALIENCES.length)] })));
    index.removeSync('o', docs.filter(() => rand() < 0.1).map((d) => d.uid));
    check();
    // the walk answered (it may also give way to the statement, which answers the same)
    expect(walk.mock.results.some((r) => r.type === 'return' && r.value !== null)).toBe(true);
    walk.mockRestore();
  });
});
