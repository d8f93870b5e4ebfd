import type { Database, Statement } from 'better-sqlite3';
import { queryTerms } from '../analysis/text-analysis';
import type { TextDocument, TextHit, TextIndex, TextQuery } from '../text-index.port';

/** Column weights for bm25(): label, summary, body. */
const BM25_WEIGHTS = '10.0, 4.0, 1.0';
/** Upper bound on one result page whatever the caller asks (REFERENCE §1.13 clamps at 1000). */
const MAX_LIMIT = 10_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS text_docs (
  id        INTEGER PRIMARY KEY,
  org       TEXT NOT NULL,
  uid       TEXT NOT NULL,
  node_type TEXT NOT NULL,
  layer     TEXT NOT NULL,
  UNIQUE (org, uid)
);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts USING fts5(
  label, summary, body,
  tokenize = 'porter unicode61 remove_diacritics 2',
  content = '', contentless_delete = 1
);
CREATE VIRTUAL TABLE IF NOT EXISTS text_fts_vocab USING fts5vocab(text_fts, 'row');
`;

// A scratch FTS5 table with the same tokenizer, used to learn exactly which token(s) FTS5
// makes of a query term (so document-frequency look-ups never depend on our own stemmer).
const SCRATCH = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_tokenizer USING fts5(
  x, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_tokenizer_vocab USING fts5vocab(temp, text_tokenizer, 'row');
`;

interface FilterShape {
  types: boolean;
  exclude: boolean;
  layer: boolean;
  uids: boolean;
}

interface TermStat {
  term: string;
  /** rows containing the term; null when FTS5 makes more than one token of it */
  df: number | null;
}

type RankedRow = { uid: string; rank: number };

/** FTS5's bm25 k1; a term adds at most idf·(k1+1) to a score. */
const K1_PLUS_1 = 2.2;

export interface SqliteTextIndexOptions {
  /**
   * Query planning knob: the rarest terms, matching at most this many rows together, are
   * scored on every candidate; the rest only through the MaxScore bound. Default 5000.
   */
  essentialDfBudget?: number;
}

/**
 * Full-text index in SQLite FTS5, living in the projections database so the graph projection
 * and the text index commit in one transaction (the caller owns the handle and its
 * transactions; every write here nests as a savepoint when a transaction is already open).
 *
 * Layout: `text_docs` holds org/uid/node_type/layer per row; `text_fts` is contentless (the
 * text already lives in the graph read model) and shares its rowid. Queries walk FTS matches
 * and keep those whose `text_docs` row is in the organization. (An org token inside the FTS
 * row was tried: bm25() then computes that token's IDF over the whole org on every query,
 * a fixed ~3 ms at 100k rows, more than the cross-org rows it saves in practice.)
 * BM25 statistics (N, document frequency) are therefore global, as in Meilisearch.
 */
export class SqliteTextIndex implements TextIndex {
  private readonly stmts: {
    findId: Statement<[string, string], { id: number }>;
    insertDoc: Statement<[string, string, string, string]>;
    updateDoc: Statement<[string, string, number]>;
    deleteDoc: Statement<[number]>;
    insertFts: Statement<[number, string, string, string]>;
    deleteFts: Statement<[number]>;
    orgIds: Statement<[string], { id: number }>;
    deleteOrgDocs: Statement<[string]>;
    count: Statement<[string], { n: number }>;
    maxId: Statement<[], { n: number | null }>;
    docFreq: Statement<[string], { doc: number }>;
    scratchInsert: Statement<[string]>;
    scratchTokens: Statement<[], { term: string }>;
    scratchClear: Statement<[]>;
  };
  private readonly tokenCache = new Map<string, string[]>();
  private readonly searchStmts = new Map<string, Statement>();
  private readonly upsertTx: (docs: TextDocument[]) => void;
  private readonly removeTx: (org: string, uids: string[]) => void;
  private readonly removeOrgTx: (org: string) => void;

  private readonly essentialDfBudget: number;

  constructor(
    private readonly db: Database,
    options: SqliteTextIndexOptions = {},
  ) {
    this.essentialDfBudget = options.essentialDfBudget ?? 5_000;
    db.exec(SCHEMA);
    db.exec(SCRATCH);
    this.stmts = {
      findId: db.prepare('SELECT id FROM text_docs WHERE org = ? AND uid = ?'),
      insertDoc: db.prepare('INSERT INTO text_docs (org, uid, node_type, layer) VALUES (?, ?, ?, ?)'),
      updateDoc: db.prepare('UPDATE text_docs SET node_type = ?, layer = ? WHERE id = ?'),
      deleteDoc: db.prepare('DELETE FROM text_docs WHERE id = ?'),
      insertFts: db.prepare('INSERT INTO text_fts (rowid, label, summary, body) VALUES (?, ?, ?, ?)'),
      deleteFts: db.prepare('DELETE FROM text_fts WHERE rowid = ?'),
      orgIds: db.prepare('SELECT id FROM text_docs WHERE org = ?'),
      deleteOrgDocs: db.prepare('DELETE FROM text_docs WHERE org = ?'),
      count: db.prepare('SELECT count(*) AS n FROM text_docs WHERE org = ?'),
      maxId: db.prepare('SELECT max(id) AS n FROM text_docs'),
      docFreq: db.prepare('SELECT doc FROM text_fts_vocab WHERE term = ?'),
      scratchInsert: db.prepare('INSERT INTO temp.text_tokenizer (rowid, x) VALUES (1, ?)'),
      scratchTokens: db.prepare('SELECT term FROM temp.text_tokenizer_vocab'),
      scratchClear: db.prepare('DELETE FROM temp.text_tokenizer'),
    };
    this.upsertTx = db.transaction((docs: TextDocument[]) => {
      for (const doc of docs) this.upsertOne(doc);
    });
    this.removeTx = db.transaction((org: string, uids: string[]) => this.removeRows(org, uids));
    this.removeOrgTx = db.transaction((org: string) => {
      for (const row of this.stmts.orgIds.all(org)) this.stmts.deleteFts.run(row.id);
      this.stmts.deleteOrgDocs.run(org);
    });
  }

  // ---- synchronous API (embedded hot path: runs inside the projection's transaction) ----

  // Inside the caller's transaction (the projection runner's) the loops run directly: a
  // nested savepoint per call would make FTS5 flush its pending terms every time.
  upsertSync(docs: TextDocument[]): void {
    if (!docs.length) return;
    if (this.db.inTransaction) for (const doc of docs) this.upsertOne(doc);
    else this.upsertTx(docs);
  }

  removeSync(org: string, uids: string[]): void {
    if (!uids.length) return;
    if (this.db.inTransaction) this.removeRows(org, uids);
    else this.removeTx(org, uids);
  }

  removeOrgSync(org: string): void {
    this.removeOrgTx(org);
  }

  /** Empties the whole index, every organization (projection rebuild). */
  clearSync(): void {
    this.db.transaction(() => {
      this.db.prepare("INSERT INTO text_fts (text_fts) VALUES ('delete-all')").run();
      this.db.prepare('DELETE FROM text_docs').run();
    })();
  }

  countSync(org: string): number {
    return this.stmts.count.get(org)?.n ?? 0;
  }

  searchSync(q: TextQuery): TextHit[] {
    const limit = Math.min(Math.floor(q.limit), MAX_LIMIT);
    if (!(limit > 0)) return [];
    // An empty uid scope matches nothing; an empty node_types list is no filter.
    if (q.uids && q.uids.length === 0) return [];
    const terms = queryTerms(q.query ?? '');
    if (terms.length === 0) return [];

    const shape: FilterShape = {
      types: !!q.node_types?.length,
      exclude: !!q.exclude_node_types?.length,
      layer: q.layer !== undefined && q.layer !== null,
      uids: !!q.uids,
    };
    const filterParams: unknown[] = [q.org];
    if (shape.types) filterParams.push(JSON.stringify(q.node_types));
    if (shape.exclude) filterParams.push(JSON.stringify(q.exclude_node_types));
    if (shape.layer) filterParams.push(q.layer);
    if (shape.uids) filterParams.push(JSON.stringify(q.uids));
    const rows = this.rankedRows(terms, shape, filterParams, limit);

    const hits: TextHit[] = [];
    for (const row of rows) {
      // bm25() is "lower is better" and negative; the port wants higher-is-better.
      const score = -row.rank;
      if (q.min_score !== undefined && q.min_score !== null && score < q.min_score) break;
      hits.push({ uid: row.uid, score });
    }
    return hits;
  }

  // ---- port ----

  async upsert(docs: TextDocument[]): Promise<void> {
    this.upsertSync(docs);
  }

  async remove(org: string, uids: string[]): Promise<void> {
    this.removeSync(org, uids);
  }

  async removeOrg(org: string): Promise<void> {
    this.removeOrgSync(org);
  }

  async search(q: TextQuery): Promise<TextHit[]> {
    return this.searchSync(q);
  }

  async count(org: string): Promise<number> {
    return this.countSync(org);
  }

  /** The database handle belongs to the caller (the projections module), so it stays open. */
  async close(): Promise<void> {
    this.searchStmts.clear();
  }

  // ---- internals ----

  private removeRows(org: string, uids: string[]): void {
    for (const uid of uids) {
      const row = this.stmts.findId.get(org, uid);
      if (!row) continue;
      this.stmts.deleteFts.run(row.id);
      this.stmts.deleteDoc.run(row.id);
    }
  }

  private upsertOne(doc: TextDocument): void {
    const existing = this.stmts.findId.get(doc.org, doc.uid);
    let id: number;
    if (existing) {
      id = existing.id;
      this.stmts.updateDoc.run(doc.node_type, doc.layer, id);
      this.stmts.deleteFts.run(id);
    } else {
      id = Number(this.stmts.insertDoc.run(doc.org, doc.uid, doc.node_type, doc.layer).lastInsertRowid);
    }
    this.stmts.insertFts.run(id, doc.label ?? '', doc.summary ?? '', doc.body ?? '');
  }

  /**
   * `"t1" OR "t2" …`. Every user term is a quoted phrase made only of letters/digits/marks,
   * so no FTS5 operator or column filter can be smuggled in.
   */
  private matchExpression(terms: string[]): string {
    return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  }

  /**
   * Exact BM25 top-`limit`, planned to avoid scoring every row of a common term. bm25() costs
   * ~0.6 µs per matching row, so a term in 30% of 100k rows costs ~20 ms however few hits
   * are wanted. Two exact short-cuts, each falling back to the plain query when it cannot
   * prove its answer:
   *
   * 1. FTS5 floors the IDF of a term in ≥ half of all rows at 1e-6, so it adds ≤ 2.2e-6 to a
   *    score: with other terms present it is left out (unless the page comes back short).
   * 2. MaxScore: the rarest terms are "essential". Every candidate row matching one of them
   *    is scored with the whole query (the others are only walked, not scored). A row matching
   *    none of them scores at most Σ idf·(k1+1) over the other terms; when the page is full
   *    and its last score beats that bound, no other row can enter the page.
   */
  private rankedRows(terms: string[], shape: FilterShape, filterParams: unknown[], limit: number): RankedRow[] {
    const plain = this.searchStatement(shape, false);
    const run = (ts: TermStat[]) =>
      plain.all(this.matchExpression(ts.map((t) => t.term)), ...filterParams, limit) as RankedRow[];
    if (terms.length === 1) return run([{ term: terms[0], df: null }]);

    // max(id) ≥ row count N; the IDF bound grows with N, so this only ever loosens bounds.
    const rowsUpperBound = this.stmts.maxId.get()?.n ?? 0;
    if (rowsUpperBound === 0) return [];
    const stats: TermStat[] = terms.map((term) => {
      const tokens = this.ftsTokens(term);
      return { term, df: tokens.length === 1 ? (this.stmts.docFreq.get(tokens[0])?.doc ?? 0) : null };
    });

    const floorIdf = (t: TermStat) => t.df !== null && t.df * 2 >= rowsUpperBound;
    let scoring = stats.filter((t) => !floorIdf(t));
    if (scoring.length === 0) scoring = stats;

    // rarest first; multi-token terms (unknown df) are always essential
    const sorted = [...scoring].sort((a, b) => (a.df ?? -1) - (b.df ?? -1));
    const essential: TermStat[] = [];
    let budget = 0;
    for (const t of sorted) {
      if (essential.length && (t.df === null ? 0 : budget + t.df) > this.essentialDfBudget) break;
      essential.push(t);
      budget += t.df ?? 0;
    }

    let rows: RankedRow[] | undefined;
    if (essential.length < sorted.length) {
      const others = sorted.slice(essential.length);
      let bound = 0;
      for (const t of others) {
        const df = t.df ?? 0;
        bound += K1_PLUS_1 * Math.max(1e-6, Math.log((rowsUpperBound - df + 0.5) / (df + 0.5)));
      }
      const restricted = this.searchStatement(shape, true).all(
        this.matchExpression(scoring.map((t) => t.term)),
        this.matchExpression(essential.map((t) => t.term)),
        ...filterParams,
        limit,
      ) as RankedRow[];
      const last = restricted[limit - 1];
      if (last && -last.rank > bound * (1 + 1e-9) + 1e-12) rows = restricted;
    }
    rows ??= run(scoring);
    // Floor-IDF terms can still fill a short page with near-zero hits.
    if (scoring.length < stats.length && rows.length < limit) rows = run(stats);
    return rows;
  }

  /** The tokens FTS5 itself makes of `term` (cached). */
  private ftsTokens(term: string): string[] {
    let tokens = this.tokenCache.get(term);
    if (!tokens) {
      this.stmts.scratchInsert.run(term);
      tokens = this.stmts.scratchTokens.all().map((r) => r.term);
      this.stmts.scratchClear.run();
      if (this.tokenCache.size > 10_000) this.tokenCache.clear();
      this.tokenCache.set(term, tokens);
    }
    return tokens;
  }

  private searchStatement(shape: FilterShape, restricted: boolean): Statement {
    const key = `${+shape.types}${+shape.exclude}${+shape.layer}${+shape.uids}${+restricted}`;
    let stmt = this.searchStmts.get(key);
    if (!stmt) {
      const where = ['text_fts MATCH ?'];
      // `+rowid` keeps this a filter on the walk rather than one FTS5 query per rowid (which
      // would recompute every IDF per row); bm25() then runs only on rows that pass.
      if (restricted) where.push('+text_fts.rowid IN (SELECT rowid FROM text_fts WHERE text_fts MATCH ?)');
      where.push('d.org = ?');
      if (shape.types) where.push('d.node_type IN (SELECT value FROM json_each(?))');
      if (shape.exclude) where.push('d.node_type NOT IN (SELECT value FROM json_each(?))');
      if (shape.layer) where.push('d.layer = ?');
      if (shape.uids) where.push('d.uid IN (SELECT value FROM json_each(?))');
      // CROSS JOIN pins FTS as the outer loop: we walk matches, never the whole org.
      stmt = this.db.prepare(
        `SELECT d.uid AS uid, bm25(text_fts, ${BM25_WEIGHTS}) AS rank
           FROM text_fts CROSS JOIN text_docs d ON d.id = text_fts.rowid
          WHERE ${where.join(' AND ')}
          ORDER BY rank, d.uid
          LIMIT ?`,
      );
      this.searchStmts.set(key, stmt);
    }
    return stmt;
  }
}
