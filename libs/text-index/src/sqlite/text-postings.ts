import type { Database, Statement } from 'better-sqlite3';
import { porterStem } from '../analysis/porter-stemmer';
import { BM25_COLUMN_WEIGHTS, fts5Bm25 } from './fts5-bm25';

/**
 * Postings of our own beside FTS5, so a query can stop early (FTS5's bm25() scores every row
 * matching any term). One row per (term, bucket): a bucket is an aligned range of 2^BUCKET_BITS
 * row ids, so the buckets of every term line up and a query reads them bucket by bucket, best
 * bound first. Each row keeps the bucket's postings (packed, in no particular order) and a
 * bound: the largest part of bm25 (before the IDF) any of them takes at a reference average
 * row length `a0`. A posting's part f·(k1+1)/(f + k1·(1−b) + k1·b·D/A) grows with A, at most
 * in proportion (for A ≥ a0 it is at most A/a0 times its value at a0; for A < a0 smaller), so
 * `max_part · max(1, A/a0)` bounds every posting of the bucket whatever avgdl A the query sees:
 * bounds stay valid whatever the write history. Appending under another a0 converts the old
 * bound the same way.
 */
export const BUCKET_BITS = 7;
const BUCKET_IDS = 1 << BUCKET_BITS;
/** bytes per posting: u16 id within the bucket, u32 weighted frequency, u32 row tokens */
const RECORD = 10;

export const postingsTable = (name: string) => `text_post_${name}`;

export const postingsDdl = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${postingsTable(name)} (
     term    TEXT NOT NULL,
     bucket  INTEGER NOT NULL,
     n        INTEGER NOT NULL,
     max_part REAL NOT NULL,
     a0       REAL NOT NULL,
     data    BLOB NOT NULL,
     PRIMARY KEY (term, bucket)
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

interface PostingStatements {
  append: Statement<[string, number, number, number, number, Buffer]>;
  read: Statement<[string, number], { n: number; a0: number; data: Buffer }>;
  write: Statement<[number, number, Buffer, string, number]>;
  drop: Statement<[string, number]>;
  meta: Statement<[string], [number, number, number, number]>;
  data: Statement<[string, number], Buffer>;
}

/**
 * Reads and writes one database's postings. Writes inside a transaction are kept in memory and
 * written once per unit of work (`flush`, before the commit): a bucket row is rewritten once
 * per unit instead of once per row. A rollback must not leave them to a later flush: the first
 * buffered write puts a marker row in a temp table (rolled back with the transaction), and a
 * buffer whose marker is gone is dropped.
 */
export class Postings {
  private readonly stmts = new Map<string, PostingStatements>();
  private pending = new Map<string, PendingPosting[]>();
  private marker = 0;
  private readonly putMarker: Statement<[number]>;
  private readonly hasMarker: Statement<[number], number>;
  private readonly dropMarker: Statement<[number]>;

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
  }

  private statements(name: string): PostingStatements {
    let s = this.stmts.get(name);
    if (!s) {
      const p = postingsTable(name);
      s = {
        append: this.db.prepare(
          `INSERT INTO ${p} (term, bucket, n, max_part, a0, data) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (term, bucket) DO UPDATE SET n = n + excluded.n,
             max_part = max(max_part * max(1.0, excluded.a0 / a0), excluded.max_part), a0 = excluded.a0,
             data = CAST(data || excluded.data AS BLOB)`,
        ),
        read: this.db.prepare(`SELECT n, a0, data FROM ${p} WHERE term = ? AND bucket = ?`),
        write: this.db.prepare(`UPDATE ${p} SET n = ?, max_part = ?, data = ? WHERE term = ? AND bucket = ?`),
        drop: this.db.prepare(`DELETE FROM ${p} WHERE term = ? AND bucket = ?`),
        meta: this.db.prepare<[string], [number, number, number, number]>(`SELECT bucket, n, max_part, a0 FROM ${p} WHERE term = ?`).raw(),
        data: this.db.prepare<[string, number], Buffer>(`SELECT data FROM ${p} WHERE term = ? AND bucket = ?`).pluck(),
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
    const bucket = Math.floor(id / BUCKET_IDS);
    const off = id - bucket * BUCKET_IDS;
    for (const term of terms) {
      const row = s.read.get(term, bucket);
      if (!row) continue;
      const src = row.data;
      const keep: Buffer[] = [];
      let n = 0;
      let max = 0;
      for (let p = 0; p + RECORD <= src.length; p += RECORD) {
        if (src.readUInt16LE(p) === off) continue;
        keep.push(src.subarray(p, p + RECORD));
        n++;
        max = Math.max(max, bm25Part(src.readUInt32LE(p + 2), src.readUInt32LE(p + 6), row.a0));
      }
      if (n === row.n) continue;
      if (n === 0) s.drop.run(term, bucket);
      else s.write.run(n, max, Buffer.concat(keep), term, bucket);
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
    for (let i = 0; i < list.length; ) {
      const term = list[i].term;
      const bucket = Math.floor(list[i].id / BUCKET_IDS);
      let j = i;
      while (j < list.length && list[j].term === term && Math.floor(list[j].id / BUCKET_IDS) === bucket) j++;
      const buf = Buffer.allocUnsafe((j - i) * RECORD);
      let max = 0;
      for (let k = i; k < j; k++) {
        const p = (k - i) * RECORD;
        const x = list[k];
        buf.writeUInt16LE(x.id - bucket * BUCKET_IDS, p);
        buf.writeUInt32LE(x.wtf, p + 2);
        buf.writeUInt32LE(x.dl, p + 6);
        max = Math.max(max, bm25Part(x.wtf, x.dl, a0));
      }
      s.append.run(term, bucket, j - i, max, a0, buf);
      i = j;
    }
  }

  /** The term's buckets as (bucket, n, max_wtf, min_dl). */
  buckets(name: string, term: string): [number, number, number, number][] {
    return this.statements(name).meta.all(term);
  }

  bucketData(name: string, term: string, bucket: number): Buffer | undefined {
    return this.statements(name).data.get(term, bucket);
  }

  /** Every posting of the table, for `projections verify` (term, id, wtf, dl). */
  static *decode(db: Database, name: string): Iterable<[string, number, number, number]> {
    for (const [term, bucket, data] of db.prepare(`SELECT term, bucket, data FROM ${postingsTable(name)}`).raw().iterate() as Iterable<[string, number, Buffer]>) {
      for (let p = 0; p + RECORD <= data.length; p += RECORD) yield [term, bucket * BUCKET_IDS + data.readUInt16LE(p), data.readUInt32LE(p + 2), data.readUInt32LE(p + 6)];
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

/** A posting's part of bm25 before the IDF, at average row length `avgdl` (fts5Bm25's arithmetic). */
export function bm25Part(wtf: number, dl: number, avgdl: number): number {
  return -fts5Bm25([1], [wtf], dl, avgdl);
}

/** SQLite's BINARY order of two strings (UTF-8 bytes), as `ORDER BY uid` compares them. */
function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order equals UTF-8 byte order unless a surrogate meets a code unit ≥ U+E000
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The first `limit` rows of (bm25 rank, salience desc, uid) over rows matching any phrase,
 * as FTS5's `ORDER BY bm25(...), salience DESC, uid LIMIT n` returns them, without scoring
 * every match. Buckets are read best bound first, stopping once no unread one can reach the
 * page's last score; inside a bucket, MaxScore: the tokens whose bounds together stay under
 * that score cannot put a row on the page alone, so only rows holding another token are
 * candidates, and the others' postings are read only for a candidate that could still reach
 * the page. A bound that only equals the page's last score is never pruned (salience or uid
 * may put a tied row ahead), and every bound carries a relative slack of 1e-9 against
 * rounding. Scores are fts5Bm25's, the C code's arithmetic in phrase order. Null when the
 * postings do not hold exactly FTS5's rows for a token (a row count differing from FTS5's
 * document frequency): the caller asks FTS5.
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
  // Σ of the IDFs of the phrases made of each token (a token repeated in the query counts twice)
  const idfSum = tokens.map((_, t) => phrases.reduce((a, p, i) => (tokenOf[i] === t ? a + p.idf : a), 0));
  const bound = new Map<number, number>();
  /** per bucket: the bound of each token's part there (0: absent) */
  const parts = new Map<number, Float64Array>();
  const tokenBound = new Float64Array(tokens.length);
  for (let t = 0; t < tokens.length; t++) {
    const metas = postings.buckets(name, tokens[t]);
    let n = 0;
    for (const m of metas) n += m[1];
    const df = phrases[tokenOf.indexOf(t)].df;
    if (n !== df) return null;
    for (const [bucket, , maxPart, a0] of metas) {
      const b = idfSum[t] * maxPart * Math.max(1, avgdl / a0);
      bound.set(bucket, (bound.get(bucket) ?? 0) + b);
      let ps = parts.get(bucket);
      if (!ps) parts.set(bucket, (ps = new Float64Array(tokens.length)));
      ps[t] = b;
      if (b > tokenBound[t]) tokenBound[t] = b;
    }
  }
  const order = [...bound.keys()].sort((a, b) => bound.get(b)! - bound.get(a)! || a - b);
  const byBound = tokens.map((_, t) => t).sort((a, b) => tokenBound[a] - tokenBound[b]);
  const idf = phrases.map((p) => p.idf);
  const freqs = new Float64Array(tokens.length * BUCKET_IDS);
  const dl = new Int32Array(BUCKET_IDS);
  const candidate = new Uint8Array(BUCKET_IDS);
  const essential = new Uint8Array(tokens.length);
  const top: { id: number; uid: string; rank: number; salience: number }[] = [];
  const cmp = (a: { rank: number; salience: number; uid: string }, b: { rank: number; salience: number; uid: string }) =>
    a.rank - b.rank || (byUidOnly ? 0 : b.salience - a.salience) || compareBinary(a.uid, b.uid);
  const f = new Array<number>(phrases.length);
  const read = (bucket: number, t: number, mark: boolean) => {
    const data = postings.bucketData(name, tokens[t], bucket);
    if (!data) return;
    for (let p = 0; p + RECORD <= data.length; p += RECORD) {
      const off = data.readUInt16LE(p);
      freqs[t * BUCKET_IDS + off] = data.readUInt32LE(p + 2);
      dl[off] = data.readUInt32LE(p + 6);
      if (mark) candidate[off] = 1;
    }
  };
  for (const bucket of order) {
    // the page's last score, positive; -Infinity while the page is not full
    const floor = top.length >= limit ? -top[limit - 1].rank : -Infinity;
    if (bound.get(bucket)! * (1 + BOUND_SLACK) < floor) break;
    const ps = parts.get(bucket)!;
    // tokens that together cannot reach the page: a row holding only them is no candidate
    let below = 0;
    for (const t of byBound) {
      below += tokenBound[t];
      essential[t] = below * (1 + BOUND_SLACK) < floor ? 0 : 1;
    }
    let any = false;
    for (let t = 0; t < tokens.length; t++) if (essential[t] && ps[t] > 0) any = true;
    if (!any) continue;
    freqs.fill(0);
    candidate.fill(0);
    for (let t = 0; t < tokens.length; t++) if (essential[t] && ps[t] > 0) read(bucket, t, true);
    let others = 0;
    for (let t = 0; t < tokens.length; t++) if (!essential[t]) others += ps[t];
    let othersRead = others === 0;
    const cands: { off: number; rank: number }[] = [];
    for (let off = 0; off < BUCKET_IDS; off++) {
      if (!candidate[off]) continue;
      if (!othersRead) {
        // what the row's essential tokens give, plus the bucket's bound of every other token
        let partial = 0;
        for (let t = 0; t < tokens.length; t++) if (essential[t] && freqs[t * BUCKET_IDS + off]) partial += idfSum[t] * bm25Part(freqs[t * BUCKET_IDS + off], dl[off], avgdl);
        if ((partial + others) * (1 + BOUND_SLACK) < floor) continue;
        for (let t = 0; t < tokens.length; t++) if (!essential[t] && ps[t] > 0) read(bucket, t, false);
        othersRead = true;
      }
      for (let i = 0; i < phrases.length; i++) f[i] = freqs[tokenOf[i] * BUCKET_IDS + off];
      const rank = fts5Bm25(idf, f, dl[off], avgdl);
      if (-rank >= floor) cands.push({ off, rank });
    }
    cands.sort((a, b) => a.rank - b.rank);
    for (const c of cands) {
      if (top.length >= limit && c.rank > top[limit - 1].rank) break;
      const id = bucket * BUCKET_IDS + c.off;
      const row = facts(id);
      if (!row || !accept(row)) continue;
      const hit = { id, uid: row.uid, rank: c.rank, salience: row.salience };
      if (top.length >= limit && cmp(hit, top[limit - 1]) >= 0) continue;
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cmp(top[mid], hit) <= 0) lo = mid + 1;
        else hi = mid;
      }
      top.splice(lo, 0, hit);
      if (top.length > limit) top.pop();
    }
  }
  return top.map(({ id, uid, rank }) => ({ id, uid, rank }));
}
