import Database from 'better-sqlite3';
import { seededRandom } from '../testing/tie-order';
import { Fts5Doclists } from './fts5-doclists';

const WEIGHTS = [10, 4, 1];
const COLUMNS = ['label', 'summary', 'body'];

/** Every token's rows and weighted frequencies as FTS5's fts5vocab instance view reports them. */
function fromVocab(db: Database.Database): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const r of db.prepare('SELECT term, doc, col FROM temp.inst').iterate() as Iterable<{ term: string; doc: number; col: string }>) {
    let rows = out.get(r.term);
    if (!rows) out.set(r.term, (rows = new Map()));
    rows.set(r.doc, (rows.get(r.doc) ?? 0) + WEIGHTS[COLUMNS.indexOf(r.col)]);
  }
  return out;
}

function table(options: { pgsz?: number; automerge?: number; crisismerge?: number } = {}) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(label, summary, body, tokenize = 'porter unicode61 remove_diacritics 2');
           CREATE VIRTUAL TABLE temp.inst USING fts5vocab(main, t, 'instance');`);
  // the value inline: FTS5 takes only an integer, and a bound JS number is a REAL
  for (const [k, v] of Object.entries(options)) db.prepare(`INSERT INTO t(t, rank) VALUES (?, ${Math.trunc(v)})`).run(k);
  const rand = seededRandom(7);
  // Zipf-like: a few words in most rows, a long tail, and words long enough for multi-byte varints
  const vocab = Array.from({ length: 400 }, (_, i) => ['the', 'of', 'engine', 'running', 'ada', 'résumé', 'x'.repeat(150)][i] ?? `w${i.toString(36)}`);
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(1 / (rand() + 1 / vocab.length)) - 1)];
  const words = (max: number) => Array.from({ length: Math.floor(rand() * max) }, word).join(' ');
  const insert = db.prepare('INSERT INTO t(rowid, label, summary, body) VALUES (?, ?, ?, ?)');
  const row = (id: number) => insert.run(id, words(6), words(40), rand() < 0.3 ? words(400) : '');
  return { db, rand, row };
}

function expectSameLists(db: Database.Database, upTo = Number.MAX_SAFE_INTEGER) {
  const reader = new Fts5Doclists(db, 't', WEIGHTS);
  const vocab = fromVocab(db);
  expect(vocab.size).toBeGreaterThan(50);
  for (const [term, rows] of vocab) {
    const got = reader.read(term, upTo);
    expect(got).not.toBeNull();
    const want = [...rows].filter(([id]) => id <= upTo).sort((a, b) => a[0] - b[0]);
    expect({ term, rows: got!.rows }).toEqual({ term, rows: rows.size });
    expect({ term, list: [...got!.list.ids.subarray(0, got!.list.n)].map((id, i) => [id, got!.list.wf[i]]) }).toEqual({ term, list: want });
  }
  expect(reader.read('absent', upTo)).toEqual({ list: { ids: new Uint32Array(0), wf: new Float32Array(0), n: 0 }, rows: 0 });
}

describe('Fts5Doclists', () => {
  it("reads every token's rows and weighted frequencies exactly as fts5vocab reports them, across many segments", () => {
    const { db, row } = table({ automerge: 0 });
    for (let batch = 0; batch < 12; batch++) db.transaction(() => Array.from({ length: 40 }, (_, i) => row(batch * 40 + i + 1)))();
    expect((db.prepare('SELECT count(*) FROM t_idx').pluck().get() as number) > 0).toBe(true);
    expectSameLists(db);
  });

  it('follows doclists over many small pages, with positions and rowids restarting on each page', () => {
    const { db, row } = table({ pgsz: 64 });
    db.transaction(() => Array.from({ length: 600 }, (_, i) => row(i * 3 + 1)))();
    expectSameLists(db);
    expectSameLists(db, 900);
  });

  it('lets newer segments override older ones: deletes, edits, rowids used again, merges and optimize', () => {
    const { db, rand, row } = table({ pgsz: 128, automerge: 2, crisismerge: 3 });
    const del = db.prepare('DELETE FROM t WHERE rowid = ?');
    const update = db.prepare('UPDATE t SET summary = ? WHERE rowid = ?');
    for (let i = 1; i <= 500; i++) row(i);
    for (let round = 0; round < 6; round++) {
      db.transaction(() => {
        for (let i = 0; i < 40; i++) del.run(1 + Math.floor(rand() * 500));
        for (let i = 0; i < 40; i++) update.run(`the engine ${round} running`, 1 + Math.floor(rand() * 500));
      })();
      // rowids handed out again after their rows went
      for (let i = 0; i < 20; i++) {
        const id = 1 + Math.floor(rand() * 500);
        del.run(id);
        row(id);
      }
      expectSameLists(db);
    }
    db.prepare("INSERT INTO t(t, rank) VALUES ('merge', 50)").run();
    expectSameLists(db);
    db.exec("INSERT INTO t(t) VALUES ('optimize')");
    expectSameLists(db);
  });

  it('answers null for a contentless_delete table, whose tombstones it does not read', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(label, summary, body, content = '', contentless_delete = 1)`);
    db.prepare('INSERT INTO t(rowid, label, summary, body) VALUES (1, ?, ?, ?)').run('a b', 'c', '');
    expect(new Fts5Doclists(db, 't', WEIGHTS).read('a', 10)).toBeNull();
  });
});
