import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TextDocument } from '../text-index.port';
import { seededRandom } from '../testing/tie-order';
import { SqliteTextIndex } from './sqlite-text-index';
import { DocAnalyzer, Postings } from './text-postings';

const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;

/** FTS5's own (token → weighted frequency, tokens per column) for a row, from an 'instance' vocabulary. */
function ftsRowTerms(db: Database.Database, columns: string[]): { wtf: Map<string, number>; sizes: number[] } {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.ref USING fts5(a, b, c, ${TOKENIZE});
           CREATE VIRTUAL TABLE IF NOT EXISTS temp.ref_inst USING fts5vocab(temp, ref, 'instance');
           DELETE FROM temp.ref;`);
  db.prepare('INSERT INTO temp.ref (rowid, a, b, c) VALUES (1, ?, ?, ?)').run(...columns);
  const wtf = new Map<string, number>();
  const sizes = [0, 0, 0];
  const weights = [10, 4, 1];
  for (const r of db.prepare('SELECT term, col FROM temp.ref_inst').all() as { term: string; col: string }[]) {
    const c = ['a', 'b', 'c'].indexOf(r.col);
    sizes[c]++;
    wtf.set(r.term, (wtf.get(r.term) ?? 0) + weights[c]);
  }
  return { wtf, sizes };
}

const doc = (uid: string, label: string, summary = '', body = ''): TextDocument => ({ org: 'o', uid, node_type: 'Note', layer: 'reality', label, summary, body });

describe('Postings of the SQLite text index', () => {
  it('tokenize a row exactly as FTS5 does: case, digits, diacritics, scripts, short Porter exceptions, long tokens', () => {
    const db = new Database(':memory:');
    const analyzer = new DocAnalyzer(db);
    const texts = [
      ['The Running runners RAN', 'eed ies eeds sses yyed sbeyying', '1960s 210lbs 2002 3.14 x²'],
      ['Café CAFÉ naïve résumé Ærøskøbing straße', 'ﬁle ½ İstanbul ΣΑΣ σας 你好世界 日本語 한국어', 'don’t can\'t e-mail U.S.A. foo_bar'],
      ['a'.repeat(70) + 'ing ' + 'b'.repeat(63) + 'ed', 'generalizations relational conditional', ''],
    ];
    for (const cols of texts) {
      const ours = analyzer.analyze(cols);
      const ref = ftsRowTerms(db, cols);
      expect(ours.sizes).toEqual(ref.sizes);
      expect(new Map([...ours.wtf].sort())).toEqual(new Map([...ref.wtf].sort()));
    }
  });

  it('tokenize as FTS5 does while the run table grows: tens of thousands of distinct words, each seen again in other cases', () => {
    const db = new Database(':memory:');
    const analyzer = new DocAnalyzer(db);
    const rand = seededRandom(5);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const word = () => Array.from({ length: 2 + Math.floor(rand() * 9) }, () => letters[Math.floor(rand() * 26)]).join('');
    const vocab = Array.from({ length: 40_000 }, (_, i) => (i % 7 === 0 ? `${word()}${i}` : word()));
    const rows = Array.from({ length: 800 }, (_, r) => vocab.slice(r * 50, r * 50 + 50).join(' '));
    // first pass fills the table (it doubles several times); the second reads every run back, in upper case
    for (const text of [...rows, ...rows.map((t) => t.toUpperCase())]) {
      const cols = [text.slice(0, 40), text, ''];
      const ours = analyzer.analyze(cols);
      const ref = ftsRowTerms(db, cols);
      expect(ours.sizes).toEqual(ref.sizes);
      expect(new Map([...ours.wtf].sort())).toEqual(new Map([...ref.wtf].sort()));
    }
  });

  it('hold exactly FTS5 rows per token after writes, edits, deletes and a rolled-back unit of work', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { postings: true, postingsMinRows: 0 });
    const rand = seededRandom(11);
    const words = ['alpha', 'beta', 'gamma', 'delta', 'running', 'runs', 'café', '2024', 'eed', 'x1'];
    const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
    // one node per call inside a unit of work, flushed before the commit (as the projection runner does)
    const unit = (docs: TextDocument[]) =>
      db.transaction(() => {
        for (const d of docs) index.upsertSync([d]);
        index.flushSync();
      })();
    unit(Array.from({ length: 400 }, (_, i) => doc(`n${i}`, text(3), text(8), text(2))));
    // a unit rolled back after its writes: its postings must not reach a later flush
    expect(() =>
      db.transaction(() => {
        for (let i = 0; i < 50; i++) index.upsertSync([doc(`gone${i}`, 'rolledback alpha', text(4))]);
        throw new Error('abort');
      })(),
    ).toThrow('abort');
    unit(Array.from({ length: 100 }, (_, i) => doc(`m${i}`, text(2), text(5))));
    unit(Array.from({ length: 60 }, (_, i) => doc(`n${i * 3}`, text(4), text(3))));
    index.removeSync(
      'o',
      Array.from({ length: 40 }, (_, i) => `n${i * 5 + 1}`),
    );

    const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    const counts = new Map<string, number>();
    for (const [term] of Postings.decode(db, name)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const fts = new Map((db.prepare(`SELECT term, doc FROM text_vocab_${name}`).raw().all() as [string, number][]).map(([t, n]) => [t, n]));
    expect(new Map([...counts].sort())).toEqual(new Map([...fts].sort()));
    expect(counts.has('rolledback')).toBe(false);

    // and the postings path answers what FTS5 answers (a search inside a transaction reads FTS5)
    const off = new SqliteTextIndex(db);
    for (const query of ['alpha beta', 'running', 'gamma delta café 2024', 'eed x1 beta', 'alpha']) {
      for (const limit of [1, 5, 40, 1000]) expect(index.searchSync({ org: 'o', query, limit })).toEqual(off.searchSync({ org: 'o', query, limit }));
    }
  });

  it('answer from postings kept between queries only while they are current: own edits, deletes and another connection\'s commits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-postings-'));
    try {
      const db = new Database(join(dir, 'p.db'));
      const other = new Database(join(dir, 'p.db'));
      const index = new SqliteTextIndex(db, { postings: true, postingsMinRows: 0 });
      const writer = new SqliteTextIndex(other, { postings: true, postingsMinRows: 0 });
      const off = new SqliteTextIndex(db);
      const rand = seededRandom(5);
      const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
      const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
      index.upsertSync(Array.from({ length: 300 }, (_, i) => doc(`n${i}`, text(2), text(6))));
      const same = () => {
        for (const query of ['alpha', 'beta', 'beta gamma', 'delta epsilon alpha']) {
          for (const limit of [3, 50, 1000]) expect(index.searchSync({ org: 'o', query, limit })).toEqual(off.searchSync({ org: 'o', query, limit }));
        }
      };
      same(); // directories and blocks now kept
      index.upsertSync(Array.from({ length: 40 }, (_, i) => doc(`n${i * 7}`, 'alpha alpha alpha', text(3))));
      index.removeSync('o', ['n1', 'n2', 'n3']);
      same();
      // another connection commits: the kept postings are stale for this handle
      // first rows holding "beta" get more of it: its row count stays, its frequencies change
      const holders = off.searchSync({ org: 'o', query: 'beta', limit: 1000 }).map((h) => h.uid).slice(-30);
      writer.upsertSync(holders.map((uid) => doc(uid, 'beta beta beta', 'beta')));
      same();
      writer.upsertSync(Array.from({ length: 80 }, (_, i) => doc(`w${i}`, 'beta gamma beta', text(2))));
      writer.removeSync('o', ['n10', 'n11']);
      same();
      expect(index.searchSync({ org: 'o', query: 'beta', limit: 1000 }).map((h) => h.uid)).toContain('w0');
      db.close();
      other.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Postings segments', () => {
  /** Every page the FTS5 path gives, from the postings index: same hits, same order, same scores. */
  const samePages = (index: SqliteTextIndex, off: SqliteTextIndex, queries: string[]) => {
    for (const query of queries) {
      const whole = off.searchSync({ org: 'o', query, limit: 100_000 });
      expect(whole.length).toBeGreaterThan(0);
      for (const limit of [1, 7, 20, 150, 100_000]) expect(index.searchSync({ org: 'o', query, limit })).toEqual(whole.slice(0, limit));
    }
  };
  const exactRows = (db: Database.Database) => {
    const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    const counts = new Map<string, number>();
    for (const [term] of Postings.decode(db, name)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const fts = new Map(db.prepare(`SELECT term, doc FROM text_vocab_${name}`).raw().all() as [string, number][]);
    expect(new Map([...counts].sort())).toEqual(new Map([...fts].sort()));
    return (db.prepare(`SELECT postings FROM text_fts_${name}_segs ORDER BY first_id`).pluck().all() as number[]);
  };

  const merging = (db: Database.Database): { done: string | null } | undefined => {
    const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    return db.prepare(`SELECT done FROM text_fts_${name}_merge`).get() as { done: string | null } | undefined;
  };

  it.each([
    ['merged whole within a unit', { postings: true, postingsMinRows: 0, postingsMergeFactor: 3 }],
    ['merged a few postings per unit (merges span many commits)', { postings: true, postingsMinRows: 0, postingsMergeFactor: 3, postingsMergeStep: 40 }],
  ])('merge without changing an answer (%s): heavy ties, pages, updates and deletes (in and across units), a rollback and a restart', (_, options) => {
    const stepped = 'postingsMergeStep' in options;
    const dir = mkdtempSync(join(tmpdir(), 'strata-segments-'));
    try {
      let db = new Database(join(dir, 'p.db'));
      let index = new SqliteTextIndex(db, options);
      let off = new SqliteTextIndex(db);
      const rand = seededRandom(23);
      // few distinct texts and saliences: thousands of equal scores, ties broken by salience then uid
      const texts = ['river stone', 'stone number', 'river of stone and cloud', 'cloud number seven', 'ember harbor river', 'number'];
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
      const mk = (uid: string): TextDocument => ({ ...doc(uid, pick(texts), pick(texts)), salience: pick([0.2, 0.5, 0.5, 0.9]) });
      const unit = (fn: () => void) =>
        db.transaction(() => {
          fn();
          index.flushSync();
        })();
      const queries = ['river', 'stone number', 'cloud river ember', 'number seven', 'harbor'];
      let next = 0;
      const segmentsSeen: number[] = [];
      const progress: (string | null)[] = [];
      for (let u = 0; u < 12; u++) {
        unit(() => {
          for (let i = 0; i < 40 + u * 10; i++) index.upsertSync([mk(`r${(next++ * 7919) % 10007}`)]);
        });
        segmentsSeen.push(exactRows(db).length);
        const m = merging(db);
        if (m) progress.push(m.done);
        // a merge under way changes no answer: its output is not read until it is whole
        if (m) samePages(index, off, queries.slice(0, 2));
      }
      // with a small step a merge is left under way by several commits, each moving it on
      if (stepped) expect(new Set(progress.filter((d) => d !== null)).size).toBeGreaterThan(1);
      else expect(progress).toEqual([]);
      // merges happened: fewer segments than units, one holding several units' rows
      expect(Math.min(...segmentsSeen.slice(2))).toBeLessThan(12);
      expect(segmentsSeen[segmentsSeen.length - 1]).toBeLessThan(12);
      samePages(index, off, queries);

      const uids = () => db.prepare(`SELECT uid FROM text_docs_${db.prepare('SELECT name FROM text_orgs').pluck().get()}`).pluck().all() as string[];
      // edits of rows in merged segments, a row added and edited and removed in one unit, deletes
      unit(() => {
        for (const uid of uids().filter(() => rand() < 0.2)) index.upsertSync([mk(uid)]);
        index.upsertSync([mk('fresh-1')]);
        index.upsertSync([{ ...mk('fresh-1'), label: 'harbor harbor harbor' }]);
        index.upsertSync([mk('fresh-2')]);
        index.removeSync('o', ['fresh-2']);
        index.removeSync('o', uids().filter(() => rand() < 0.1));
      });
      exactRows(db);
      samePages(index, off, queries);
      // the largest row re-indexed, then removed, then new rows: SQLite would hand its id out again
      unit(() => index.upsertSync([mk('last-1')]));
      unit(() => index.upsertSync([{ ...mk('last-1'), summary: 'seven seven harbor' }]));
      unit(() => index.removeSync('o', ['last-1']));
      unit(() => index.upsertSync([mk('last-2')]));
      unit(() => index.upsertSync([{ ...mk('last-2'), label: 'ember' }]));
      unit(() => index.removeSync('o', ['last-2']));
      unit(() => index.upsertSync([{ ...mk('last-3'), label: 'harbor seven' }]));
      exactRows(db);
      samePages(index, off, queries);
      // salience alone moves rows among their ties
      index.setSalienceSync('o', uids().filter(() => rand() < 0.3).map((uid) => ({ uid, salience: pick([0.1, 0.95]) })));
      samePages(index, off, queries);

      // a rolled-back unit leaves neither a segment nor a posting
      const before = exactRows(db);
      expect(() =>
        db.transaction(() => {
          for (let i = 0; i < 30; i++) index.upsertSync([mk(`gone${i}`)]);
          index.flushSync();
          throw new Error('abort');
        })(),
      ).toThrow('abort');
      expect(exactRows(db)).toEqual(before);

      // a restart (with a merge under way, when merges are made in steps): a new handle on the
      // same file answers the same, and merges what it finds
      for (let u = 0; stepped && !merging(db)?.done && u < 40; u++) unit(() => index.upsertSync([mk(`w${u}`)]));
      if (stepped) expect(merging(db)?.done).toBeTruthy();
      db.close();
      db = new Database(join(dir, 'p.db'));
      index = new SqliteTextIndex(db, options);
      off = new SqliteTextIndex(db);
      samePages(index, off, queries);
      for (let u = 0; u < 6; u++) unit(() => {
        for (let i = 0; i < 30; i++) index.upsertSync([mk(`s${u}-${i}`)]);
        index.removeSync('o', uids().filter(() => rand() < 0.03));
      });
      exactRows(db);
      samePages(index, off, queries);
      // a handle with the default step budget ends whatever merge it finds within one unit
      index = new SqliteTextIndex(db, { ...options, postingsMergeStep: undefined });
      unit(() => index.upsertSync([mk('end')]));
      expect(merging(db)).toBeUndefined();
      exactRows(db);
      samePages(index, off, queries);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
