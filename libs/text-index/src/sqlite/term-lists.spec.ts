import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TextDocument, TextQuery } from '../text-index.port';
import { seededRandom } from '../testing/tie-order';
import { SqliteTextIndex } from './sqlite-text-index';
import { Fts5Doclists } from './fts5-doclists';
import { TermLists } from './term-lists';

const WORDS = ['harbor', 'stone', 'the', 'of', 'river', 'lantern', 'copper', 'meadow', 'a', 'signal'];

function docs(rand: () => number, from: number, n: number): TextDocument[] {
  const text = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => WORDS[Math.floor(rand() * rand() * WORDS.length)]).join(' ');
  return Array.from({ length: n }, (_, i) => ({
    org: 'o',
    uid: `u${String(from + i).padStart(6, '0')}`,
    node_type: i % 7 === 0 ? 'Person' : 'Note',
    layer: 'reality',
    label: text(1, 4),
    summary: text(0, 12),
    body: rand() < 0.5 ? '' : text(1, 6),
    salience: [0.1, 0.5, 0.9][Math.floor(rand() * 3)],
  }));
}

const QUERIES: Omit<TextQuery, 'limit'>[] = [
  { org: 'o', query: 'harbor' },
  { org: 'o', query: 'stone river' },
  { org: 'o', query: 'lantern of copper' },
  { org: 'o', query: 'meadow signal', exclude_node_types: ['Person'] },
  { org: 'o', query: 'copper harbor', node_types: ['Person'] },
];

/** Runs `fn` watching the lists read from FTS5 (`TermLists.read`); `tokens()` names them in order. */
function watchingReads(fn: (tokens: () => string[]) => void): void {
  const read = jest.spyOn(TermLists.prototype as unknown as { read: (s: unknown, token: string) => unknown }, 'read');
  try {
    fn(() => read.mock.calls.map((c) => c[1]));
  } finally {
    read.mockRestore();
  }
}

/** `n` seeded rows in a fresh database: an index with term lists, and one ranking by the FTS5 statements alone. */
function withRows(seed: number, n: number): { db: Database.Database; index: SqliteTextIndex; statements: SqliteTextIndex } {
  const db = new Database(':memory:');
  const index = new SqliteTextIndex(db);
  index.upsertSync(docs(seededRandom(seed), 0, n));
  return { db, index, statements: new SqliteTextIndex(db, { termLists: false }) };
}

/** Runs `fn` counting the rows scored from their own text (`TermLists.rowTerms`). */
function countingTexts(fn: () => void): number {
  const texts = jest.spyOn(TermLists.prototype as unknown as { rowTerms: (...a: unknown[]) => unknown }, 'rowTerms');
  try {
    fn();
    return texts.mock.calls.length;
  } finally {
    texts.mockRestore();
  }
}

describe('SqliteTextIndex term lists', () => {
  /** Every query at several page sizes, against the same database ranked by the FTS5 statements alone. */
  const expectStatementsAnswer = (db: Database.Database, index: SqliteTextIndex) => {
    const statements = new SqliteTextIndex(db, { termLists: false });
    for (const q of QUERIES) for (const limit of [1, 5, 40]) expect(index.searchSync({ ...q, limit })).toEqual(statements.searchSync({ ...q, limit }));
  };

  it('appends rows written after a word was read to its list, without reading it from FTS5 again', () => {
    const rand = seededRandom(3);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync(docs(rand, 0, 2000));
    expectStatementsAnswer(db, index);
    watchingReads((tokens) => {
      index.upsertSync(docs(rand, 2000, 50));
      expectStatementsAnswer(db, index);
      expect(tokens()).toEqual([]);
    });
  });

  it('scores rows whose text changed, or that went, by what FTS5 holds for them now', () => {
    const rand = seededRandom(5);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const written = docs(rand, 0, 2000);
    index.upsertSync(written);
    expectStatementsAnswer(db, index);
    // the best rows of a query move: their texts change or they go
    const best = index.searchSync({ org: 'o', query: 'harbor', limit: 30 }).map((h) => h.uid);
    index.upsertSync(best.slice(0, 10).map((uid) => ({ ...written.find((d) => d.uid === uid)!, label: 'meadow', summary: 'stone', body: '' })));
    index.removeSync('o', best.slice(10, 20));
    expectStatementsAnswer(db, index);
    // and again, after the lists met them once
    index.upsertSync(best.slice(0, 5).map((uid) => ({ ...written.find((d) => d.uid === uid)!, label: 'harbor harbor harbor' })));
    expectStatementsAnswer(db, index);
  });

  it("reads the lists again after another connection's commit", () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-term-lists-'));
    try {
      const file = join(dir, 'p.db');
      const rand = seededRandom(9);
      const a = new Database(file);
      a.pragma('journal_mode = WAL');
      const index = new SqliteTextIndex(a);
      index.upsertSync(docs(rand, 0, 1500));
      expectStatementsAnswer(a, index);
      const b = new Database(file);
      const writer = new SqliteTextIndex(b);
      // another connection rewrites rows this one has in its lists, and adds some
      writer.upsertSync(docs(seededRandom(10), 0, 300));
      writer.upsertSync(docs(rand, 1500, 100));
      writer.removeSync('o', ['u000400', 'u000401']);
      expectStatementsAnswer(a, index);
      b.close();
      a.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads every row's length, whether or not deletes left gaps between the rows' ids", () => {
    const db = new Database(':memory:');
    const writer = new SqliteTextIndex(db, { termLists: false });
    writer.upsertSync(docs(seededRandom(12), 0, 1200));
    const statements = new SqliteTextIndex(db, { termLists: false });
    // every row holding a word, each scored with its length: a new index reads the lengths at its first query
    const everyRow = () => {
      const index = new SqliteTextIndex(db);
      for (const query of ['harbor', 'stone river']) expect(index.searchSync({ org: 'o', query, limit: 5000 })).toEqual(statements.searchSync({ org: 'o', query, limit: 5000 }));
    };
    everyRow();
    writer.removeSync('o', ['u000000', 'u000001', 'u000500', 'u000777', 'u001199']);
    everyRow();
    db.close();
  });

  it('hears the edits and deletes made through another text index on the same connection', () => {
    const rand = seededRandom(21);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    // a writer whose own lists are off: its writes must still reach the reader's lists
    const writer = new SqliteTextIndex(db, { termLists: false });
    const written = docs(rand, 0, 1500);
    writer.upsertSync(written);
    expectStatementsAnswer(db, index);
    const best = index.searchSync({ org: 'o', query: 'stone river', limit: 20 }).map((h) => h.uid);
    writer.upsertSync(best.slice(0, 8).map((uid) => ({ ...written.find((d) => d.uid === uid)!, label: 'copper', summary: '', body: '' })));
    writer.removeSync('o', best.slice(8, 14));
    expectStatementsAnswer(db, index);
  });

  it('keeps answering within a budget smaller than one list', () => {
    const rand = seededRandom(13);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { termListsBytes: 64 });
    index.upsertSync(docs(rand, 0, 1500));
    expectStatementsAnswer(db, index);
    index.upsertSync(docs(rand, 1500, 20));
    expectStatementsAnswer(db, index);
  });

  it('leaves unread the list of a word too common to change the page, scoring the few candidates from their text, and reads it when the word comes back', () => {
    const { index, statements } = withRows(19, 3000);
    watchingReads((tokens) => {
      const same = (limit: number) => expect(index.searchSync({ org: 'o', query: 'signal harbor', limit })).toEqual(statements.searchSync({ org: 'o', query: 'signal harbor', limit }));
      same(3);
      expect(tokens()).toEqual(['signal']);
      same(1);
      same(10);
      expect(tokens()).toEqual(['signal', 'harbor']);
    });
  });

  it('reads a short list MaxScore left unread rather than tokenize long candidate rows', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const filler = Array.from({ length: 300 }, (_, i) => `w${i % 97}`).join(' ');
    index.upsertSync(
      Array.from({ length: 3000 }, (_, i) => ({
        org: 'o', uid: `u${String(i).padStart(6, '0')}`, node_type: 'Note', layer: 'reality', salience: 0.5, body: '',
        label: i % 100 === 0 ? 'signal' : `row ${i}`,
        // harbor in under half the rows, every row long
        summary: `${i % 5 < 2 ? 'harbor ' : ''}${filler}`,
      })),
    );
    const statements = new SqliteTextIndex(db, { termLists: false });
    const texts = countingTexts(() =>
      watchingReads((tokens) => {
        expect(index.searchSync({ org: 'o', query: 'signal harbor', limit: 3 })).toEqual(statements.searchSync({ org: 'o', query: 'signal harbor', limit: 3 }));
        expect(tokens()).toEqual(['signal', 'harbor']);
      }),
    );
    expect(texts).toBe(0);
  });

  it('finds the candidates’ frequencies in a list it already holds that MaxScore left unread, without tokenizing their text', () => {
    const { index, statements } = withRows(19, 3000);
    // harbor's list is held from a query of its own, before any query leaves it unread
    index.searchSync({ org: 'o', query: 'harbor', limit: 5 });
    const texts = countingTexts(() => {
      for (const limit of [3, 1, 10]) expect(index.searchSync({ org: 'o', query: 'signal harbor', limit })).toEqual(statements.searchSync({ org: 'o', query: 'signal harbor', limit }));
    });
    expect(texts).toBe(0);
  });

  it('reads the frequent words of a written organization ahead of its queries, and starts over after a write', () => {
    const rand = seededRandom(23);
    const db = new Database(':memory:');
    // the idle timer never fires here: warming is run by hand, as idle time would run it
    const index = new SqliteTextIndex(db, { termListsWarmMs: 3_600_000 });
    index.upsertSync(docs(rand, 0, 3000));
    expect(index.warmTermLists()).toBeGreaterThan(1);
    expect(index.warmTermLists()).toBe(0);
    watchingReads((tokens) => {
      // the words in 1,000 or more of the 3,000 rows and in under half of them are already read
      const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
      const frequent = db.prepare(`SELECT term FROM text_vocab_${name} WHERE doc >= 1000 AND 2 * doc < 3000`).pluck().all() as string[];
      expect(frequent.length).toBeGreaterThan(0);
      for (const query of [...frequent, frequent.join(' ')]) for (const limit of [1, 20]) index.searchSync({ org: 'o', query, limit });
      expect(tokens()).toEqual([]);
      expectStatementsAnswer(db, index);
      index.upsertSync(docs(rand, 3000, 10));
      expect(index.warmTermLists()).toBeGreaterThan(1);
      expectStatementsAnswer(db, index);
    });
  });

  it('reads the frequent words of every organization it holds when it is opened again (a restart)', () => {
    const rand = seededRandom(31);
    const db = new Database(':memory:');
    new SqliteTextIndex(db).upsertSync(docs(rand, 0, 3000));
    const reopened = new SqliteTextIndex(db, { termListsWarmMs: 3_600_000 });
    expect(reopened.warmTermLists()).toBeGreaterThan(1);
    watchingReads((tokens) => {
      const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
      const frequent = db.prepare(`SELECT term FROM text_vocab_${name} WHERE doc >= 1000 AND 2 * doc < 3000`).pluck().all() as string[];
      expect(frequent.length).toBeGreaterThan(0);
      for (const query of frequent) reopened.searchSync({ org: 'o', query, limit: 20 });
      expect(tokens()).toEqual([]);
    });
  });

  it('keeps, while warming, the row counts of the words too common for a list, as fts5vocab counts them', () => {
    const rand = seededRandom(29);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { termListsWarmMs: 3_600_000 });
    index.upsertSync(docs(rand, 0, 3000));
    const counted = jest.spyOn(TermLists.prototype, 'countRows');
    try {
      index.warmTermLists();
      const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
      const common = db.prepare(`SELECT term, doc FROM text_vocab_${name} WHERE doc >= 1000 AND 2 * doc >= 3000`).all() as { term: string; doc: number }[];
      expect(common.length).toBeGreaterThan(0);
      const kept = new Map(counted.mock.calls.map(([, token, rows]) => [token, rows]));
      for (const w of common) expect([w.term, kept.get(w.term)]).toEqual([w.term, w.doc]);
    } finally {
      counted.mockRestore();
    }
    // and queries planned on those counts answer as the statements do
    const statements = new SqliteTextIndex(db, { termLists: false });
    for (const query of ['harbor stone', 'the harbor of', 'harbor', 'stone the lantern']) for (const limit of [1, 20]) expect(index.searchSync({ org: 'o', query, limit })).toEqual(statements.searchSync({ org: 'o', query, limit }));
  });

  it('is used for the queries it can answer (the statements are the fallback, not the rule)', () => {
    const rand = seededRandom(17);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync(docs(rand, 0, 1000));
    const lists = jest.spyOn(SqliteTextIndex.prototype as unknown as { topFromLists: (...a: unknown[]) => unknown }, 'topFromLists');
    try {
      for (const q of QUERIES) index.searchSync({ ...q, limit: 10 });
      // the type filter too: Person holds too many of its words' rows for the type walk
      const answered = lists.mock.results.filter((r) => r.type === 'return' && r.value !== null).length;
      expect(answered).toBe(QUERIES.length);
    } finally {
      lists.mockRestore();
    }
  });

  it("decodes common words' lists from FTS5's pages, and reads them through the vocab view where the pages disagree with FTS5's count", () => {
    const rand = seededRandom(23);
    const db = new Database(':memory:');
    const written = docs(rand, 0, 4000);
    new SqliteTextIndex(db).upsertSync(written);
    // newer segments over older ones: edits and deletes
    const writer = new SqliteTextIndex(db);
    writer.upsertSync(written.slice(0, 300).map((d) => ({ ...d, summary: 'the river of stone' })));
    writer.removeSync('o', written.slice(300, 400).map((d) => d.uid));
    const counted = (index: SqliteTextIndex) => (index as unknown as { termLists: TermLists }).termLists;

    const index = new SqliteTextIndex(db);
    expectStatementsAnswer(db, index);
    expect(counted(index).pageReads).toBeGreaterThan(0);
    expect(counted(index).vocabReads).toBeGreaterThan(0); // rare words: the view is cheaper

    const wrong = jest.spyOn(Fts5Doclists.prototype, 'read').mockImplementation(function (this: Fts5Doclists) {
      return { list: { ids: new Uint32Array([1]), wf: new Float32Array([1]), n: 1 }, rows: 1 };
    });
    try {
      const other = new SqliteTextIndex(db);
      expectStatementsAnswer(db, other);
      expect(wrong).toHaveBeenCalled();
      expect(counted(other).pageReads).toBe(0);
    } finally {
      wrong.mockRestore();
    }
  });

  it("answers each word's document frequency as fts5vocab counts it, through inserts, bulk inserts, edits and deletes between queries", () => {
    const rand = seededRandom(17);
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { termListsMinRows: 0 });
    index.upsertSync(docs(rand, 0, 1500));
    const name = db.prepare('SELECT name FROM text_orgs WHERE org = ?').pluck().get('o') as string;
    const internals = index as unknown as { orgTables(org: string, create: boolean): unknown; docFreqReader(t: unknown): (token: string) => number };
    const kept = jest.spyOn(TermLists.prototype, 'countRows');
    try {
      // every word's count from the index's reader (held lists, kept counts or fts5vocab), checked against fts5vocab
      const expectCounts = (when: string) => {
        const df = internals.docFreqReader(internals.orgTables('o', false));
        const want = db.prepare(`SELECT term, doc FROM text_vocab_${name}`).all() as { term: string; doc: number }[];
        expect(want.length).toBeGreaterThan(5);
        expect([when, want.map((w) => [w.term, df(w.term)])]).toEqual([when, want.map((w) => [w.term, w.doc])]);
      };
      for (const q of QUERIES) index.searchSync({ ...q, limit: 5 });
      expectCounts('after the first queries');
      let next = 1500;
      for (let round = 0; round < 12; round++) {
        index.upsertSync(docs(rand, next, 1 + (round % 3)));
        next += 1 + (round % 3);
        expectCounts(`after inserts, round ${round}`);
        for (const q of QUERIES) index.searchSync({ ...q, limit: 5 });
      }
      // counts were kept, not only read again
      expect(kept).toHaveBeenCalled();
      // more rows than are appended: the lists are dropped and the rows' words not tokenized
      index.upsertSync(docs(rand, next, 5000));
      expectCounts('after a bulk insert');
      for (const q of QUERIES) index.searchSync({ ...q, limit: 5 });
      expectCounts('after a bulk insert and queries');
      index.upsertSync(docs(rand, 1, 2).map((d, i) => ({ ...d, uid: `u${String(i).padStart(6, '0')}` })));
      expectCounts('after edits');
      index.removeSync('o', ['u000010', 'u000011']);
      expectCounts('after deletes');
    } finally {
      kept.mockRestore();
    }
  });
});
