import type { Database, Statement } from 'better-sqlite3';
import { porterStem } from '../analysis/porter-stemmer';
import { BM25_COLUMN_WEIGHTS, FTS5_BM25_B, FTS5_BM25_K1, fts5Bm25 } from './fts5-bm25';
import { grownArray } from './grown-array';

/**
 * Postings of our own beside FTS5, so a query can stop early (FTS5's bm25() scores every row
 * matching any term). Written as FTS5 writes its own: each unit of work appends one segment
 * (every term's postings of the rows it indexed, all under one new segment number, so the
 * writes land at the end of the table), and segments are merged LSM style (`Postings.flush`).
 * A row's postings all live in one segment, and segments hold disjoint ranges of row ids (a
 * re-indexed row gets a new id, above every other). Within a segment each term's postings are
 * cut in blocks of up to BLOCK, in row id order: row (seg, term, blk) holds ids up to `last_id`
 * above the previous block's, packed (id, weighted frequency, row tokens), and a bound: the
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
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const swap32 = (x: number) => (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;

/**
 * Named as FTS5's shadow tables are (`text_fts_<name>_*`): like them, a layout that depends on
 * write history (which rows shared a unit of work, when segments merged), compared through its
 * postings by uid (`Postings.decode`), never row by row.
 */
export const postingsTable = (name: string) => `text_fts_${name}_post`;
export const segmentsTable = (name: string) => `text_fts_${name}_segs`;
/** The layout before segments (one row per term block, rewritten in place): dropped where found. */
export const oldPostingsTable = (name: string) => `text_post_${name}`;

export const postingsDdl = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${postingsTable(name)} (
     seg      INTEGER NOT NULL,
     term     TEXT NOT NULL,
     blk      INTEGER NOT NULL,
     last_id  INTEGER NOT NULL,
     n        INTEGER NOT NULL,
     max_part REAL NOT NULL,
     a0       REAL NOT NULL,
     data     BLOB NOT NULL,
     PRIMARY KEY (seg, term, blk)
   ) WITHOUT ROWID;
   CREATE TABLE IF NOT EXISTS ${segmentsTable(name)} (
     seg      INTEGER PRIMARY KEY,
     first_id INTEGER NOT NULL,
     last_id  INTEGER NOT NULL,
     postings INTEGER NOT NULL
   );
   ${mergeDdl(name)}`;

const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;
/**
 * Runs of characters FTS5's unicode61 may keep in a token. A run is handed to FTS5 whole (see
 * `DocAnalyzer`), which splits it further where it would; a run FTS5 would join to its
 * neighbour shows as a token count unlike FTS5's own, and the row is then tokenized by FTS5.
 */
const RUN_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const RUN_CACHE = 200_000;
const ASCII_RUN_RE = /^[A-Za-z0-9]+$/;
const isAsciiAlnum = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
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
 * One FTS5 token as the analyzer hands it out: the same object for every occurrence while it is
 * cached, so a unit of work finds the token's postings list on it (`stamp`, `list`) instead of
 * looking the string up per occurrence.
 */
export class Token {
  /** the unit of work (and organization) `list` belongs to: `Pending.stamp` */
  stamp = 0;
  list: number[] = [];
  constructor(readonly term: string) {}
}

/** ASCII letter or digit: its lower case (letters carry bit 64, digits do not), else −1. */
const asciiLower = (c: number) => ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122) ? c | ((c & 64) >>> 1) : -1);
/** slots the ASCII run table starts with (a power of two; it doubles to stay at most half full) */
const MIN_SLOTS = 1 << 14;

/**
 * FTS5's own tokens for a row's columns, without a scratch insert per row: text is cut into
 * runs, and each distinct run is tokenized once (our Porter stemmer where it is FTS5's, else by
 * FTS5 itself in a scratch table with the same tokenizer) and remembered. The result is checked
 * against the token counts FTS5 stored for the row (`_docsize`); on any difference the row is
 * tokenized by FTS5 column by column.
 *
 * ASCII text, nearly every row, is cut and looked up in one pass over its characters: a run's
 * lower-case hash is computed as it is read and found in an open-addressing table by comparing
 * characters, so no substring is made for a run seen before (slicing and hashing a new string
 * per word was a third of the write cost of postings).
 */
export class DocAnalyzer {
  private readonly runs = new Map<string, Token[]>();
  private readonly terms = new Map<string, Token>();
  /**
   * Open addressing over the ASCII runs, interleaved (a slot's hash, then its entry + 1; 0: empty)
   * so a probe touches one cache line, and grown to stay at most half full: the write path is
   * bound by memory latency here, not by instructions.
   */
  private table: Int32Array = new Int32Array(2 * MIN_SLOTS);
  /** per entry: its lower-case bytes in `keys` (offset, length), its hash, its tokens */
  private keyAt: Int32Array = new Int32Array(1024);
  private keyLen: Int32Array = new Int32Array(1024);
  private keyHash: Int32Array = new Int32Array(1024);
  /** the run's token when it has exactly one (nearly every ASCII run), else undefined and `entryTokens` */
  private readonly entryToken: (Token | undefined)[] = [];
  private readonly entryTokens: (Token[] | undefined)[] = [];
  private keys: Uint8Array = new Uint8Array(1 << 16);
  private keysUsed = 0;
  private slots = 0;
  /** a column's text as bytes (UTF-8), read in the ASCII pass */
  private bytes = Buffer.allocUnsafe(1 << 12);
  private readonly insert: Statement<[string]>;
  private readonly tokens: Statement<[], string>;
  private readonly clear: Statement<[]>;
  /** the last `fill`'s tokens in order, and the column each one's column ends at */
  out: Token[] = [];
  readonly sizes = [0, 0, 0];

  constructor(db: Database) {
    // contentless, emptied with 'delete-all': a DELETE of a row FTS5 keeps the text of costs
    // ~350 µs inside a large write transaction
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_runs_v2 USING fts5(x, content = '', ${TOKENIZE});
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_runs_v2_inst USING fts5vocab(temp, text_runs_v2, 'instance');`);
    this.insert = db.prepare('INSERT INTO temp.text_runs_v2 (rowid, x) VALUES (1, ?)');
    this.tokens = db.prepare<[], string>('SELECT term FROM temp.text_runs_v2_inst ORDER BY "offset"').pluck();
    this.clear = db.prepare("INSERT INTO temp.text_runs_v2 (text_runs_v2) VALUES ('delete-all')");
  }

  private ftsTokens(text: string): Token[] {
    this.insert.run(text);
    const out = this.tokens.all();
    this.clear.run();
    return out.map((t) => this.token(t));
  }

  private token(term: string): Token {
    let t = this.terms.get(term);
    if (!t) this.terms.set(term, (t = new Token(term)));
    return t;
  }

  /** Forgets every run and token when the caches are full. */
  private room(): void {
    if (this.runs.size + this.slots < RUN_CACHE) return;
    this.runs.clear();
    this.terms.clear();
    this.table = new Int32Array(2 * MIN_SLOTS);
    this.entryToken.length = 0;
    this.entryTokens.length = 0;
    this.keysUsed = 0;
    this.slots = 0;
  }

  /** A run's tokens, `key` its case-folded form when the run is ASCII. */
  private analyzeRun(key: string): Token[] {
    if (DIGITS_RE.test(key)) return [this.token(key)];
    if (PORTER_SAFE_RE.test(key) && !key.includes('yy') && !PORTER_UNSAFE.has(key)) return [this.token(porterStem(key))];
    return this.ftsTokens(key);
  }

  /**
   * FTS5's tokens for a word of ASCII letters and digits (a query's term), from the same cache
   * as the rows' runs; null for any other text, which the caller hands to FTS5.
   */
  asciiTokens(word: string): string[] | null {
    return ASCII_RUN_RE.test(word) ? this.runTokens(word).map((t) => t.term) : null;
  }

  private runTokens(run: string): Token[] {
    // the run as written first (no case folding on a hit), then folded
    const seen = this.runs.get(run);
    if (seen) return seen;
    // unicode61 folds ASCII case as toLowerCase does: one entry for "The" and "the"
    const key = ASCII_RUN_RE.test(run) ? run.toLowerCase() : run;
    let t = this.runs.get(key);
    if (!t) {
      t = ASCII_RUN_RE.test(key) ? this.analyzeRun(key) : this.ftsTokens(key);
      this.room();
      this.runs.set(key, t);
    }
    if (key !== run) this.runs.set(run, t);
    return t;
  }

  /** The entry of the ASCII run `b[i, j)` whose lower-case hash is `h` (made when new). */
  private asciiRun(b: Uint8Array, i: number, j: number, h: number): number {
    const table = this.table;
    const mask = (table.length >>> 1) - 1;
    const len = j - i;
    const keys = this.keys;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = table[2 * s + 1] - 1;
      if (e < 0) break;
      if (table[2 * s] !== h || this.keyLen[e] !== len) continue;
      const at = this.keyAt[e];
      let k = 0;
      while (k < len && keys[at + k] === asciiLower(b[i + k])) k++;
      if (k === len) return e;
    }
    const key = this.bytes.toString('latin1', i, j).toLowerCase();
    const t = this.analyzeRun(key);
    this.room();
    const e = this.entryToken.length;
    if (e >= this.keyAt.length) {
      this.keyAt = grownArray(this.keyAt, 2 * e);
      this.keyLen = grownArray(this.keyLen, 2 * e);
      this.keyHash = grownArray(this.keyHash, 2 * e);
    }
    if (this.keysUsed + len > this.keys.length) {
      const more = new Uint8Array(Math.max(2 * this.keys.length, this.keysUsed + len));
      more.set(this.keys.subarray(0, this.keysUsed));
      this.keys = more;
    }
    for (let k = 0; k < len; k++) this.keys[this.keysUsed + k] = asciiLower(b[i + k]);
    this.keyAt[e] = this.keysUsed;
    this.keyLen[e] = len;
    this.keyHash[e] = h;
    this.keysUsed += len;
    this.entryToken.push(t.length === 1 ? t[0] : undefined);
    this.entryTokens.push(t.length === 1 ? undefined : t);
    this.slots++;
    if (2 * this.slots > this.table.length >>> 1) this.rehash(this.table.length);
    else this.place(this.table, e, h);
    return e;
  }

  private place(table: Int32Array, e: number, h: number): void {
    const mask = (table.length >>> 1) - 1;
    let s = h & mask;
    while (table[2 * s + 1] !== 0) s = (s + 1) & mask;
    table[2 * s] = h;
    table[2 * s + 1] = e + 1;
  }

  /** The table at twice the slots, every entry placed again. */
  private rehash(slots: number): void {
    const table = new Int32Array(2 * slots);
    for (let e = 0; e < this.entryToken.length; e++) this.place(table, e, this.keyHash[e]);
    this.table = table;
  }

  /**
   * Tokenizes a row into `out` (tokens in order, column after column; `sizes` the count per
   * column) and answers how many. `stored`: FTS5's token count per column for the row, when
   * known; when ours differ, the row is tokenized by FTS5 itself instead.
   *
   * A column is first copied out as UTF-8 bytes (one native call, which also tells whether it
   * is ASCII: as many bytes as UTF-16 units): reading characters of the caller's strings
   * directly met several string representations in the service (parsed, sliced, joined) and
   * ran several times slower there than on the same text in a test.
   */
  fill(columns: readonly string[], stored?: readonly number[]): number {
    const out = this.out;
    let n = 0;
    for (let c = 0; c < 3; c++) {
      const before = n;
      const text = columns[c];
      if (text) {
        // 3 bytes per UTF-16 unit at most: never cut short, so a count equal to the length means ASCII
        if (this.bytes.length < 3 * text.length) this.bytes = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, 3 * text.length));
        const b = this.bytes;
        const end = b.write(text, 0, 'utf8');
        if (end !== text.length) {
          for (const m of text.matchAll(RUN_RE)) for (const tok of this.runTokens(m[0])) out[n++] = tok;
        } else {
          // a run is letters and digits (what RUN_RE matches in ASCII), cut and hashed in one pass
          for (let i = 0; i < end; ) {
            let h = asciiLower(b[i]);
            if (h < 0) {
              i++;
              continue;
            }
            let j = i + 1;
            for (; j < end; j++) {
              const l = asciiLower(b[j]);
              if (l < 0) break;
              h = (Math.imul(h, 31) + l) | 0;
            }
            h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
            h ^= h >>> 12;
            const e = this.asciiRun(b, i, j, h);
            const one = this.entryToken[e];
            if (one !== undefined) out[n++] = one;
            else for (const tok of this.entryTokens[e]!) out[n++] = tok;
            i = j;
          }
        }
      }
      this.sizes[c] = n - before;
    }
    if (!stored || (stored[0] === this.sizes[0] && stored[1] === this.sizes[1] && stored[2] === this.sizes[2])) return n;
    n = 0;
    for (let c = 0; c < 3; c++) {
      const before = n;
      if (columns[c]) for (const tok of this.ftsTokens(columns[c])) out[n++] = tok;
      this.sizes[c] = n - before;
    }
    return n;
  }

  /** A row's analysis: weighted frequency per token, token count per column. */
  analyze(columns: readonly string[], stored?: readonly number[]): RowTerms {
    const n = this.fill(columns, stored);
    const wtf = new Map<string, number>();
    let c = 0;
    let end = this.sizes[0];
    for (let k = 0; k < n; k++) {
      while (k >= end) end += this.sizes[++c];
      const tok = this.out[k].term;
      wtf.set(tok, (wtf.get(tok) ?? 0) + BM25_COLUMN_WEIGHTS[c]);
    }
    return { wtf, sizes: [...this.sizes] };
  }
}

/** A unit of work's postings, by term: (row id, weighted frequency, row tokens) triples, ids ascending. */
interface Pending {
  terms: Map<string, number[]>;
  /** marks the `Token`s whose `list` is this unit's and organization's */
  stamp: number;
  /** lowest row id in the unit (every id from it up is the unit's: ids only grow) */
  first: number;
}

export interface Segment {
  seg: number;
  first_id: number;
  last_id: number;
  postings: number;
}

/**
 * A term's block directory as read for queries, over every segment in row id order, and the
 * blocks decoded so far: kept between queries (the words of questions recur: "the", "you",
 * "is" are in most of them), dropped for a term whenever this handle writes its postings, for
 * the whole organization when segments merge, and all at once when another connection commits
 * or the schema changes (`sync`). Queries never read inside a transaction, so what is kept is
 * always committed.
 */
export interface TermDirectory {
  seg: Int32Array;
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
/**
 * Merging: a segment's level is how many times MERGE_FACTOR its postings exceed LEVEL_BASE
 * (log scale); when the newest MERGE_FACTOR segments share a level they are merged into one.
 * Each posting is thus rewritten about once per level (log of the table's size), and a query
 * reads at most MERGE_FACTOR − 1 segments per level. A merge that would pass MAX_MERGE postings
 * is not made: past it segments only accumulate.
 */
export const MERGE_FACTOR = 8;
const LEVEL_BASE = 4096;
const MAX_MERGE = 64_000_000;
/**
 * A merge is made in steps, one per unit of work (`flush`), each rewriting whole terms until it
 * has written a budget of postings: MERGE_STEP_RATIO times the unit's own, within
 * [MERGE_STEP_MIN, MERGE_STEP_MAX]. So no commit rewrites more than MERGE_STEP_MAX postings plus
 * one term's (at most one per row of the organization), and merges keep pace with writes (a
 * posting is rewritten about once per level, fewer than MERGE_STEP_RATIO times).
 */
const MERGE_STEP_RATIO = 8;
const MERGE_STEP_MIN = 32_768;
const MERGE_STEP_MAX = 524_288;
/** rows read per segment and page while merging */
const MERGE_PAGE = 256;
/**
 * A term with at most SHORT postings in a segment is not given rows of its own: such lists are
 * packed, in term order, into buckets of about BUCKET_BYTES (a row under the segment's number
 * negated, keyed by its first term, blk −1), so a unit of work's rare words cost a few inserts
 * instead of one each. Entry: u16 term length in bytes, the term (UTF-8), u32 count, records.
 */
const SHORT = 16;
const BUCKET_BYTES = 900;

interface PostingStatements {
  segments: Statement<[], Segment>;
  nextSeg: Statement<[], number>;
  insertSeg: Statement<[number, number, number, number]>;
  countSeg: Statement<[number, number]>;
  deleteSeg: Statement<[number]>;
  deleteSegRows: Statement<[number]>;
  insert: Statement<[number, string, number, number, number, number, number, Buffer]>;
  blockFor: Statement<[number, string, number], { blk: number; n: number; a0: number; data: Buffer }>;
  write: Statement<[number, number, Buffer, number, string, number]>;
  drop: Statement<[number, string, number]>;
  meta: Statement<[number, string], [number, number, number, number, number]>;
  data: Statement<[number, string, number], Buffer>;
  page: Statement<[number, string, number, number], [string, number, Buffer]>;
  bucketFor: Statement<[number, string], { term: string; a0: number; data: Buffer }>;
  writeBucket: Statement<[number, Buffer, number, string]>;
  mergeState: Statement<[], MergeState>;
  startMerge: Statement<[number, string, number, number]>;
  stepMerge: Statement<[string, number, number]>;
  countMerge: Statement<[number, number]>;
  endMerge: Statement<[number]>;
}

/**
 * The merge under way (one per organization at most): its output segment's number, its inputs
 * (a suffix of the segments in row id order, as JSON), the last term written whole (null: none
 * yet) and the postings written. The output's rows are not listed in the segments table until
 * the merge ends, so queries read the inputs, which stay complete; an edit or delete of a row
 * takes it out of both.
 */
interface MergeState {
  seg: number;
  inputs: string;
  done: string | null;
  postings: number;
  first_id: number;
  last_id: number;
}

export const mergeTable = (name: string) => `text_fts_${name}_merge`;
const mergeDdl = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${mergeTable(name)} (
     seg      INTEGER PRIMARY KEY,
     inputs   TEXT NOT NULL,
     done     TEXT,
     postings INTEGER NOT NULL,
     first_id INTEGER NOT NULL,
     last_id  INTEGER NOT NULL
   );`;

/** What a kept directory counts against CACHED_POSTINGS. */
function cost(d: TermDirectory): number {
  let n = 2 * d.blk.length;
  for (const b of d.decoded.values()) n += b.ids.length;
  return n;
}

/** A posting's part of bm25 before the IDF, at average row length `avgdl` (fts5Bm25's arithmetic). */
export function bm25Part(wtf: number, dl: number, avgdl: number): number {
  // fts5Bm25([1], [wtf], dl, avgdl) negated, without its arrays (it runs per posting written)
  return 1 * ((wtf * (FTS5_BM25_K1 + 1.0)) / (wtf + FTS5_BM25_K1 * (1 - FTS5_BM25_B + (FTS5_BM25_B * dl) / avgdl)));
}

/** A segment's level (see MERGE_FACTOR). */
function level(postings: number): number {
  return postings < LEVEL_BASE ? 0 : 1 + Math.floor(Math.log(postings / LEVEL_BASE) / Math.log(MERGE_FACTOR));
}

/** Strings in code point order: the native sort's UTF-16 order is that, unless a surrogate meets U+E000–U+FFFF. */
function sortCodePoints(xs: string[]): string[] {
  xs.sort();
  return xs.some((x) => SURROGATE_RE.test(x)) ? xs.sort(compareCodePoints) : xs;
}
const SURROGATE_RE = /[\ud800-\udfff]/;

/**
 * Code point order of two strings, which is SQLite's BINARY order of their UTF-8 bytes (the
 * table's term order): UTF-16 units compare the same except surrogates against U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Reads and writes one database's postings. Writes inside a transaction are kept in memory and
 * written once per unit of work (`flush`, before the commit) as one new segment, so a unit
 * costs inserts at the table's end, never a read or rewrite of earlier blocks. A rollback must
 * not leave them to a later flush: each unit puts a marker row in a temp table (rolled back
 * with the transaction), and a unit whose marker is gone is dropped (`enterUnit`).
 */
/** `Pending.stamp`s handed out (one per unit of work and organization, never reused) */
let stamps = 0;

export class Postings {
  private readonly stmts = new Map<string, PostingStatements>();
  private pending = new Map<string, Pending>();
  private marker = 0;
  /** whether a unit of work is open (entered, not flushed yet) */
  private inUnit = false;
  private readonly putMarker: Statement<[number]>;
  private readonly hasMarker: Statement<[number], number>;
  private readonly dropMarker: Statement<[number]>;
  /** by `name\0term`, least recently used first */
  private readonly dirs = new Map<string, TermDirectory>();
  /** each organization's segments as queries read them (dropped on this handle's writes and by `sync`) */
  private readonly segs = new Map<string, Segment[]>();
  private cachedPostings = 0;
  private stamp: unknown;

  /**
   * `referenceLength(name)`: an average row length to compute new bounds at (any positive one
   * is valid); `mergeFactor`: MERGE_FACTOR unless a test wants merges sooner; `stepBudget`: a
   * fixed budget of postings per merge step, for tests that want merges in many steps.
   */
  constructor(
    private readonly db: Database,
    private readonly referenceLength: (name: string) => number,
    private readonly mergeFactor = MERGE_FACTOR,
    private readonly stepBudget?: number,
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

  /**
   * Called by every write inside a transaction: whether it continues the unit of work of the
   * previous write (no flush since, and not rolled back: its marker is still there). Otherwise a
   * new unit starts, and whatever a rolled-back one left in memory is dropped.
   */
  enterUnit(): boolean {
    if (this.inUnit && this.hasMarker.get(this.marker) !== undefined) return true;
    this.pending = new Map();
    this.putMarker.run(++this.marker);
    this.inUnit = true;
    return false;
  }

  forget(name: string): void {
    this.stmts.delete(name);
    this.pending.delete(name);
    this.forgetDirectories(name);
  }

  private forgetDirectories(name: string): void {
    this.segs.delete(name);
    for (const key of [...this.dirs.keys()]) if (key.startsWith(`${name}\0`)) this.dropDirectory(key);
  }

  /**
   * Drops every kept directory when `stamp` (the caller's mark of the database's state: another
   * connection's commits, the schema) differs from the last one seen.
   */
  sync(stamp: unknown): void {
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.dirs.clear();
    this.segs.clear();
    this.cachedPostings = 0;
  }

  private dropDirectory(key: string): void {
    const d = this.dirs.get(key);
    if (!d) return;
    this.dirs.delete(key);
    this.cachedPostings -= cost(d);
  }

  private segments(name: string): Segment[] {
    let s = this.segs.get(name);
    if (!s) this.segs.set(name, (s = this.statements(name).segments.all()));
    return s;
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
    const st = this.statements(name);
    const metas: [number, number, number, number, number, number][] = [];
    const short = new Map<number, Decoded>();
    // segments in row id order, blocks in it within each: the directory is in row id order
    for (const g of this.segments(name)) {
      const rows = st.meta.all(g.seg, term);
      if (rows.length) {
        for (const m of rows) metas.push([g.seg, ...m]);
        continue;
      }
      const bucket = st.bucketFor.get(-g.seg, term);
      const entry = bucket && findInBucket(bucket.data, term);
      if (!entry) continue;
      const d = decodeBlock(entry.data);
      let max = 0;
      for (let k = 0; k < d.ids.length; k++) max = Math.max(max, bm25Part(d.wtf[k], d.dl[k], bucket.a0));
      short.set(metas.length, d);
      metas.push([-g.seg, -1, d.ids[d.ids.length - 1], d.ids.length, max, bucket.a0]);
    }
    let n = 0;
    for (const m of metas) n += m[3];
    d = {
      seg: Int32Array.from(metas, (m) => m[0]),
      blk: Int32Array.from(metas, (m) => m[1]),
      last: Int32Array.from(metas, (m) => m[2]),
      maxPart: Float64Array.from(metas, (m) => m[4]),
      a0: Float64Array.from(metas, (m) => m[5]),
      n,
      decoded: short,
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
      b = decodeBlock(this.statements(name).data.get(d.seg[i], term, d.blk[i]) ?? Buffer.alloc(0));
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
      const g = segmentsTable(name);
      const mg = mergeTable(name);
      // tables written before merges were made in steps
      this.db.exec(mergeDdl(name));
      s = {
        segments: this.db.prepare(`SELECT seg, first_id, last_id, postings FROM ${g} ORDER BY first_id`),
        nextSeg: this.db.prepare<[], number>(`SELECT max(coalesce((SELECT max(seg) FROM ${g}), 0), coalesce((SELECT max(seg) FROM ${mg}), 0)) + 1`).pluck(),
        insertSeg: this.db.prepare(`INSERT INTO ${g} (seg, first_id, last_id, postings) VALUES (?, ?, ?, ?)`),
        countSeg: this.db.prepare(`UPDATE ${g} SET postings = postings - ? WHERE seg = ?`),
        deleteSeg: this.db.prepare(`DELETE FROM ${g} WHERE seg = ?`),
        deleteSegRows: this.db.prepare(`DELETE FROM ${p} WHERE seg = ?`),
        insert: this.db.prepare(`INSERT INTO ${p} (seg, term, blk, last_id, n, max_part, a0, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
        blockFor: this.db.prepare(`SELECT blk, n, a0, data FROM ${p} WHERE seg = ? AND term = ? AND last_id >= ? ORDER BY blk LIMIT 1`),
        write: this.db.prepare(`UPDATE ${p} SET n = ?, max_part = ?, data = ? WHERE seg = ? AND term = ? AND blk = ?`),
        drop: this.db.prepare(`DELETE FROM ${p} WHERE seg = ? AND term = ? AND blk = ?`),
        meta: this.db.prepare<[number, string], [number, number, number, number, number]>(`SELECT blk, last_id, n, max_part, a0 FROM ${p} WHERE seg = ? AND term = ? ORDER BY blk`).raw(),
        data: this.db.prepare<[number, string, number], Buffer>(`SELECT data FROM ${p} WHERE seg = ? AND term = ? AND blk = ?`).pluck(),
        page: this.db
          .prepare<[number, string, number, number], [string, number, Buffer]>(`SELECT term, blk, data FROM ${p} WHERE seg = ? AND (term, blk) > (?, ?) ORDER BY term, blk LIMIT ?`)
          .raw(),
        bucketFor: this.db.prepare(`SELECT term, a0, data FROM ${p} WHERE seg = ? AND term <= ? ORDER BY term DESC LIMIT 1`),
        writeBucket: this.db.prepare(`UPDATE ${p} SET n = ?, data = ? WHERE seg = ? AND term = ? AND blk = -1`),
        mergeState: this.db.prepare(`SELECT seg, inputs, done, postings, first_id, last_id FROM ${mg} LIMIT 1`),
        startMerge: this.db.prepare(`INSERT INTO ${mg} (seg, inputs, done, postings, first_id, last_id) VALUES (?, ?, NULL, 0, ?, ?)`),
        stepMerge: this.db.prepare(`UPDATE ${mg} SET done = ?, postings = postings + ? WHERE seg = ?`),
        countMerge: this.db.prepare(`UPDATE ${mg} SET postings = postings - ? WHERE seg = ?`),
        endMerge: this.db.prepare(`DELETE FROM ${mg} WHERE seg = ?`),
      };
      this.stmts.set(name, s);
    }
    return s;
  }

  /**
   * Adds row `id`'s postings to the unit of work (`enterUnit` first, inside a transaction); the
   * row's id must be above every id indexed so far (new rows, and re-indexed rows, get one).
   */
  add(name: string, id: number, columns: readonly string[], stored: readonly number[] | undefined, analyzer: DocAnalyzer): void {
    if (!this.db.inTransaction) {
      this.db.transaction(() => {
        this.enterUnit();
        this.add(name, id, columns, stored, analyzer);
        this.flush();
      })();
      return;
    }
    let p = this.pending.get(name);
    if (!p) this.pending.set(name, (p = { terms: new Map(), first: id, stamp: ++stamps }));
    analyzer.fill(columns, stored);
    const dl = analyzer.sizes[0] + analyzer.sizes[1] + analyzer.sizes[2];
    const out = analyzer.out;
    const stamp = p.stamp;
    // straight into the unit's lists, found on the token (the map only when another unit or
    // organization used the token last): the row's triple is its list's last
    for (let c = 0, k = 0; c < 3; c++) {
      const w = BM25_COLUMN_WEIGHTS[c];
      for (const end = k + analyzer.sizes[c]; k < end; k++) {
        const tok = out[k];
        let list = tok.list;
        if (tok.stamp !== stamp) {
          const known = p.terms.get(tok.term);
          if (known) list = known;
          else p.terms.set(tok.term, (list = []));
          tok.stamp = stamp;
          tok.list = list;
        }
        const m = list.length;
        if (m && list[m - 3] === id) list[m - 2] += w;
        else list.push(id, w, dl);
      }
    }
  }

  /** Takes row `id`'s postings for `terms` out (the row's text as it was indexed). */
  remove(name: string, id: number, terms: Iterable<string>): void {
    const p = this.pending.get(name);
    if (p && id >= p.first) {
      // a row of this unit: out of its lists (its id may come back: SQLite reuses the largest)
      for (const term of terms) {
        const list = p.terms.get(term);
        if (!list) continue;
        for (let k = list.length - 3; k >= 0 && list[k] >= id; k -= 3) {
          if (list[k] === id) {
            list.splice(k, 3);
            break;
          }
        }
      }
      return;
    }
    const s = this.statements(name);
    this.segs.delete(name);
    const seg = this.statements(name)
      .segments.all()
      .find((g) => g.first_id <= id && id <= g.last_id);
    if (!seg) return;
    const list = [...terms];
    const removed = this.removeFrom(s, name, seg.seg, id, list);
    if (removed) s.countSeg.run(removed, seg.seg);
    // a merge under way may have copied the row already: out of its output too
    const m = s.mergeState.get();
    if (m && m.first_id <= id && id <= m.last_id) {
      const out = this.removeFrom(s, name, m.seg, id, list);
      if (out) s.countMerge.run(out, m.seg);
    }
  }

  /** Takes row `id` out of segment `seg`'s lists of `terms` (the postings it removed). */
  private removeFrom(s: PostingStatements, name: string, seg: number, id: number, terms: readonly string[]): number {
    let removed = 0;
    for (const term of terms) {
      this.dropDirectory(`${name}\0${term}`);
      const row = s.blockFor.get(seg, term, id);
      if (!row) {
        removed += this.removeShort(s, -seg, term, id);
        continue;
      }
      const src = row.data;
      const keep: Buffer[] = [];
      let n = 0;
      let max = 0;
      for (let q = 0; q + RECORD <= src.length; q += RECORD) {
        if (src.readUInt32LE(q) === id) continue;
        keep.push(src.subarray(q, q + RECORD));
        n++;
        max = Math.max(max, bm25Part(src.readUInt32LE(q + 4), src.readUInt32LE(q + 8), row.a0));
      }
      if (n === row.n) continue;
      removed += row.n - n;
      if (n === 0) s.drop.run(seg, term, row.blk);
      else s.write.run(n, max, Buffer.concat(keep), seg, term, row.blk);
    }
    return removed;
  }

  /** Takes row `id` out of `term`'s list in bucket segment `neg` (the postings it removed: 0 or 1). */
  private removeShort(s: PostingStatements, neg: number, term: string, id: number): number {
    const bucket = s.bucketFor.get(neg, term);
    if (!bucket) return 0;
    const entries = readBucket(bucket.data);
    const at = entries.findIndex((e) => e.term === term);
    if (at < 0) return 0;
    const src = entries[at].data;
    const keep: Buffer[] = [];
    for (let q = 0; q + RECORD <= src.length; q += RECORD) if (src.readUInt32LE(q) !== id) keep.push(src.subarray(q, q + RECORD));
    if (keep.length * RECORD === src.length) return 0;
    if (keep.length) entries[at] = { term, data: Buffer.concat(keep) };
    else entries.splice(at, 1);
    // the bucket keeps its key (its first term as written): every term in it is still at or after it
    const n = entries.reduce((a, e) => a + e.data.length / RECORD, 0);
    if (n === 0) s.drop.run(neg, bucket.term, -1);
    else s.writeBucket.run(n, packBucket(entries), neg, bucket.term);
    return 1;
  }

  /**
   * Ends the unit of work (called before each commit): its postings become one new segment,
   * then segments are merged while the newest `mergeFactor` share a level. A rolled-back
   * unit's postings are dropped.
   */
  flush(): void {
    const live = this.inUnit && this.db.inTransaction && this.hasMarker.get(this.marker) !== undefined;
    this.inUnit = false; // the next write starts a new unit
    if (live) this.dropMarker.run(this.marker);
    const pending = this.pending;
    this.pending = new Map();
    if (!live) return;
    for (const [name, p] of pending) {
      const written = this.writeSegment(name, p);
      this.merge(name, this.stepBudget ?? Math.min(MERGE_STEP_MAX, Math.max(MERGE_STEP_MIN, MERGE_STEP_RATIO * written)));
    }
  }

  /** A bound's reference length for new blocks: the table's average row length (any positive one is valid). */
  private reference(name: string): number {
    const a0 = this.referenceLength(name);
    return a0 > 0 ? a0 : 1;
  }

  /** Writes the unit's postings as one new segment (how many). */
  private writeSegment(name: string, p: Pending): number {
    const s = this.statements(name);
    const a0 = this.reference(name);
    const seg = s.nextSeg.get()!;
    const terms = sortCodePoints([...p.terms.keys()]);
    let count = 0;
    let first = Infinity;
    let last = -Infinity;
    const bucket = new BucketWriter((key, n, data) => s.insert.run(-seg, key, -1, 0, n, 0, a0, data));
    // every list copied once into the records' layout (u32 little-endian triples), in term order
    const lists = terms.map((term) => p.terms.get(term)!);
    let size = 0;
    for (const list of lists) size += list.length;
    const all = new Uint32Array(size);
    let at = 0;
    for (const list of lists) {
      all.set(list, at);
      at += list.length;
    }
    if (!LITTLE_ENDIAN) for (let j = 0; j < all.length; j++) all[j] = swap32(all[j]);
    const cached = this.dirs.size > 0;
    at = 0;
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t];
      const list = lists[t];
      const start = at;
      at += list.length;
      if (!list.length) continue;
      if (cached) this.dropDirectory(`${name}\0${term}`);
      const n = list.length / 3;
      const bytes = Buffer.from(all.buffer, start * 4, n * RECORD);
      if (n <= SHORT) bucket.add(term, bytes);
      else {
        for (let k = 0, blk = 0; k < n; k += BLOCK, blk++) {
          const m = Math.min(BLOCK, n - k);
          let max = 0;
          for (let j = k; j < k + m; j++) {
            const part = bm25Part(list[3 * j + 1], list[3 * j + 2], a0);
            if (part > max) max = part;
          }
          s.insert.run(seg, term, blk, list[3 * (k + m - 1)], m, max, a0, bytes.subarray(k * RECORD, (k + m) * RECORD));
        }
      }
      count += n;
      if (list[0] < first) first = list[0];
      if (list[list.length - 3] > last) last = list[list.length - 3];
    }
    bucket.end();
    if (count) s.insertSeg.run(seg, first, last, count);
    this.segs.delete(name);
    return count;
  }

  /**
   * Merge work for one unit of work, up to `budget` postings written (see MERGE_STEP_RATIO):
   * the merge under way goes on, and when it ends the next one starts while the newest
   * `mergeFactor` segments share a level (see MERGE_FACTOR).
   */
  private merge(name: string, budget: number): void {
    const s = this.statements(name);
    while (budget > 0) {
      let m = s.mergeState.get();
      if (!m) {
        const run = this.nextRun(s.segments.all());
        if (!run) return;
        const seg = s.nextSeg.get()!;
        s.startMerge.run(seg, JSON.stringify(run.map((g) => g.seg)), run[0].first_id, run[run.length - 1].last_id);
        m = s.mergeState.get()!;
      }
      budget -= this.mergeStep(name, m, budget);
    }
  }

  /** The segments to merge next, in row id order, if any (see MERGE_FACTOR). */
  private nextRun(all: Segment[]): Segment[] | undefined {
    if (all.length < this.mergeFactor) return undefined;
    // the newest rows' segments: a merge takes a suffix of the row id order, so ranges stay disjoint
    const newest = [...all].reverse();
    const at = level(newest[0].postings);
    let k = 1;
    while (k < newest.length && level(newest[k].postings) === at) k++;
    if (k < this.mergeFactor) return undefined;
    const run = newest.slice(0, this.mergeFactor);
    if (run.reduce((a, g) => a + g.postings, 0) > MAX_MERGE) return undefined;
    return run.sort((a, b) => a.first_id - b.first_id);
  }

  /**
   * One step of merge `m`: the terms after `m.done`, in the table's order, each one's postings
   * from every input concatenated in row id order, cut in blocks again and bounds recomputed,
   * until `budget` postings are written (whole terms) or the inputs end; then the output
   * replaces them. The inputs are read a page at a time (a k-way merge), so memory stays one
   * page per input. Answers the postings written.
   */
  private mergeStep(name: string, m: MergeState, budget: number): number {
    const s = this.statements(name);
    const a0 = this.reference(name);
    const seg = m.seg;
    const done = m.done;
    const inputs = JSON.parse(m.inputs) as number[];
    // per input, in row id order: its own rows, then its buckets (a term is in one or the other)
    const cursors = inputs
      .flatMap((g) => [g, -g])
      .map((g) => {
        // blocks: every (term, blk) after (done, any); buckets: from the one holding `done` on
        const from = done === null ? undefined : g > 0 ? { term: done, blk: 2 ** 31 } : (s.bucketFor.get(g, done) as { term: string } | undefined);
        return { seg: g, rows: [] as [string, number, Buffer][], at: 0, done: false, term: from?.term ?? '', blk: from ? (g > 0 ? 2 ** 31 : -2) : -2 };
      });
    const head = (c: (typeof cursors)[number]): [string, number, Buffer] | undefined => {
      for (;;) {
        if (c.at < c.rows.length) return c.rows[c.at];
        if (c.done) return undefined;
        const page = s.page.all(c.seg, c.term, c.blk, MERGE_PAGE);
        if (page.length < MERGE_PAGE) c.done = true;
        if (!page.length) return undefined;
        c.term = page[page.length - 1][0];
        c.blk = page[page.length - 1][1];
        // a bucket is read as its entries, each as a block of its term (those written already skipped)
        c.rows = c.seg > 0 ? page : page.flatMap(([, , data]) => readBucket(data).filter((e) => done === null || compareCodePoints(e.term, done) > 0).map((e): [string, number, Buffer] => [e.term, 0, e.data]));
        c.at = 0;
      }
    };
    const bucket = new BucketWriter((key, n, data) => s.insert.run(-seg, key, -1, 0, n, 0, a0, data));
    let count = 0;
    let last: string | null = done;
    const carry: Buffer[] = [];
    for (;;) {
      if (count >= budget) {
        bucket.end();
        s.stepMerge.run(last!, count, seg);
        return count;
      }
      let term: string | undefined;
      for (const c of cursors) {
        const h = head(c);
        if (h && (term === undefined || compareCodePoints(h[0], term) < 0)) term = h[0];
      }
      if (term === undefined) break;
      carry.length = 0;
      // cursors are in row id order, and each one's blocks of a term too
      for (const c of cursors) {
        for (let h = head(c); h && h[0] === term; h = head(c)) {
          carry.push(h[2]);
          c.at++;
        }
      }
      last = term;
      const data = carry.length === 1 ? carry[0] : Buffer.concat(carry);
      const n = Math.floor(data.length / RECORD);
      count += n;
      if (n <= SHORT) {
        bucket.add(term, data);
        continue;
      }
      for (let k = 0, blk = 0; k < n; k += BLOCK, blk++) {
        const m = Math.min(BLOCK, n - k);
        const buf = data.subarray(k * RECORD, (k + m) * RECORD);
        let max = 0;
        for (let j = 0; j < m; j++) {
          const part = bm25Part(buf.readUInt32LE(j * RECORD + 4), buf.readUInt32LE(j * RECORD + 8), a0);
          if (part > max) max = part;
        }
        s.insert.run(seg, term, blk, buf.readUInt32LE((m - 1) * RECORD), m, max, a0, buf);
      }
    }
    bucket.end();
    for (const g of inputs) {
      s.deleteSegRows.run(g);
      s.deleteSegRows.run(-g);
      s.deleteSeg.run(g);
    }
    const total = m.postings + count;
    if (total) s.insertSeg.run(seg, m.first_id, m.last_id, total);
    s.endMerge.run(seg);
    this.forgetDirectories(name);
    // an empty step still counts one, so a caller's budget always shrinks
    return Math.max(count, 1);
  }

  /** Every posting of the table, for `projections verify` (term, id, wtf, dl). */
  static *decode(db: Database, name: string): Iterable<[string, number, number, number]> {
    // a merge's output under way is not listed yet: its rows repeat its inputs'
    const rows = db.prepare(`SELECT term, blk, data FROM ${postingsTable(name)} WHERE abs(seg) IN (SELECT seg FROM ${segmentsTable(name)})`).raw().all() as [string, number, Buffer][];
    for (const [key, blk, block] of rows) {
      for (const { term, data } of blk < 0 ? readBucket(block) : [{ term: key, data: block }]) {
        for (let p = 0; p + RECORD <= data.length; p += RECORD) yield [term, data.readUInt32LE(p), data.readUInt32LE(p + 4), data.readUInt32LE(p + 8)];
      }
    }
  }
}

/** A candidate row as the ranking statements return it (rank: bm25(), negative). */
export interface PostingHit {
  id: number;
  uid: string;
  rank: number;
  salience: number;
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

interface BucketEntry {
  term: string;
  data: Buffer;
}

function readBucket(data: Buffer): BucketEntry[] {
  const out: BucketEntry[] = [];
  for (let p = 0; p + 6 <= data.length; ) {
    const len = data.readUInt16LE(p);
    const term = data.toString('utf8', p + 2, p + 2 + len);
    const n = data.readUInt32LE(p + 2 + len);
    const start = p + 6 + len;
    out.push({ term, data: data.subarray(start, start + n * RECORD) });
    p = start + n * RECORD;
  }
  return out;
}

/** `term`'s records in a bucket, if it holds the term. */
function findInBucket(data: Buffer, term: string): BucketEntry | undefined {
  for (const e of readBucket(data)) if (e.term === term) return e;
  return undefined;
}

function packBucket(entries: readonly BucketEntry[]): Buffer {
  let size = 0;
  for (const e of entries) size += 6 + Buffer.byteLength(e.term, 'utf8') + e.data.length;
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  for (const e of entries) {
    const len = out.write(e.term, p + 2, 'utf8');
    out.writeUInt16LE(len, p);
    out.writeUInt32LE(e.data.length / RECORD, p + 2 + len);
    p += 6 + len;
    p += e.data.copy(out, p);
  }
  return out;
}

/** Short lists, given in term order, packed into buckets of about BUCKET_BYTES. */
class BucketWriter {
  private entries: BucketEntry[] = [];
  private bytes = 0;
  private n = 0;

  constructor(private readonly write: (key: string, n: number, data: Buffer) => void) {}

  add(term: string, data: Buffer): void {
    this.entries.push({ term, data });
    this.bytes += 6 + term.length + data.length;
    this.n += data.length / RECORD;
    if (this.bytes >= BUCKET_BYTES) this.end();
  }

  end(): void {
    if (!this.entries.length) return;
    this.write(this.entries[0].term, this.n, packBucket(this.entries));
    this.entries = [];
    this.bytes = 0;
    this.n = 0;
  }
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
 * exactly FTS5's rows for a token (a row count differing from FTS5's document frequency), or
 * once more than 4·limit + 256 rows were looked up for nothing (rejected by the filter, or
 * tied with the page's last score and behind it on salience and uid): a selective filter or
 * a heavy tie, which FTS5 settles in SQL for less per row. The caller then asks FTS5.
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
  let wasted = 0;
  let abandoned = false;
  const wasteBudget = 4 * limit + 256;
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
    // rows looked up for nothing: a filter rejecting most rows (the page never fills, so nothing
    // is pruned) or a tie on the page's last score lost on salience and uid, which no bound can
    // cut (thousands of rows of one score): FTS5 breaks those in SQL, reading less per row
    if (!row || !accept(row)) {
      if (++wasted > wasteBudget) abandoned = true;
      return;
    }
    const hit = { id, uid: row.uid, rank, salience: row.salience };
    if (top.length >= limit && cmp(hit, top[limit - 1]) >= 0) {
      if (++wasted > wasteBudget) abandoned = true;
      return;
    }
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
      if (abandoned) return null;
    }
  }
  return top;
}
