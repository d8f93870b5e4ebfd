import type { Database, Statement } from 'better-sqlite3';
import { porterStem } from '../analysis/porter-stemmer';
import { BM25_COLUMN_WEIGHTS, fts5Bm25 } from './fts5-bm25';

/**
 * Postings of our own beside FTS5, so a query can stop early (FTS5's bm25() scores every row
 * matching any term). Each term's postings are cut in blocks of about BLOCK postings, in row id
 * order: row (term, blk) holds the postings with ids up to `last_id` above the previous
 * block's, packed (id, weighted frequency, row tokens) in no particular order, and a bound: the
 * largest part of bm25 (before the IDF) any of them takes at a reference average row length
 * `a0`. A posting's part f·(k1+1)/(f + k1·(1−b) + k1·b·D/A) grows with A, at most in
 * proportion (for A ≥ a0 it is at most A/a0 times its value at a0; for A < a0 smaller), so
 * `max_part · max(1, A/a0)` bounds every posting of the block whatever avgdl A the query sees:
 * bounds stay valid whatever the write history. Appending under another a0 converts the old
 * bound the same way. A rare term has few blocks, so a query reads it whole and looks the
 * frequent terms up only for its rows (MaxScore, `topByPostings`).
 */
export const BLOCK = 64;
/** bytes per posting: u32 row id, u32 weighted frequency, u32 row tokens (64 fit a page's row) */
const RECORD = 12;

export const postingsTable = (name: string) => `text_post_${name}`;

export const postingsDdl = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${postingsTable(name)} (
     term     TEXT NOT NULL,
     blk      INTEGER NOT NULL,
     last_id  INTEGER NOT NULL,
     n        INTEGER NOT NULL,
     max_part REAL NOT NULL,
     a0       REAL NOT NULL,
     data     BLOB NOT NULL,
     PRIMARY KEY (term, blk)
   ) WITHOUT ROWID;`;

const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;
/**
 * Runs of characters FTS5's unicode61 may keep in a token. A run is handed to FTS5 whole (see
 * `DocAnalyzer`), which splits it further where it would; a run FTS5 would join to its
 * neighbour shows as a token count unlike FTS5's own, and the row is then tokenized by FTS5.
 */
const RUN_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const RUN_CACHE = 200_000;
const ASCII_RUN_RE = /^[A-Za-z0-9]+$/;
/**
 * Words our Porter stemmer stems exactly as FTS5's does: every word of 1–4 letters was checked
 * against FTS5 (476,254: all differ only where listed below), and every word of the mail corpus
 * (211,271 forms) and 251,137 generated ones, which differed only on "yy" runs. FTS5 leaves
 * tokens over 64 bytes unstemmed, and a run of digits has no suffix to strip. Anything else is
 * tokenized by FTS5 itself (and a stem that still differed would show as a posting count unlike
 * FTS5's document frequency, which sends queries on that token to FTS5).
 */
const PORTER_SAFE_RE = /^[a-z]{1,64}$/;
const PORTER_UNSAFE = new Set(['eed', 'ies', 'eeds', 'sses']);
const DIGITS_RE = /^[0-9]+$/;

/** A row's analysis: weighted frequency per token, token count per column. */
export interface RowTerms {
  wtf: Map<string, number>;
  sizes: number[];
}

/**
 * FTS5's own tokens for a row's columns, without a scratch insert per row: text is cut into
 * runs, and each distinct run is tokenized once by FTS5 itself (a scratch table with the same
 * tokenizer) and remembered. The result is checked against the token counts FTS5 stored for
 * the row (`_docsize`); on any difference the row is tokenized by FTS5 column by column.
 */
export class DocAnalyzer {
  private readonly runs = new Map<string, string[]>();
  private readonly insert: Statement<[string]>;
  private readonly tokens: Statement<[], string>;
  private readonly clear: Statement<[]>;

  constructor(db: Database) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_runs USING fts5(x, ${TOKENIZE});
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_runs_inst USING fts5vocab(temp, text_runs, 'instance');`);
    this.insert = db.prepare('INSERT INTO temp.text_runs (rowid, x) VALUES (1, ?)');
    this.tokens = db.prepare<[], string>('SELECT term FROM temp.text_runs_inst ORDER BY "offset"').pluck();
    this.clear = db.prepare('DELETE FROM temp.text_runs');
  }

  private ftsTokens(text: string): string[] {
    this.insert.run(text);
    const out = this.tokens.all();
    this.clear.run();
    return out;
  }

  private runTokens(run: string): string[] {
    // unicode61 folds ASCII case as toLowerCase does: one entry for "The" and "the"
    const key = ASCII_RUN_RE.test(run) ? run.toLowerCase() : run;
    let t = this.runs.get(key);
    if (!t) {
      if (DIGITS_RE.test(key)) t = [key];
      else if (PORTER_SAFE_RE.test(key) && !key.includes('yy') && !PORTER_UNSAFE.has(key)) t = [porterStem(key)];
      else t = this.ftsTokens(key);
      if (this.runs.size >= RUN_CACHE) this.runs.clear();
      this.runs.set(key, t);
    }
    return t;
  }

  /** `stored`: FTS5's token count per column for the row, when known (checked against). */
  analyze(columns: readonly string[], stored?: readonly number[]): RowTerms {
    const fast = this.collect(columns, (text, add) => {
      for (const m of text.matchAll(RUN_RE)) for (const tok of this.runTokens(m[0])) add(tok);
    });
    if (!stored || stored.every((n, i) => n === fast.sizes[i])) return fast;
    return this.collect(columns, (text, add) => {
      for (const tok of this.ftsTokens(text)) add(tok);
    });
  }

  private collect(columns: readonly string[], each: (text: string, add: (tok: string) => void) => void): RowTerms {
    const wtf = new Map<string, number>();
    const sizes: number[] = [];
    columns.forEach((text, c) => {
      const w = c < BM25_COLUMN_WEIGHTS.length ? BM25_COLUMN_WEIGHTS[c] : 1;
      let n = 0;
      if (text)
        each(text, (tok) => {
          n++;
          wtf.set(tok, (wtf.get(tok) ?? 0) + w);
        });
      sizes.push(n);
    });
    return { wtf, sizes };
  }
}

interface PendingPosting {
  term: string;
  id: number;
  wtf: number;
  dl: number;
}

interface BlockRow {
  blk: number;
  last_id: number;
  n: number;
  a0: number;
}

/**
 * A term's block directory as read for queries, and the blocks decoded so far: kept between
 * queries (the words of questions recur: "the", "you", "is" are in most of them), dropped for a
 * term whenever this handle writes its postings, and all at once when another connection
 * commits or the schema changes (`sync`). Queries never read inside a transaction, so what is
 * kept is always committed.
 */
export interface TermDirectory {
  blk: Int32Array;
  last: Int32Array;
  maxPart: Float64Array;
  a0: Float64Array;
  /** postings over every block */
  n: number;
  decoded: Map<number, Decoded>;
}

/** Postings (decoded, plus two per directory entry) kept for queries at most, over every term. */
const CACHED_POSTINGS = 2_000_000;

interface PostingStatements {
  lastBlock: Statement<[string], BlockRow>;
  blockFor: Statement<[string, number], BlockRow>;
  read: Statement<[string, number], { n: number; a0: number; data: Buffer }>;
  append: Statement<[number, number, number, number, number, Buffer, string, number]>;
  insert: Statement<[string, number, number, number, number, number, Buffer]>;
  write: Statement<[number, number, Buffer, string, number]>;
  drop: Statement<[string, number]>;
  meta: Statement<[string], [number, number, number, number, number]>;
  data: Statement<[string, number], Buffer>;
}

/** What a kept directory counts against CACHED_POSTINGS. */
function cost(d: TermDirectory): number {
  let n = 2 * d.blk.length;
  for (const b of d.decoded.values()) n += b.ids.length;
  return n;
}

/** A posting's part of bm25 before the IDF, at average row length `avgdl` (fts5Bm25's arithmetic). */
export function bm25Part(wtf: number, dl: number, avgdl: number): number {
  return -fts5Bm25([1], [wtf], dl, avgdl);
}

/**
 * Reads and writes one database's postings. Writes inside a transaction are kept in memory and
 * written once per unit of work (`flush`, before the commit): a term's last block is rewritten
 * once per unit instead of once per row. A rollback must not leave them to a later flush: the
 * first buffered write puts a marker row in a temp table (rolled back with the transaction),
 * and a buffer whose marker is gone is dropped.
 */
export class Postings {
  private readonly stmts = new Map<string, PostingStatements>();
  private pending = new Map<string, PendingPosting[]>();
  private marker = 0;
  private readonly putMarker: Statement<[number]>;
  private readonly hasMarker: Statement<[number], number>;
  private readonly dropMarker: Statement<[number]>;
  /** by `name\0term`, least recently used first */
  private readonly dirs = new Map<string, TermDirectory>();
  private cachedPostings = 0;
  private stamp: unknown;

  /** `referenceLength(name)`: an average row length to compute new bounds at (any positive one is valid) */
  constructor(
    private readonly db: Database,
    private readonly referenceLength: (name: string) => number,
  ) {
    db.exec('CREATE TABLE IF NOT EXISTS temp.text_post_pending (k INTEGER PRIMARY KEY)');
    this.putMarker = db.prepare('INSERT INTO temp.text_post_pending (k) VALUES (?)');
    this.hasMarker = db.prepare<[number], number>('SELECT 1 FROM temp.text_post_pending WHERE k = ?').pluck();
    this.dropMarker = db.prepare('DELETE FROM temp.text_post_pending WHERE k = ?');
  }

  /** Whether postings wait for `flush` (their rows are in FTS5 already, not in the tables). */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  forget(name: string): void {
    this.stmts.delete(name);
    this.pending.delete(name);
    for (const key of this.dirs.keys()) if (key.startsWith(`${name}\0`)) this.dropDirectory(key);
  }

  /**
   * Drops every kept directory when `stamp` (the caller's mark of the database's state: another
   * connection's commits, the schema) differs from the last one seen.
   */
  sync(stamp: unknown): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.dirs.clear();
    this.cachedPostings = 0;
  }

  private dropDirectory(key: string): void {
    const d = this.dirs.get(key);
    if (!d) return;
    this.dirs.delete(key);
    this.cachedPostings -= cost(d);
  }

  /** The term's block directory (kept between queries; see `TermDirectory`). */
  directory(name: string, term: string): TermDirectory {
    const key = `${name}\0${term}`;
    let d = this.dirs.get(key);
    if (d) {
      this.dirs.delete(key); // most recently used last
      this.dirs.set(key, d);
      return d;
    }
    const metas = this.statements(name).meta.all(term);
    let n = 0;
    for (const m of metas) n += m[2];
    d = {
      blk: Int32Array.from(metas, (m) => m[0]),
      last: Int32Array.from(metas, (m) => m[1]),
      maxPart: Float64Array.from(metas, (m) => m[3]),
      a0: Float64Array.from(metas, (m) => m[4]),
      n,
      decoded: new Map(),
    };
    this.dirs.set(key, d);
    this.cachedPostings += cost(d);
    this.evict();
    return d;
  }

  /** Block `i` of a directory from `directory`, decoded (kept with it). */
  block(name: string, term: string, d: TermDirectory, i: number): Decoded {
    let b = d.decoded.get(i);
    if (!b) {
      b = decodeBlock(this.statements(name).data.get(term, d.blk[i]) ?? Buffer.alloc(0));
      d.decoded.set(i, b);
      // a directory evicted meanwhile is no longer counted
      if (this.dirs.get(`${name}\0${term}`) === d) {
        this.cachedPostings += b.ids.length;
        this.evict();
      }
    }
    return b;
  }

  private evict(): void {
    // the newest directory stays, whatever its size: the query at hand is using it
    while (this.cachedPostings > CACHED_POSTINGS && this.dirs.size > 1) this.dropDirectory(this.dirs.keys().next().value!);
  }

  private statements(name: string): PostingStatements {
    let s = this.stmts.get(name);
    if (!s) {
      const p = postingsTable(name);
      s = {
        lastBlock: this.db.prepare(`SELECT blk, last_id, n, a0 FROM ${p} WHERE term = ? ORDER BY blk DESC LIMIT 1`),
        blockFor: this.db.prepare(`SELECT blk, last_id, n, a0 FROM ${p} WHERE term = ? AND last_id >= ? ORDER BY blk LIMIT 1`),
        read: this.db.prepare(`SELECT n, a0, data FROM ${p} WHERE term = ? AND blk = ?`),
        append: this.db.prepare(
          `UPDATE ${p} SET n = n + ?, last_id = max(last_id, ?), max_part = max(max_part * max(1.0, ? / a0), ?), a0 = ?,
             data = CAST(data || ? AS BLOB) WHERE term = ? AND blk = ?`,
        ),
        insert: this.db.prepare(`INSERT INTO ${p} (term, blk, last_id, n, max_part, a0, data) VALUES (?, ?, ?, ?, ?, ?, ?)`),
        write: this.db.prepare(`UPDATE ${p} SET n = ?, max_part = ?, data = ? WHERE term = ? AND blk = ?`),
        drop: this.db.prepare(`DELETE FROM ${p} WHERE term = ? AND blk = ?`),
        meta: this.db.prepare<[string], [number, number, number, number, number]>(`SELECT blk, last_id, n, max_part, a0 FROM ${p} WHERE term = ? ORDER BY blk`).raw(),
        data: this.db.prepare<[string, number], Buffer>(`SELECT data FROM ${p} WHERE term = ? AND blk = ?`).pluck(),
      };
      this.stmts.set(name, s);
    }
    return s;
  }

  /** Adds row `id`'s postings (its terms must not be indexed for it already). */
  add(name: string, id: number, row: RowTerms): void {
    const dl = row.sizes.reduce((a, b) => a + b, 0);
    if (!this.db.inTransaction) {
      const list: PendingPosting[] = [];
      for (const [term, wtf] of row.wtf) list.push({ term, id, wtf, dl });
      this.write(name, list);
      return;
    }
    this.ensureMarker();
    let list = this.pending.get(name);
    if (!list) this.pending.set(name, (list = []));
    for (const [term, wtf] of row.wtf) list.push({ term, id, wtf, dl });
  }

  /** Takes row `id`'s postings for `terms` out (the row's text as it was indexed). */
  remove(name: string, id: number, terms: Iterable<string>): void {
    // buffered postings may hold the row: write them first, then edit the tables
    if (this.pending.size) this.flush();
    const s = this.statements(name);
    for (const term of terms) {
      this.dropDirectory(`${name}\0${term}`);
      const at = s.blockFor.get(term, id);
      if (!at) continue;
      const row = s.read.get(term, at.blk)!;
      const src = row.data;
      const keep: Buffer[] = [];
      let n = 0;
      let max = 0;
      for (let p = 0; p + RECORD <= src.length; p += RECORD) {
        if (src.readUInt32LE(p) === id) continue;
        keep.push(src.subarray(p, p + RECORD));
        n++;
        max = Math.max(max, bm25Part(src.readUInt32LE(p + 4), src.readUInt32LE(p + 8), row.a0));
      }
      if (n === row.n) continue;
      if (n === 0) s.drop.run(term, at.blk);
      else s.write.run(n, max, Buffer.concat(keep), term, at.blk);
    }
  }

  /** Writes buffered postings (called before each commit); drops those of a rolled-back unit. */
  flush(): void {
    if (!this.pending.size) return;
    const pending = this.pending;
    this.pending = new Map();
    if (!this.db.inTransaction || this.hasMarker.get(this.marker) === undefined) return;
    this.dropMarker.run(this.marker);
    for (const [name, list] of pending) this.write(name, list);
  }

  private ensureMarker(): void {
    if (this.pending.size && this.hasMarker.get(this.marker) !== undefined) return;
    // nothing buffered, or a buffer whose transaction was rolled back: start anew
    this.pending = new Map();
    this.putMarker.run(++this.marker);
  }

  private write(name: string, list: PendingPosting[]): void {
    if (!list.length) return;
    const s = this.statements(name);
    let a0 = this.referenceLength(name);
    if (!(a0 > 0)) a0 = Math.max(1, list.reduce((sum, x) => sum + x.dl, 0) / list.length);
    list.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.id - b.id));
    const pack = (xs: PendingPosting[]): [Buffer, number, number] => {
      const buf = Buffer.allocUnsafe(xs.length * RECORD);
      let max = 0;
      let last = 0;
      xs.forEach((x, k) => {
        buf.writeUInt32LE(x.id, k * RECORD);
        buf.writeUInt32LE(x.wtf, k * RECORD + 4);
        buf.writeUInt32LE(x.dl, k * RECORD + 8);
        max = Math.max(max, bm25Part(x.wtf, x.dl, a0));
        last = Math.max(last, x.id);
      });
      return [buf, max, last];
    };
    for (let i = 0; i < list.length; ) {
      const term = list[i].term;
      let j = i;
      while (j < list.length && list[j].term === term) j++;
      const group = list.slice(i, j);
      i = j;
      this.dropDirectory(`${name}\0${term}`);
      let tail = s.lastBlock.get(term);
      // rows inside the indexed range (a re-indexed row): into the block whose range holds them
      let k = 0;
      if (tail) {
        while (k < group.length && group[k].id <= tail.last_id) {
          const at = s.blockFor.get(term, group[k].id)!;
          const [buf, max, last] = pack([group[k]]);
          s.append.run(1, last, a0, max, a0, buf, term, at.blk);
          k++;
        }
      }
      // new rows: fill the last block, then new ones
      while (k < group.length) {
        if (tail && tail.n < BLOCK) {
          const take = group.slice(k, k + BLOCK - tail.n);
          const [buf, max, last] = pack(take);
          s.append.run(take.length, last, a0, max, a0, buf, term, tail.blk);
          tail = { ...tail, n: tail.n + take.length, last_id: last };
          k += take.length;
        } else {
          const take = group.slice(k, k + BLOCK);
          const [buf, max, last] = pack(take);
          const blk = tail ? tail.blk + 1 : 0;
          s.insert.run(term, blk, last, take.length, max, a0, buf);
          tail = { blk, last_id: last, n: take.length, a0 };
          k += take.length;
        }
      }
    }
  }


  /** Every posting of the table, for `projections verify` (term, id, wtf, dl). */
  static *decode(db: Database, name: string): Iterable<[string, number, number, number]> {
    for (const [term, data] of db.prepare(`SELECT term, data FROM ${postingsTable(name)}`).raw().iterate() as Iterable<[string, Buffer]>) {
      for (let p = 0; p + RECORD <= data.length; p += RECORD) yield [term, data.readUInt32LE(p), data.readUInt32LE(p + 4), data.readUInt32LE(p + 8)];
    }
  }
}

/** A candidate row as the ranking statements return it (rank: bm25(), negative). */
export interface PostingHit {
  id: number;
  uid: string;
  rank: number;
}

/** One scored phrase of the query, in MATCH order: its FTS5 token, IDF and row count. */
export interface PostingPhrase {
  token: string;
  idf: number;
  df: number;
}

export interface RowFacts {
  uid: string;
  salience: number;
  node_type: string;
  layer: string;
}

const BOUND_SLACK = 1e-9;

/** SQLite's BINARY order of two strings (UTF-8 bytes), as `ORDER BY uid` compares them. */
function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A decoded block: ids ascending, with their weighted frequencies and row lengths. */
export interface Decoded {
  ids: Int32Array;
  wtf: Int32Array;
  dl: Int32Array;
}

function decodeBlock(data: Buffer): Decoded {
  const n = Math.floor(data.length / RECORD);
  const out = { ids: new Int32Array(n), wtf: new Int32Array(n), dl: new Int32Array(n) };
  let sorted = true;
  for (let k = 0; k < n; k++) {
    out.ids[k] = data.readUInt32LE(k * RECORD);
    out.wtf[k] = data.readUInt32LE(k * RECORD + 4);
    out.dl[k] = data.readUInt32LE(k * RECORD + 8);
    if (k && out.ids[k] < out.ids[k - 1]) sorted = false;
  }
  if (sorted) return out;
  // a re-indexed row was appended out of order
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => out.ids[a] - out.ids[b]);
  return { ids: Int32Array.from(order, (k) => out.ids[k]), wtf: Int32Array.from(order, (k) => out.wtf[k]), dl: Int32Array.from(order, (k) => out.dl[k]) };
}

/** Index of the first element ≥ x in an ascending array (its length when none). */
function lowerBound(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first `limit` rows of (bm25 rank, salience desc, uid) over rows matching any phrase,
 * as FTS5's `ORDER BY bm25(...), salience DESC, uid LIMIT n` returns them, without scoring
 * every match: block-max MaxScore. Tokens are visited from the highest bound down, each one's
 * blocks best bound first; a block is read only if a row in it could reach the page's last
 * score (its bound plus every other token's), and once the tokens left below together cannot
 * reach it, their blocks are never walked: they are only looked up for a candidate row, and
 * only while the candidate's known parts plus the others' block bounds could still reach the
 * page. A bound that only equals the page's last score is never pruned (salience or uid may put
 * a tied row ahead), and every bound carries a relative slack of 1e-9 against rounding. Scores
 * are fts5Bm25's, the C code's arithmetic in phrase order. Null when the postings do not hold
 * exactly FTS5's rows for a token (a row count differing from FTS5's document frequency): the
 * caller asks FTS5.
 */
export function topByPostings(
  postings: Postings,
  name: string,
  phrases: readonly PostingPhrase[],
  avgdl: number,
  limit: number,
  facts: (id: number) => RowFacts | undefined,
  accept: (row: RowFacts) => boolean,
  byUidOnly: boolean,
): PostingHit[] | null {
  const tokens = [...new Set(phrases.map((p) => p.token))];
  const tokenOf = phrases.map((p) => tokens.indexOf(p.token));
  const T = tokens.length;
  // Σ of the IDFs of the phrases made of each token (a token repeated in the query counts twice)
  const idfSum = tokens.map((_, t) => phrases.reduce((a, p, i) => (tokenOf[i] === t ? a + p.idf : a), 0));
  const dir: { src: TermDirectory; last: Int32Array; bound: Float64Array }[] = [];
  const ub = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const src = postings.directory(name, tokens[t]);
    if (src.n !== phrases[tokenOf.indexOf(t)].df) return null;
    const bound = new Float64Array(src.blk.length);
    for (let i = 0; i < bound.length; i++) bound[i] = idfSum[t] * src.maxPart[i] * Math.max(1, avgdl / src.a0[i]);
    for (const b of bound) if (b > ub[t]) ub[t] = b;
    dir.push({ src, last: src.last, bound });
  }
  const block = (t: number, i: number): Decoded => postings.block(name, tokens[t], dir[t].src, i);
  /** the block of token t whose range holds `id` (−1: past its last) */
  const blockAt = (t: number, id: number) => {
    const i = lowerBound(dir[t].last, id);
    return i < dir[t].last.length ? i : -1;
  };

  const top: { id: number; uid: string; rank: number; salience: number }[] = [];
  const cmp = (a: { rank: number; salience: number; uid: string }, b: { rank: number; salience: number; uid: string }) =>
    a.rank - b.rank || (byUidOnly ? 0 : b.salience - a.salience) || compareBinary(a.uid, b.uid);
  const floor = () => (top.length >= limit ? -top[limit - 1].rank : -Infinity);
  const reaches = (bound: number) => bound * (1 + BOUND_SLACK) >= floor();
  const scored = new Set<number>();
  const idf = phrases.map((p) => p.idf);
  const f = new Array<number>(phrases.length);
  const wtf = new Float64Array(T);
  let dl = 0;
  const byUb = tokens.map((_, t) => t).sort((a, b) => ub[b] - ub[a] || a - b);
  const ubTotal = byUb.reduce((a, t) => a + ub[t], 0);

  const bounds = new Float64Array(T);
  const consider = (id: number, from: number, fromWtf: number, fromDl: number) => {
    if (scored.has(id)) return;
    wtf.fill(0);
    wtf[from] = fromWtf;
    dl = fromDl;
    let known = idfSum[from] * bm25Part(fromWtf, fromDl, avgdl);
    // the others' block bounds at this row, then each looked up while the row could still make the page
    let rest = 0;
    for (const t of byUb) {
      if (t === from) continue;
      const i = blockAt(t, id);
      bounds[t] = i < 0 ? 0 : dir[t].bound[i];
      rest += bounds[t];
    }
    for (const t of byUb) {
      if (t === from) continue;
      if (!reaches(known + rest)) return;
      rest -= bounds[t];
      if (bounds[t] === 0) continue;
      const d = block(t, blockAt(t, id));
      const k = lowerBound(d.ids, id);
      if (k < d.ids.length && d.ids[k] === id) {
        wtf[t] = d.wtf[k];
        known += idfSum[t] * bm25Part(d.wtf[k], dl, avgdl);
      }
    }
    if (!reaches(known)) return;
    scored.add(id);
    for (let i = 0; i < phrases.length; i++) f[i] = wtf[tokenOf[i]];
    const rank = fts5Bm25(idf, f, dl, avgdl);
    if (top.length >= limit && rank > top[limit - 1].rank) return;
    const row = facts(id);
    if (!row || !accept(row)) return;
    const hit = { id, uid: row.uid, rank, salience: row.salience };
    if (top.length >= limit && cmp(hit, top[limit - 1]) >= 0) return;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(top[mid], hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, hit);
    if (top.length > limit) top.pop();
  };

  // tokens from the highest bound (the rarest) down; `below`: Σ ub of the tokens after this one
  let below = ubTotal;
  for (const t of byUb) {
    below -= ub[t];
    // a row holding none of the tokens so far scores at most ub of the rest: done
    if (!reaches(ub[t] + below)) break;
    const others = ubTotal - ub[t];
    const order = Array.from(dir[t].bound.keys()).sort((a, b) => dir[t].bound[b] - dir[t].bound[a] || a - b);
    for (const i of order) {
      if (!reaches(dir[t].bound[i] + others)) break;
      const d = block(t, i);
      for (let k = 0; k < d.ids.length; k++) consider(d.ids[k], t, d.wtf[k], d.dl[k]);
    }
  }
  return top.map(({ id, uid, rank }) => ({ id, uid, rank }));
}
