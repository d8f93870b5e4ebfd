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
