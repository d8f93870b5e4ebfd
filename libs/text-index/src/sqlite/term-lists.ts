import type { Database, Statement } from 'better-sqlite3';
import { VarintCursor, decodeDocSize } from './fts5-averages';
import { BM25_COLUMN_WEIGHTS, FTS5_BM25_K1, fts5Part } from './fts5-bm25';
import { type Doclist, Fts5Doclists } from './fts5-doclists';
import { grownArray } from './grown-array';
import type { DocAnalyzer } from './text-postings';

/** A token's rows as FTS5 indexed them (see `Doclist`). */
type TermList = Doclist;

/**
 * Rows a token must be in for its list to be decoded from FTS5's pages rather than read through
 * the vocab view: the pages cost a look-up and a page per segment first (~0.2 ms over the nine
 * segments of 100,000 mail rows), the view ~0.35 µs a row; they break even at 300–600 rows.
 */
const PAGES_MIN_ROWS = 500;

/** The statements one organization's lists are read with (its tables' names are in them). */
interface ListStatements {
  maxId: Statement<[], number | null>;
  /**
   * The `_docsize` records of the rows in (from, to] end to end in id order (one blob, not a JS
   * row per row), how many, the first id, and every id (comma-separated) only where they have gaps
   */
  sizes: Statement<[number, number], { n: number; lo: number | null; ids: string | null; records: Buffer | null }>;
  /** the text FTS5 keeps of the rows in (from, to], with their token counts */
  rows: Statement<[number, number], { id: number; c0: string | null; c1: string | null; c2: string | null; sz: Buffer | null }>;
  row: Statement<[number], { c0: string | null; c1: string | null; c2: string | null; sz: Buffer | null }>;
  /** `<doc><column initial>` per occurrence of a token, comma-separated, in row id order */
  instances: Statement<[string], string | null>;
  /** a token's doclist from FTS5's own pages */
  doclists: Fts5Doclists;
}

/** One organization's lists and what they cover. */
export interface OrgLists {
  /** the organization's tables' name suffix */
  name: string;
  /** the database as the lists were read from it (another connection's commit, a schema change: read again) */
  version: string;
  /** every row with an id up to this is in `dl` and in every list, unless `stale` */
  upTo: number;
  /** each row's token count (bm25()'s D), by row id */
  dl: Uint32Array;
  lists: Map<string, TermList>;
  /** rows up to `upTo` whose text changed or that went since they were read: scored from their text */
  stale: Set<number>;
  /** tokens whose lists MaxScore left unread once (read the next time) */
  skipped: Set<string>;
  /**
   * Rows holding each token among rows up to `upTo`, for tokens counted since (`countRows`) and
   * moved as rows are appended; not used once a row is stale (its old text is not known here).
   */
  df: Map<string, number>;
  /** 1 at each stale row's id (null while none is) */
  staleMask: Uint8Array | null;
  st: ListStatements;
}

/** The tables of one organization, as the text index names them. */
export interface ListTables {
  name: string;
  docs: string;
  fts: string;
}

export interface TermListsOptions {
  /** bytes the lists of every organization may hold together; least recently used go first */
  budgetBytes: number;
  /** an organization's lists are read again from FTS5 once more of its rows than this changed */
  staleRows: number;
}

/**
 * Per-token lists of (row id, weighted frequency), read from FTS5's own index (its fts5vocab
 * `instance` view, aggregated to one string in SQL: ~0.25 µs an occurrence, against ~1.4 µs a
 * matching row for bm25() in a MATCH) and kept in memory between queries, with each row's token
 * count. A query scores every row of its tokens' lists in JavaScript with bm25()'s own
 * arithmetic (`fts5Part`), a few nanoseconds a row, instead of FTS5 scoring every match.
 *
 * Nothing is written for them: writes only say which rows changed (`changed`). Rows added since
 * the lists were read (ids above `upTo`: the docs table hands out ids in increasing order, and an
 * id can come back only after its row was deleted, which marks it) are tokenized at the next
 * query and appended; rows whose text changed or that went are `stale`, left out of the lists and
 * scored from the text FTS5 keeps for them now. Another connection's commit or a schema change
 * (a rebuild swapped in, an organization's tables dropped) starts the organization over.
 */
export class TermLists {
  private readonly orgs = new Map<string, OrgLists>();
  /** least recently used first: `name \0 token` */
  private readonly lru = new Map<string, { s: OrgLists; token: string; bytes: number }>();
  private bytes = 0;
  /** per row id, a query's running score (0: not touched); zeroed after each query */
  private acc = new Float64Array(1024);
  private touchedIds = new Int32Array(1024);
  /** rows of `touchedIds` holding a score in `acc` */
  private touchedN = 0;
  private candIds = new Int32Array(1024);
  /** a column name's first letter (fts5vocab's `col`) → its bm25() weight */
  private readonly weightOf: Record<string, number>;
  /** lists decoded from FTS5's pages, and read through the vocab view instead (tests watch both) */
  pageReads = 0;
  vocabReads = 0;

  constructor(
    private readonly db: Database,
    private readonly analyzer: DocAnalyzer,
    private readonly columns: readonly string[],
    private readonly options: TermListsOptions,
  ) {
    this.weightOf = {};
    columns.forEach((c, i) => (this.weightOf[c[0]] = BM25_COLUMN_WEIGHTS[i] ?? 1));
    if (Object.keys(this.weightOf).length !== columns.length) throw new Error('term lists: column names must start with distinct letters');
    let refs = CONNECTIONS.get(db);
    if (!refs) CONNECTIONS.set(db, (refs = new Set()));
    refs.add(new WeakRef(this));
  }

  /**
   * A write through any text index on connection `db` changed (or removed) row `id` of the
   * organization's tables `name`: every TermLists on that connection hears it (their own
   * connection's commits do not move `PRAGMA data_version`).
   */
  static changed(db: Database, name: string, id: number): void {
    for (const lists of TermLists.on(db)) lists.changed(name, id);
  }

  /** An organization's tables were dropped through connection `db` (null: every organization's). */
  static dropped(db: Database, name: string | null): void {
    for (const lists of TermLists.on(db)) {
      if (name === null) lists.clear();
      else lists.forget(name);
    }
  }

  private static on(db: Database): TermLists[] {
    const refs = CONNECTIONS.get(db);
    if (!refs) return [];
    const out: TermLists[] = [];
    for (const ref of refs) {
      const lists = ref.deref();
      if (lists) out.push(lists);
      else refs.delete(ref);
    }
    return out;
  }

  private changed(name: string, id: number): void {
    const s = this.orgs.get(name);
    if (!s || id > s.upTo) return;
    s.stale.add(id);
    if (s.stale.size > this.options.staleRows) return this.forget(name);
    if (!s.staleMask) {
      s.staleMask = new Uint8Array(s.dl.length);
      this.bytes += s.staleMask.byteLength;
    }
    s.staleMask[id] = 1;
  }

  private forget(name: string): void {
    const s = this.orgs.get(name);
    if (!s) return;
    for (const token of s.lists.keys()) this.unlist(s, token);
    this.bytes -= s.dl.byteLength + (s.staleMask?.byteLength ?? 0);
    this.orgs.delete(name);
  }

  private clear(): void {
    for (const name of [...this.orgs.keys()]) this.forget(name);
  }

  /**
   * The organization's lists, brought up to its rows now (call outside any transaction). Rows
   * added since are appended when they are few next to what is kept; otherwise the lists are
   * dropped and read again as queries need them.
   */
  open(t: ListTables, version: string): OrgLists {
    let s = this.orgs.get(t.name);
    if (s && s.version !== version) {
      this.forget(t.name);
      s = undefined;
    }
    if (!s) {
      s = { name: t.name, version, upTo: 0, dl: new Uint32Array(0), lists: new Map(), stale: new Set(), skipped: new Set(), df: new Map(), staleMask: null, st: this.statements(t) };
      this.orgs.set(t.name, s);
    } else {
      this.orgs.delete(t.name);
      this.orgs.set(t.name, s);
    }
    const max = s.st.maxId.get() ?? 0;
    if (max > s.upTo) {
      if (s.lists.size && max - s.upTo > Math.max(APPEND_ROWS, s.upTo / 8)) for (const token of [...s.lists.keys()]) this.unlist(s, token);
      this.growDl(s, max);
      if (s.lists.size) this.appendRows(s, s.upTo, max);
      else {
        // rows not tokenized here: their words' counts are unknown
        s.df.clear();
        this.readSizes(s, s.upTo, max);
      }
      s.upTo = max;
    }
    return s;
  }

  /**
   * The rows that can be on a page of the query, each with its score as bm25() computes it, in
   * `acc` by row id (`done()` must follow, also after an exception). Null when a list cannot be
   * kept.
   *
   * Without `page` (a filtered query: any matching row may be needed) every row of the lists is
   * scored, phrase after phrase in MATCH order, as bm25() sums them. With `page` (unfiltered:
   * the first `page` rows), MaxScore: lists are added rarest first (highest bound idf·(k1+1)
   * first) and the rest are left unread once the `page`-th best score so far beats what they
   * could add together; only rows that could still reach that score are then scored exactly,
   * in MATCH order, their frequencies found in each list by binary search. Rows whose text
   * changed since the lists were read (`stale`) are scored from their text now.
   */
  accumulate(s: OrgLists, phrases: readonly Phrase[], avgdl: number, page?: number): Scores | null {
    // read as they are needed: MaxScore may never need the common words' (the longest)
    const lists: (TermList | null | undefined)[] = new Array(phrases.length);
    const need = (i: number) => (lists[i] === undefined ? (lists[i] = this.list(s, phrases[i].token, phrases[i].df)) : lists[i]);
    if (this.acc.length <= s.upTo) this.acc = new Float64Array(Math.max(2 * this.acc.length, s.upTo + 1));
    const acc = this.acc;
    const dl = s.dl;
    const mask = s.staleMask;
    // stale rows first, from their text: they take no part in what the lists add
    const staleScores = new Map<number, number>();
    for (const id of s.stale) {
      const score = this.scoreText(s, id, phrases, avgdl);
      if (score > 0) staleScores.set(id, score);
    }
    let n = 0;
    let touched = this.touchedIds;
    const add = (list: TermList, idf: number): number => {
      if (touched.length < n + list.n + staleScores.size) {
        const grown = new Int32Array(Math.max(2 * touched.length, n + list.n + staleScores.size));
        grown.set(touched.subarray(0, n));
        this.touchedIds = touched = grown;
      }
      const { ids, wf, n: len } = list;
      let max = 0;
      for (let j = 0; j < len; j++) {
        const id = ids[j];
        if (mask !== null && mask[id] === 1) continue;
        if (acc[id] === 0) touched[n++] = id;
        const v = (acc[id] += fts5Part(idf, wf[j], dl[id], avgdl));
        if (v > max) max = v;
      }
      this.touchedN = n;
      return max;
    };
    const finish = (cands: Int32Array, m: number): Scores => {
      for (const [id, score] of staleScores) {
        if (acc[id] === 0) touched[n++] = id;
        acc[id] = score;
        cands[m++] = id;
      }
      this.touchedN = n;
      return { acc, ids: cands, n: m };
    };
    if (page === undefined || phrases.length === 1) {
      for (let i = 0; i < phrases.length; i++) {
        const list = need(i);
        if (!list) return null;
        add(list, phrases[i].idf);
      }
      if (page !== undefined && n > page) {
        // one phrase: its part is the score; only rows within rounding of the page's last can be on it
        const floor = this.kth(acc, touched, n, staleScores, page);
        let m = 0;
        const cands = this.candidates(n + staleScores.size);
        for (let i = 0; i < n; i++) if (acc[touched[i]] >= floor) cands[m++] = touched[i];
        return finish(cands, m);
      }
      return finish(this.copyTouched(n, n + staleScores.size), n);
    }
    const bound = phrases.map((p) => p.idf * (FTS5_BM25_K1 + 1.0));
    const order = phrases.map((_, i) => i).sort((a, b) => bound[b] - bound[a] || a - b);
    let rest = 0;
    for (const b of bound) rest += b;
    let max = 0;
    let theta = 0;
    let read = 0;
    /** the lists added to the scores */
    const scored = new Array<boolean>(phrases.length).fill(false);
    // the page's best rows as of the last θ, and the lists added since: scores only grow, so the
    // page's best rows now are among those and these lists' rows (not every row touched)
    let top: number[] = [];
    const since: TermList[] = [];
    const pageTheta = () => {
      top = this.bestAmong(acc, top, since, page);
      since.length = 0;
      return kthOf(top.map((id) => acc[id]), staleScores, page);
    };
    for (const i of order) {
      const list = need(i);
      if (!list) return null;
      max = Math.max(max, add(list, phrases[i].idf));
      scored[i] = true;
      since.push(list);
      rest -= bound[i];
      read++;
      // the page's last score is at least `theta`; a row outside the lists read scores under `rest`
      if (read < order.length && Math.max(max, ...staleScores.values()) > rest) {
        theta = pageTheta();
        if (theta > rest * (1 + ROUNDING)) break;
      }
    }
    if (read === order.length) rest = 0;
    // lists added since θ was found (none after a break) move it
    if (since.length) theta = pageTheta();
    // a row whose sum so far plus all it could still get stays under `theta` is off the page
    let floor = theta * (1 - ROUNDING) - rest;
    let cands = this.candidates(n + staleScores.size);
    let m = 0;
    for (let k = 0; k < n; k++) if (acc[touched[k]] >= floor) cands[m++] = touched[k];
    // Lists held but not in the scores: adding one costs a few ns a row, while each candidate
    // their bound lets through costs a binary search in every list. Added where that is cheaper
    // (common words after a break: their bound lets thousands of rows through).
    const addHeld = (): boolean => {
      const held = order.filter((i) => !scored[i] && s.lists.has(phrases[i].token));
      let heldRows = 0;
      for (const i of held) heldRows += s.lists.get(phrases[i].token)!.n;
      if (!held.length || heldRows >= m * phrases.length * SEARCH_VS_ADD) return true;
      for (const i of held) {
        const list = need(i);
        if (!list) return false;
        add(list, phrases[i].idf);
        scored[i] = true;
        since.push(list);
        rest -= bound[i];
      }
      if (scored.every(Boolean)) rest = 0;
      theta = pageTheta();
      floor = theta * (1 - ROUNDING) - rest;
      cands = this.candidates(n + staleScores.size);
      m = 0;
      for (let k = 0; k < n; k++) if (acc[touched[k]] >= floor) cands[m++] = touched[k];
      return true;
    };
    if (!addHeld()) return null;
    // The lists left unread: the candidates' own text is tokenized instead where that costs less
    // than reading the lists (which are then kept for later queries); a word that comes back is
    // read and kept. A list already held costs a binary search a candidate: it is used.
    for (let i = 0; i < phrases.length; i++) if (lists[i] === undefined && s.lists.has(phrases[i].token) && !need(i)) return null;
    const unread = phrases.map((_, i) => i).filter((i) => lists[i] === undefined);
    let unreadRows = 0;
    let listsUs = 0;
    for (const i of unread) {
      unreadRows += phrases[i].df;
      listsUs += LIST_READ_US + phrases[i].df * (phrases[i].df >= PAGES_MIN_ROWS ? PAGE_ROW_US : VOCAB_ROW_US);
    }
    let textUs = 0;
    for (let k = 0; k < m && textUs <= listsUs; k++) textUs += dl[cands[k]] * TEXT_TOKEN_US;
    if (textUs > listsUs || (unreadRows <= READ_ON_RETURN && unread.some((i) => s.skipped.has(phrases[i].token)))) {
      for (const i of unread) if (!need(i)) return null;
      unread.length = 0;
      if (!addHeld()) return null;
    }
    const exact = (id: number): number => {
      const text = unread.length ? this.rowTerms(s, id) : null;
      let score = 0.0;
      for (let i = 0; i < phrases.length; i++) {
        const list = lists[i];
        const f = list ? frequencyIn(list, id) : (text?.wtf.get(phrases[i].token) ?? 0);
        score += fts5Part(phrases[i].idf, f, dl[id], avgdl);
      }
      return score;
    };
    // Best sum so far first: once a page of exact scores is known, a candidate whose sum so far
    // plus all it could still get stays under the page's last is off it, and so is every later one.
    heapify(cands, m, acc);
    const pageScores = new MinScores(page);
    let kept = 0;
    for (let left = m; left > 0; ) {
      const id = cands[0];
      if (pageScores.full && acc[id] + rest < pageScores.min * (1 - ROUNDING)) break;
      cands[0] = cands[--left];
      siftDown(cands, left, acc, 0);
      const score = exact(id);
      acc[id] = score;
      // a row gone from under the lists (none can be while they are current) is no hit
      if (!(score > 0)) continue;
      pageScores.add(score);
      // the rows scored so far collect at the end of the array, past the heap
      cands[left] = id;
      kept++;
    }
    for (const i of unread) {
      if (s.skipped.size >= SKIPPED_WORDS) s.skipped.clear();
      s.skipped.add(phrases[i].token);
    }
    cands.copyWithin(0, m - kept, m);
    m = kept;
    return finish(cands, m);
  }

  /** A row's weighted frequency per token and token count, from the text FTS5 keeps for it now (null: gone). */
  private rowTerms(s: OrgLists, id: number): { wtf: Map<string, number>; D: number } | null {
    const row = s.st.row.get(id);
    if (!row) return null;
    const sizes = row.sz ? decodeDocSize(row.sz, this.columns.length) : undefined;
    const { wtf, sizes: made } = this.analyzer.analyze([row.c0 ?? '', row.c1 ?? '', row.c2 ?? ''], sizes);
    return { wtf, D: sizes ? sum(sizes) : sum(made) };
  }


  /** The `k`-th highest of the scores so far (0 when fewer): every row's final score is at least its score so far. */
  private kth(acc: Float64Array, touched: Int32Array, n: number, extra: Map<number, number>, k: number): number {
    if (n + extra.size < k) return 0;
    return kthOf(this.best(acc, touched, n, k).map((id) => acc[id]), extra, k);
  }

  /** Room for `size` candidate rows. */
  private candidates(size: number): Int32Array {
    if (this.candIds.length < size) this.candIds = new Int32Array(Math.max(2 * this.candIds.length, size));
    return this.candIds;
  }

  private copyTouched(n: number, size: number): Int32Array {
    const cands = this.candidates(size);
    cands.set(this.touchedIds.subarray(0, n));
    return cands;
  }

  /** bm25()'s sum for row `id` from the text FTS5 keeps for it now (0: gone, or none of the phrases). */
  private scoreText(s: OrgLists, id: number, phrases: readonly Phrase[], avgdl: number): number {
    const row = this.rowTerms(s, id);
    if (!row) return 0;
    let score = 0.0;
    for (const p of phrases) score += fts5Part(p.idf, row.wtf.get(p.token) ?? 0, row.D, avgdl);
    return score;
  }


  /** The `k` touched rows of highest score, best first (ties in no particular order). */
  best(acc: Float64Array, touched: Int32Array, n: number, k: number): number[] {
    const top = new TopRows(acc, k);
    for (let i = 0; i < n; i++) {
      const id = touched[i];
      // touched rows are distinct
      if (top.admits(acc[id])) top.enter(id);
    }
    return top.best();
  }

  /** The `k` rows of highest score among `rows` and the lists' rows, each row once, best first. */
  private bestAmong(acc: Float64Array, rows: readonly number[], lists: readonly TermList[], k: number): number[] {
    const top = new TopRows(acc, k);
    for (const id of rows) top.offer(id);
    for (const list of lists) {
      const { ids, n } = list;
      for (let j = 0; j < n; j++) top.offer(ids[j]);
    }
    return top.best();
  }

  /** Whether the organization's lists are held: `open` then brings them up to date instead of starting them. */
  holds(name: string): boolean {
    return this.orgs.has(name);
  }

  /**
   * How many rows hold `token` now, from the count kept for it or its held list, where that is
   * exact: `s` was just opened (every row is in the lists) and no row changed under them since
   * they were read (a stale row may have lost or gained the token). Undefined otherwise.
   */
  heldRows(s: OrgLists, token: string): number | undefined {
    if (s.stale.size) return undefined;
    return s.df.get(token) ?? s.lists.get(token)?.n;
  }

  /** Keeps `rows`, FTS5's count of the rows holding `token` now, while `s` was just opened and has no stale row. */
  countRows(s: OrgLists, token: string, rows: number): void {
    if (s.stale.size) return;
    if (s.df.size >= FREQUENCIES_KEPT) s.df.clear();
    s.df.set(token, rows);
  }

  /** Reads `token`'s list ahead of the queries that will need it (`TermListWarmer`). */
  warm(s: OrgLists, token: string, df: number): void {
    this.list(s, token, df);
  }

  /** Whether warming should stop: the lists hold half their budget. */
  get halfFull(): boolean {
    return this.bytes >= this.options.budgetBytes / 2;
  }

  /** Zeroes the scores `accumulate` left, and trims the lists to the budget. */
  done(): void {
    const acc = this.acc;
    const touched = this.touchedIds;
    for (let i = 0; i < this.touchedN; i++) acc[touched[i]] = 0;
    this.touchedN = 0;
    for (const [key, e] of this.lru) {
      if (this.bytes <= this.options.budgetBytes) break;
      this.lru.delete(key);
      e.s.lists.delete(e.token);
      this.bytes -= e.bytes;
    }
    // then whole organizations (their row lengths), least recently queried first, but the last
    const names = [...this.orgs.keys()];
    for (let i = 0; i < names.length - 1 && this.bytes > this.options.budgetBytes; i++) this.forget(names[i]);
  }

  /** Zeroes every score, when scoring did not finish (an exception on the way). */
  reset(): void {
    this.acc.fill(0);
    this.touchedN = 0;
  }

  /** `df`: the rows holding the token now, as FTS5 counts them (a list read from its pages must hold as many) */
  private list(s: OrgLists, token: string, df: number): TermList | null {
    let list = s.lists.get(token);
    const key = `${s.name}\0${token}`;
    if (list) {
      const e = this.lru.get(key)!;
      this.lru.delete(key);
      this.lru.set(key, e);
      return list;
    }
    const built = this.read(s, token, df);
    if (!built) return null;
    list = built;
    s.lists.set(token, list);
    const bytes = list.ids.byteLength + list.wf.byteLength;
    this.lru.set(key, { s, token, bytes });
    this.bytes += bytes;
    return list;
  }

  private unlist(s: OrgLists, token: string): void {
    const key = `${s.name}\0${token}`;
    const e = this.lru.get(key);
    if (e) {
      this.lru.delete(key);
      this.bytes -= e.bytes;
    }
    s.lists.delete(token);
  }

  /**
   * A token's list from FTS5's index: decoded from its pages, or, where they cannot be read or
   * disagree with FTS5's own count of the token's rows, from the fts5vocab view.
   */
  private read(s: OrgLists, token: string, df: number): TermList | null {
    const got = df >= PAGES_MIN_ROWS ? s.st.doclists.read(token, s.upTo) : null;
    if (got && got.rows === df) {
      this.pageReads++;
      return got.list;
    }
    this.vocabReads++;
    return this.readInstances(s, token);
  }

  /** A token's list from the fts5vocab instance view: its occurrences in row order, summed per row by column weight. */
  private readInstances(s: OrgLists, token: string): TermList | null {
    const text = s.st.instances.get(token) ?? '';
    let ids: Uint32Array = new Uint32Array(64);
    let wf: Float32Array = new Float32Array(64);
    let n = 0;
    let id = 0;
    let last = -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) {
        id = id * 10 + (c - 48);
        continue;
      }
      if (c === 44) continue; // ','
      const w = this.weightOf[text[i]];
      if (w === undefined) return null;
      // rows added after `open` are appended at the next one
      if (id <= s.upTo) {
        if (id === last) wf[n - 1] += w;
        else {
          if (n === ids.length) [ids, wf] = [grownArray(ids, 2 * n), grownArray(wf, 2 * n)];
          ids[n] = id;
          wf[n++] = w;
          last = id;
        }
      }
      id = 0;
    }
    return { ids: ids.slice(0, n), wf: wf.slice(0, n), n };
  }

  private growDl(s: OrgLists, max: number): void {
    if (s.dl.length > max) return;
    const dl = new Uint32Array(Math.max(max + 1, Math.ceil(s.dl.length * 1.5)));
    dl.set(s.dl);
    this.bytes += dl.byteLength - s.dl.byteLength;
    s.dl = dl;
    if (s.staleMask) {
      const mask = new Uint8Array(dl.length);
      mask.set(s.staleMask);
      this.bytes += mask.byteLength - s.staleMask.byteLength;
      s.staleMask = mask;
    }
  }

  /** Token counts of the rows in (from, to], from `_docsize`. */
  private readSizes(s: OrgLists, from: number, to: number): void {
    const got = s.st.sizes.get(from, to);
    if (!got?.n || !got.records) return;
    if (!sizesInto(s.dl, got.lo!, got.ids, got.n, this.columns.length, got.records)) throw new Error('term lists: a _docsize record does not hold one varint per column');
  }

  /** Rows in (from, to]: tokenized as FTS5 did (`DocAnalyzer`), into the lists kept and `dl`. */
  private appendRows(s: OrgLists, from: number, to: number): void {
    const rows = s.st.rows.all(from, to);
    for (const r of rows) {
      const sizes = r.sz ? decodeDocSize(r.sz, this.columns.length) : undefined;
      const { wtf, sizes: made } = this.analyzer.analyze([r.c0 ?? '', r.c1 ?? '', r.c2 ?? ''], sizes);
      s.dl[r.id] = sizes ? sum(sizes) : sum(made);
      for (const [token, f] of wtf) {
        const counted = s.df.get(token);
        if (counted !== undefined) s.df.set(token, counted + 1);
        const list = s.lists.get(token);
        if (!list) continue;
        if (list.n === list.ids.length) {
          const e = this.lru.get(`${s.name}\0${token}`)!;
          const size = Math.max(16, 2 * list.n);
          list.ids = grownArray(list.ids, size);
          list.wf = grownArray(list.wf, size);
          const bytes = list.ids.byteLength + list.wf.byteLength;
          this.bytes += bytes - e.bytes;
          e.bytes = bytes;
        }
        list.ids[list.n] = r.id;
        list.wf[list.n++] = f;
      }
    }
  }

  private statements(t: ListTables): ListStatements {
    const inst = `temp.${t.fts}_instances`;
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${inst} USING fts5vocab(main, ${t.fts}, 'instance')`);
    return {
      maxId: this.db.prepare<[], number | null>(`SELECT max(id) FROM ${t.docs}`).pluck(),
      // the ordered subquery is the rowid range scan itself (no sort), ~40 % cheaper than
      // group_concat's own ORDER BY; both aggregates take its rows in the same order
      sizes: this.db.prepare(
        `SELECT count(*) AS n, min(id) AS lo, CASE WHEN max(id) - min(id) + 1 = count(*) THEN NULL ELSE group_concat(id) END AS ids,
                CAST(group_concat(sz, x'') AS BLOB) AS records
         FROM (SELECT id, sz FROM ${t.fts}_docsize WHERE id > ? AND id <= ? ORDER BY id)`,
      ),
      rows: this.db.prepare(`SELECT c.id, c.c0, c.c1, c.c2, z.sz FROM ${t.fts}_content c LEFT JOIN ${t.fts}_docsize z ON z.id = c.id WHERE c.id > ? AND c.id <= ? ORDER BY c.id`),
      row: this.db.prepare(`SELECT c.c0, c.c1, c.c2, z.sz FROM ${t.fts}_content c LEFT JOIN ${t.fts}_docsize z ON z.id = c.id WHERE c.id = ?`),
      instances: this.db.prepare<[string], string | null>(`SELECT group_concat(doc || substr(col, 1, 1), ',') FROM ${inst} WHERE term = ?`).pluck(),
      doclists: new Fts5Doclists(this.db, t.fts, this.columns.map((_, i) => BM25_COLUMN_WEIGHTS[i] ?? 1)),
    };
  }
}

/**
 * Writes into `dl` the token count of each of `n` rows from their `_docsize` records laid end to
 * end in `records` (FTS5 writes one varint per column): the rows are `lo`, `lo + 1`, … or, when
 * `ids` is given, its comma-separated ids. False when the records do not split so.
 */
function sizesInto(dl: Uint32Array, lo: number, ids: string | null, n: number, columns: number, records: Uint8Array): boolean {
  const r = new VarintCursor(records, 0);
  let at = 0;
  for (let k = 0; k < n; k++) {
    let id = lo + k;
    if (ids !== null) {
      id = 0;
      for (let c = ids.charCodeAt(at); at < ids.length && c !== 44; c = ids.charCodeAt(++at)) id = id * 10 + (c - 48);
      at++; // ','
    }
    let total = 0;
    for (let c = 0; c < columns; c++) {
      if (r.pos >= records.length) return false;
      total += r.next();
    }
    dl[id] = total;
  }
  return r.pos === records.length;
}

/** Every TermLists by the connection it reads (see `TermLists.changed`). */
const CONNECTIONS = new WeakMap<Database, Set<WeakRef<TermLists>>>();

/** The rows `accumulate` scores: their ids, their scores in `acc` by id. */
export interface Scores {
  acc: Float64Array;
  ids: Int32Array;
  n: number;
}

/**
 * Relative slack for sums taken in another order than bm25()'s: a few ulps each way at most,
 * far under this, so a row is never left out for rounding.
 */
const ROUNDING = 1e-9;

/** A query's word: its FTS5 token, IDF and the rows holding it. */
export interface Phrase {
  token: string;
  idf: number;
  df: number;
}

/**
 * A candidate's frequency found by binary search in one list costs about this many times what
 * adding one row of a held list to the scores costs (~40 ns against ~4 ns, 100,000 mail rows).
 */
const SEARCH_VS_ADD = 10;
/**
 * What reading a list left unread costs, against scoring the candidates from their text
 * instead (100,000 mail rows, warm): a list ~0.2 ms to find plus ~0.1 µs a row decoded from
 * FTS5's pages (~0.35 through the vocab view, under PAGES_MIN_ROWS rows); a row's text ~2.5 µs
 * a token to read and tokenize (~120 µs for a row of 48 tokens, 0.4 ms for the long rows that
 * match several words of a query).
 */
const LIST_READ_US = 200;
const PAGE_ROW_US = 0.1;
const VOCAB_ROW_US = 0.35;
const TEXT_TOKEN_US = 2.5;
/**
 * A word MaxScore left unread before is read when it comes back, if its lists (with the others
 * left unread) hold at most this many rows (~25 ms); longer ones wait for warming.
 */
const READ_ON_RETURN = 50_000;
/** Tokens remembered as left unread once, per organization (then forgotten together). */
const SKIPPED_WORDS = 10_000;
/** Words whose document frequencies are kept, per organization (then forgotten together): here (`OrgLists.df`) and in the text index's own cache. */
export const FREQUENCIES_KEPT = 10_000;

/** Orders `ids[0, n)` as a binary max-heap by `acc[id]`. */
function heapify(ids: Int32Array, n: number, acc: Float64Array): void {
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(ids, n, acc, i);
}

function siftDown(ids: Int32Array, n: number, acc: Float64Array, at: number): void {
  const id = ids[at];
  const v = acc[id];
  let c = at;
  for (;;) {
    const l = 2 * c + 1;
    if (l >= n) break;
    const r = l + 1;
    const m = r < n && acc[ids[r]] > acc[ids[l]] ? r : l;
    if (acc[ids[m]] <= v) break;
    ids[c] = ids[m];
    c = m;
  }
  ids[c] = id;
}

/** The `k`-th highest of `scores` and `extra`'s (0 when fewer). */
function kthOf(scores: number[], extra: Map<number, number>, k: number): number {
  for (const v of extra.values()) scores.push(v);
  scores.sort((a, b) => b - a);
  return scores[k - 1] ?? 0;
}

/** The `k` rows of highest score in `acc` among those offered, a row offered twice counted once. */
class TopRows {
  /** a min-heap of row ids by score */
  private readonly heap: number[] = [];
  /** the rows in `heap` (looked up only for a row about to enter) */
  private readonly kept = new Set<number>();

  constructor(
    private readonly acc: Float64Array,
    private readonly k: number,
  ) {}

  /** Whether a row scoring `v` would enter. */
  admits(v: number): boolean {
    return v > 0 && (this.heap.length < this.k || v > this.acc[this.heap[0]]);
  }

  /** Offers a row that may have been offered before. */
  offer(id: number): void {
    if (!this.admits(this.acc[id]) || this.kept.has(id)) return;
    this.kept.add(id);
    this.enter(id);
  }

  /** Adds a row `admits` let in, not kept already. */
  enter(id: number): void {
    const { acc, heap, k } = this;
    const v = acc[id];
    if (heap.length < k) {
      heap.push(id);
      let c = heap.length - 1;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (acc[heap[p]] <= v) break;
        heap[c] = heap[p];
        c = p;
      }
      heap[c] = id;
      return;
    }
    this.kept.delete(heap[0]);
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= k) break;
      const r = l + 1;
      const m = r < k && acc[heap[r]] < acc[heap[l]] ? r : l;
      if (acc[heap[m]] >= v) break;
      heap[c] = heap[m];
      c = m;
    }
    heap[c] = id;
  }

  /** The rows kept, best first (ties in no particular order). */
  best(): number[] {
    const acc = this.acc;
    return this.heap.sort((a, b) => acc[b] - acc[a]);
  }
}

/** The `size` highest scores added so far, their lowest first at hand. */
class MinScores {
  private readonly heap: number[] = [];
  constructor(private readonly size: number) {}
  get full(): boolean {
    return this.heap.length >= this.size;
  }
  get min(): number {
    return this.heap[0];
  }
  add(v: number): void {
    const h = this.heap;
    if (h.length < this.size) {
      h.push(v);
      for (let c = h.length - 1; c > 0; ) {
        const p = (c - 1) >> 1;
        if (h[p] <= h[c]) break;
        [h[p], h[c]] = [h[c], h[p]];
        c = p;
      }
    } else if (v > h[0]) {
      h[0] = v;
      for (let c = 0; ; ) {
        const l = 2 * c + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const m = r < h.length && h[r] < h[l] ? r : l;
        if (h[m] >= h[c]) break;
        [h[m], h[c]] = [h[c], h[m]];
        c = m;
      }
    }
  }
}

/** Rows appended at a query before the lists are rather read again (also at most 1/8 of those kept). */
const APPEND_ROWS = 4096;

/** A row's weighted frequency in a list (0 when it is not there): binary search, ids ascending. */
function frequencyIn(list: TermList, id: number): number {
  const ids = list.ids;
  let lo = 0;
  let hi = list.n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === id) return list.wf[mid];
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

function sum(xs: readonly number[]): number {
  let t = 0;
  for (const x of xs) t += x;
  return t;
}
