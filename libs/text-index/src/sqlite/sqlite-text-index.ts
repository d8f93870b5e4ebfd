import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { queryTerms } from '../analysis/text-analysis';
import { DEFAULT_SALIENCE, type SalienceChange, type TextDocument, type TextHit, type TextIndex, type TextQuery } from '../text-index.port';
import { decodeDocSize, decodeFts5Averages } from './fts5-averages';
import { BM25_COLUMN_WEIGHTS, fts5Bm25, fts5Idf } from './fts5-bm25';
import { TermListWarmer, type WarmState } from './term-list-warmer';
import { FREQUENCIES_KEPT, TermLists, type OrgLists } from './term-lists';
import { compareCodePoints, DocAnalyzer, mergeTable, oldPostingsTable, Postings, postingsDdl, postingsTable, segmentsTable, topByPostings, type RowFacts } from './text-postings';

/** Column weights for bm25(): label, summary, body. */
const BM25_WEIGHTS = BM25_COLUMN_WEIGHTS.map((w) => w.toFixed(1)).join(', ');
/** SQLite's LIMIT is a 64-bit integer; callers asking for more simply get every match. */
const MAX_LIMIT = 2 ** 31 - 1;
const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;
/** The FTS5 columns, in table order. */
export const TEXT_FTS_COLUMNS = ['label', 'summary', 'body'] as const;

/** Which organization's rows live in which tables (see the class comment). */
const CATALOGUE = `
CREATE TABLE IF NOT EXISTS text_orgs (
  org  TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
) WITHOUT ROWID;
`;

/**
 * Names of one organization's tables. `name` is 16 hex digits of SHA-256(org) (plus `_<n>`
 * in the unlikely event that another organization holds them already), so any org id makes a
 * safe identifier and a replay of the log gives every organization the same names.
 */
export const TEXT_ORG_TABLE_RE = /^text_(docs|fts|vocab|post)_[0-9a-f]{16}(_[0-9]+)?$/;
/** An organization's postings and their segments (`text-postings.ts`), named as FTS5's shadow tables. */
export const TEXT_POSTINGS_TABLE_RE = /^text_fts_([0-9a-f]{16}(?:_[0-9]+)?)_(post|segs|merge)$/;
const docsTable = (name: string) => `text_docs_${name}`;
const ftsTable = (name: string) => `text_fts_${name}`;
const vocabTable = (name: string) => `text_vocab_${name}`;

/**
 * The docs table's index in the tie-break order (salience, then uid): rows that tie on score
 * are read from it in page order instead of being sorted.
 */
const salienceIndexDdl = (docs: string) => `CREATE INDEX IF NOT EXISTS ${docs}_by_salience ON ${docs} (salience DESC, uid)`;

function orgTablesDdl(name: string): string {
  return `
CREATE TABLE ${docsTable(name)} (
  id        INTEGER PRIMARY KEY,
  uid       TEXT NOT NULL UNIQUE,
  node_type TEXT NOT NULL,
  layer     TEXT NOT NULL,
  salience  REAL NOT NULL DEFAULT ${DEFAULT_SALIENCE}
);
${salienceIndexDdl(docsTable(name))};
${typeIndexDdl(docsTable(name))};
CREATE VIRTUAL TABLE ${ftsTable(name)} USING fts5(${TEXT_FTS_COLUMNS.join(', ')}, ${TOKENIZE});
CREATE VIRTUAL TABLE ${vocabTable(name)} USING fts5vocab(${ftsTable(name)}, 'row');
`;
}

/**
 * The layout of text projection version 1: one FTS5 table for every organization, so BM25
 * statistics mixed organizations. The code of version 2 drops it on reset (the rebuild that
 * the version bump starts) and meanwhile only reads it, for organizations not written since.
 */
const LEGACY = { docs: 'text_docs', fts: 'text_fts', vocab: 'text_fts_vocab' };

// A scratch FTS5 table with the same tokenizer, used to learn exactly which token(s) FTS5
// makes of a query term (so document-frequency look-ups never depend on our own stemmer).
const SCRATCH = `
CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_tokenizer USING fts5(x, ${TOKENIZE});
CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_tokenizer_vocab USING fts5vocab(temp, text_tokenizer, 'row');
`;

/**
 * Organizations whose prepared statements are kept (least recently used ones are dropped; a
 * miss costs a few prepares, well under a millisecond).
 */
const CACHED_ORGS = 64;

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

/** `salience`: the row's, as the order broke ties with it (tables made before the column: the default) */
type RankedRow = { id: number; uid: string; rank: number; salience: number };

/** FTS5's bm25 k1; a term adds at most idf·(k1+1) to a score. */
const K1_PLUS_1 = 2.2;
/**
 * Scored terms matching more rows than this together are ranked from the postings (which stop
 * early); fewer, FTS5 scores them all faster than the postings are read.
 */
const POSTINGS_MIN_ROWS = 2_000;
/**
 * Queries whose terms match fewer rows together are scored by FTS5 (see `topFromLists`). None by
 * default: even a rare term's page can end in a tie (copies of one text), which the lists settle
 * by looking up the tied rows and FTS5 by walking rows in salience order.
 */
const TERM_LISTS_MIN_ROWS = 0;
const TERM_LISTS_BYTES = 256 * 1024 * 1024;
const TERM_LISTS_STALE_ROWS = 1024;
/** Vocabulary terms a warming step scans. */
const WARM_SCAN = 500;
/** Words in fewer rows than this are read when a query asks (under a millisecond). */
const WARM_MIN_ROWS = 1000;
/**
 * Words in more rows than this are not warmed: reading one would hold the event loop ~50 ms
 * and more, and MaxScore mostly leaves such lists unread.
 */
const WARM_MAX_ROWS = 100_000;
/** Rows a filtered query looks up before the statements answer instead. */
const TERM_LISTS_MAX_LOOKUPS = 4096;

/** The query's filters, applied to a row's facts (the postings path filters in JavaScript). */
interface RowFilter {
  types?: Set<string>;
  exclude?: Set<string>;
  layer?: string;
}

const isFiltered = (filter: RowFilter) => !!filter.types || !!filter.exclude || filter.layer !== undefined;

/** Whether a row of these facts passes the query's type and layer filter. */
const rowAccepted = (filter: RowFilter, r: { node_type: string; layer: string }) =>
  (!filter.types || filter.types.has(r.node_type)) && (!filter.exclude || !filter.exclude.has(r.node_type)) && (filter.layer === undefined || r.layer === filter.layer);

/** Statements writing one organization's tables. */
interface OrgWrites {
  findDoc: Statement<[string], { id: number; node_type: string; layer: string; salience: number }>;
  /** the text as indexed (all null in a version-2 contentless table, which keeps none) */
  indexedText: Statement<[number], { label: string | null; summary: string | null; body: string | null }>;
  insertDoc: Statement<[string, string, string, number]>;
  insertDocAt: Statement<[number, string, string, string, number]>;
  /** the largest row id in the docs table or in any postings segment */
  maxId: Statement<[], number>;
  updateDoc: Statement<[string, string, number, number]>;
  setSalience: Statement<[number, string]>;
  deleteDoc: Statement<[number]>;
  insertFts: Statement<[number, string, string, string]>;
  deleteFts: Statement<[number]>;
  /** FTS5's token count per column for a row (varints) */
  docSize: Statement<[number], Buffer | undefined>;
  count: Statement<[], { n: number }>;
}

/** One organization's tables (or the version-1 shared ones) and statements on them. */
interface OrgTables {
  /** the table name suffix (empty for the version-1 tables) */
  name: string;
  docs: string;
  fts: string;
  vocab: string;
  /** the version-1 shared tables, whose rows carry their org: read-only, no planning */
  legacy: boolean;
  /**
   * Whether the docs table has its salience column (tables made before it ordered ties by uid
   * alone; the first write through this code adds the column, the rebuild fills it).
   */
  salience: boolean;
  /** prepared on first use (never for the version-1 tables) */
  w?: OrgWrites;
  averages?: Statement<[], Buffer | undefined>;
  docFreq?: Statement<[string], { doc: number }>;
  /** document frequencies by FTS5 token, valid while the database is at `version` (see `docFreqReader`) */
  dfCache?: { version: string; df: Map<string, number> };
  search: Map<string, Statement>;
  /** whether the postings table exists (organizations made before it have none until a rebuild) */
  postings?: boolean;
  facts?: Statement<[number], RowFacts>;
  /** the facts of a list of row ids, given as JSON (`pageFromScores`) */
  factsOf?: Statement<[string], RowFacts & { id: number }>;
  /** the type walk's statements (`topByType`); null when the FTS5 table keeps no text */
  typed?: { count: Statement<[string, number], number>; rows: Statement<[string], TypedRow> } | null;
  /** the unfiltered query's best rows by rank alone (`plainTop`) */
  byRank?: Statement<[string, number], { id: number; rank: number }>;
  /** the walk for a page-end tie (`tiedRows`) */
  tieWalk?: Statement<[number], TypedRow>;
  /** a slice of the vocabulary in term order (`warmStep`) */
  vocabSlice?: Statement<[string], { term: string; doc: number }>;
}

/** A row of the node types a query is filtered to, with the text FTS5 indexed for it. */
interface TypedRow {
  id: number;
  uid: string;
  salience: number;
  node_type: string;
  layer: string;
  c0: string | null;
  c1: string | null;
  c2: string | null;
  sz: Buffer | null;
}

/**
 * A node-type filter whose types hold at most 1/TYPE_WALK_RATIO of the rows the query's terms
 * match is ranked from the type's rows (`topByType`). The statements reject a row of another
 * type before bm25() (a join on the docs table, ~0.2 µs a match), while reading and tokenizing
 * a row of the type costs ~20 µs: measured in process on 30,000 mail rows, 1 % of them of the
 * type, the walk at 1/16 was 1.3× slower than the statements at p50; at 0.1 %, 4× faster.
 */
const TYPE_WALK_RATIO = 128;
/** The docs table's index by node type (the type walk reads a type's rows from it). */
const typeIndexDdl = (docs: string) => `CREATE INDEX IF NOT EXISTS ${docs}_by_type ON ${docs} (node_type)`;

export interface SqliteTextIndexOptions {
  /**
   * Query planning knob: the rarest terms, matching at most this many rows together, are
   * scored on every candidate; the rest only through the MaxScore bound. Default 5000.
   */
  essentialDfBudget?: number;
  /**
   * Scoring rule (see `rankedRows`): terms in at least half of the organization's rows, when
   * they match more than this many rows together, add nothing to scores. Default 5,000.
   */
  commonTermRows?: number;
  /**
   * Keep postings of our own beside FTS5 and rank from them when they can stop early
   * (`text-postings.ts`). Off by default (the service's STRATA_TEXT_POSTINGS): writing them costs
   * more than the queries gain yet (docs/search.md, "Postings of our own").
   */
  postings?: boolean;
  /** with `postings`: scored terms must match more rows than this together (default 2,000) */
  postingsMinRows?: number;
  /**
   * A node-type filter is ranked from its types' rows when they are at most 1/typeWalkRatio of
   * the rows the query's terms match (default 128; 0: whenever a type filter is given).
   */
  typeWalkRatio?: number;
  /** with `postings`: segments merged at a time (default MERGE_FACTOR; tests make it small) */
  postingsMergeFactor?: number;
  /** with `postings`: postings a merge step writes (default: in proportion to the unit of work; tests make it small) */
  postingsMergeStep?: number;
  /**
   * Rank from per-token lists read from FTS5's index and kept in memory between queries
   * (`term-lists.ts`; nothing is written for them). Default on.
   */
  termLists?: boolean;
  /** with `termLists`: the query's terms must match at least this many rows together (default 0) */
  termListsMinRows?: number;
  /** with `termLists`: bytes the lists of every organization may hold (default 256 MiB; the service's STRATA_TEXT_LISTS_MB) */
  termListsBytes?: number;
  /** with `termLists`: rows changed since an organization's lists were read before they are read again (default 1,024) */
  termListsStaleRows?: number;
  /**
   * with `termLists`: read the lists of each written organization's frequent words once the index
   * has been idle (no write, no query) this many milliseconds (`TermListWarmer`). Default: never
   * (the service sets it).
   */
  termListsWarmMs?: number;
}

/**
 * Full-text index in SQLite FTS5, living in the projections database so the graph projection
 * and the text index commit in one transaction (the caller owns the handle and its
 * transactions; a write joins the caller's transaction when one is open, else opens its own).
 *
 * Layout: one set of tables per organization, created by its first write and recorded in
 * `text_orgs` (org → table name suffix): `text_docs_<name>` (uid, node_type, layer per row),
 * `text_fts_<name>` (FTS5 sharing its rowid) and `text_vocab_<name>` (its fts5vocab, for
 * document frequencies). bm25() and the query planner's N and document frequencies therefore
 * come from the caller's organization alone: another organization's data can neither change a
 * score nor be inferred from one. A clear drops the organization's tables. The catalogue is
 * read on every call (one primary-key look-up) rather than cached, so rolled-back transactions
 * and a database swapped in under this handle (projection rebuilds) are always seen as they are.
 *
 * The FTS5 table keeps the text it indexed (in its own content table), so an update or delete
 * removes exactly that text and takes it out of the row count and token totals: scores depend
 * on the documents present, never on their edit history, and a rebuild from the log (which
 * never sees purged nodes) scores the same. A contentless_delete table, as version 2 made,
 * only marks a row deleted and keeps counting it; such tables take the same statements until
 * the rebuild started by the version bump is swapped in.
 */
export class SqliteTextIndex implements TextIndex {
  private readonly stmts: {
    orgName: Statement<[string], string>;
    nameTaken: Statement<[string], number>;
    insertOrg: Statement<[string, string]>;
    deleteOrg: Statement<[string]>;
    scratchInsert: Statement<[string]>;
    scratchTokens: Statement<[], { term: string }>;
    scratchClear: Statement<[]>;
    changeMarks: Statement<[], { committed: number; changes: number }>;
    totalChanges: Statement<[], number>;
  };
  private readonly tokenCache = new Map<string, string[]>();
  /**
   * Rows the FTS5 scratch table (tokenizing a query term) added to this handle's
   * total_changes(): temp-table writes that change no indexed row, so they must not drop the
   * document-frequency cache (a query with one new word did, for the next query).
   */
  private scratchChanges = 0;
  /** by table name suffix (statements name their tables, so they stay right for that name) */
  private readonly orgCache = new Map<string, OrgTables>();
  /** undefined: not looked for yet; null: gone (see `legacy`) */
  private legacyTables?: OrgTables | null;

  private readonly essentialDfBudget: number;
  private readonly commonTermRows: number;
  private readonly schemaVersion: Statement<[], number>;
  private readonly dataVersion: Statement<[], number>;
  private seenSchema = -1;
  private readonly postingsOn: boolean;
  /** Whether this index keeps postings of its own (`SqliteTextIndexOptions.postings`). */
  get postingsEnabled(): boolean {
    return this.postingsOn;
  }
  private readonly postingsMinRows: number;
  private readonly typeWalkRatio: number;
  private readonly analyzer: DocAnalyzer;
  private readonly postings: Postings;
  private readonly ln: Statement<[number], number>;
  private readonly termLists: TermLists | null;
  private readonly termListsMinRows: number;
  private readonly warmer: TermListWarmer | null;
  /**
   * The tables each organization written in the current unit of work resolved to: the
   * catalogue and the schema are read once per unit (`atomically`) rather than per write.
   */
  private readonly unitOrgs = new Map<string, OrgTables>();
  /** by table name suffix: the last row id handed out in the current unit of work (`newId`) */
  private readonly unitNextId = new Map<string, number>();
  /** by table name suffix: FTS5's averages record, read at every unit of work's flush and merge step */
  private readonly averagesReaders = new Map<string, Statement<[], Buffer | undefined>>();

  constructor(
    private readonly db: Database,
    options: SqliteTextIndexOptions = {},
  ) {
    this.essentialDfBudget = options.essentialDfBudget ?? 5_000;
    this.commonTermRows = options.commonTermRows ?? 5_000;
    // a data dir written without them answers through FTS5 until rebuilt: its posting counts never match
    this.postingsOn = options.postings ?? false;
    this.postingsMinRows = options.postingsMinRows ?? POSTINGS_MIN_ROWS;
    this.typeWalkRatio = options.typeWalkRatio ?? TYPE_WALK_RATIO;
    this.schemaVersion = db.prepare<[], number>('PRAGMA schema_version').pluck();
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    db.exec(CATALOGUE);
    db.exec(SCRATCH);
    this.migrateTables();
    this.analyzer = new DocAnalyzer(db);
    const averages = this.averagesReaders;
    this.postings = new Postings(db, (name) => {
      let read = averages.get(name);
      if (!read) averages.set(name, (read = db.prepare<[], Buffer | undefined>(`SELECT block FROM ${ftsTable(name)}_data WHERE id = 1`).pluck()));
      return averageLength(decodeFts5Averages(read.get(), TEXT_FTS_COLUMNS.length));
    }, options.postingsMergeFactor, options.postingsMergeStep);
    this.ln = db.prepare<[number], number>('SELECT ln(?)').pluck();
    this.termLists =
      options.termLists === false
        ? null
        : new TermLists(db, this.analyzer, TEXT_FTS_COLUMNS, {
            budgetBytes: options.termListsBytes ?? TERM_LISTS_BYTES,
            staleRows: options.termListsStaleRows ?? TERM_LISTS_STALE_ROWS,
          });
    this.termListsMinRows = options.termListsMinRows ?? TERM_LISTS_MIN_ROWS;
    this.warmer =
      this.termLists && options.termListsWarmMs
        ? new TermListWarmer({ busy: () => db.inTransaction, step: (org, state) => this.warmStep(org, state) }, options.termListsWarmMs)
        : null;
    this.stmts = {
      orgName: db.prepare<[string], string>('SELECT name FROM text_orgs WHERE org = ?').pluck(),
      nameTaken: db.prepare<[string], number>('SELECT 1 FROM text_orgs WHERE name = ?').pluck(),
      insertOrg: db.prepare('INSERT INTO text_orgs (org, name) VALUES (?, ?)'),
      deleteOrg: db.prepare('DELETE FROM text_orgs WHERE org = ?'),
      scratchInsert: db.prepare('INSERT INTO temp.text_tokenizer (rowid, x) VALUES (1, ?)'),
      scratchTokens: db.prepare('SELECT term FROM temp.text_tokenizer_vocab'),
      scratchClear: db.prepare('DELETE FROM temp.text_tokenizer'),
      changeMarks: db.prepare('SELECT (SELECT data_version FROM pragma_data_version) AS committed, total_changes() AS changes'),
      totalChanges: db.prepare<[], number>('SELECT total_changes()').pluck(),
    };
    // after a restart every organization's frequent words are read while the service is idle
    if (this.warmer) for (const org of db.prepare('SELECT org FROM text_orgs').pluck().all() as string[]) this.warmer.opened(org);
  }

  /**
   * Brings every organization's tables to this code's layout when the index is opened (not in
   * a write: at a big organization's first write after an upgrade that write's unit of work
   * would pay for it): tables made before the type index (`topByType`) get it.
   */
  private migrateTables(): void {
    const names = this.db.prepare('SELECT name FROM text_orgs').pluck().all() as string[];
    const exists = this.db.prepare<[string], number>("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
    for (const name of names) if (exists.get(docsTable(name)) === 1) this.db.exec(typeIndexDdl(docsTable(name)));
  }

  /**
   * Runs a write atomically. Inside the caller's transaction (the projection runner's) it runs
   * directly: a nested savepoint per call would make FTS5 flush its pending terms every time.
   */
  private atomically(fn: () => void): void {
    const run = () => {
      // a new unit of work (or the last one rolled back): tables are looked up again
      if (!this.postings.enterUnit()) {
        this.unitOrgs.clear();
        this.unitNextId.clear();
      }
      fn();
    };
    if (this.db.inTransaction) run();
    else
      this.db.transaction(() => {
        run();
        this.postings.flush(); // our own transaction is a unit of work
      })();
  }

  /**
   * A row id above every id the organization's docs table or postings ever held: SQLite would
   * hand a deleted largest id out again, while a segment's id range still claims it (segments
   * hold disjoint, growing ranges). Read once per unit of work, then counted in memory.
   */
  private newId(t: OrgTables, w: OrgWrites): number {
    const next = (this.unitNextId.get(t.name) ?? w.maxId.get()!) + 1;
    this.unitNextId.set(t.name, next);
    return next;
  }

  /**
   * `orgTables` for a write, once per organization and unit of work: inside one transaction
   * only this handle changes the schema and the catalogue (and it forgets what it drops).
   */
  private unitTables(org: string, create: boolean): OrgTables | undefined {
    let t = this.unitOrgs.get(org);
    if (t) return t;
    t = this.orgTables(org, create);
    if (t && !t.legacy) this.unitOrgs.set(org, t);
    return t;
  }

  // ---- synchronous API (embedded hot path: runs inside the projection's transaction) ----

  upsertSync(docs: TextDocument[]): void {
    if (!docs.length) return;
    this.atomically(() => {
      let org: string | undefined;
      let t: OrgWrites | undefined;
      let tables: OrgTables | undefined;
      for (const doc of docs) {
        if (doc.org !== org || !t) {
          org = doc.org;
          this.warmer?.wrote(org);
          tables = this.unitTables(org, true)!;
          t = this.writes(tables);
        }
        this.upsertOne(tables!, t, doc);
      }
    });
  }

  removeSync(org: string, uids: string[]): void {
    if (!uids.length) return;
    this.atomically(() => {
      const tables = this.unitTables(org, false);
      if (!tables || tables.legacy) return;
      this.warmer?.wrote(org);
      const t = this.writes(tables);
      for (const uid of uids) {
        const row = t.findDoc.get(uid);
        if (!row) continue;
        TermLists.changed(this.db, tables.name, row.id);
        this.removePostings(tables, t, row.id);
        t.deleteFts.run(row.id);
        t.deleteDoc.run(row.id);
      }
    });
  }

  setSalienceSync(org: string, changes: SalienceChange[]): void {
    if (!changes.length) return;
    this.atomically(() => {
      const tables = this.unitTables(org, false);
      if (!tables || tables.legacy) return;
      const t = this.writes(tables);
      for (const c of changes) t.setSalience.run(c.salience, c.uid);
    });
  }

  /**
   * Writes the postings this unit of work left in memory (the text projection's flush, before
   * each commit); postings of a rolled-back unit are dropped.
   */
  flushSync(): void {
    this.postings.flush();
  }

  /** Drops the organization's tables (a clear, or the purge of an organization). */
  removeOrgSync(org: string): void {
    this.atomically(() => {
      this.unitOrgs.clear();
      this.unitNextId.clear();
      const name = this.stmts.orgName.get(org);
      if (name === undefined) return;
      TermLists.dropped(this.db, name);
      this.dropOrgTables(name);
      this.stmts.deleteOrg.run(org);
    });
  }

  /** Empties the whole index, every organization (projection rebuild), and the v1 layout. */
  clearSync(): void {
    this.atomically(() => {
      const names = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'text\\_docs\\_%' ESCAPE '\\'").pluck().all() as string[];
      const catalogued = this.db.prepare('SELECT name FROM text_orgs').pluck().all() as string[];
      const suffixes = new Set(catalogued);
      for (const n of names) if (TEXT_ORG_TABLE_RE.test(n)) suffixes.add(n.slice('text_docs_'.length));
      // postings left without their organization's tables (dropped by hand) go too
      const tables = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      for (const n of tables) {
        const m = TEXT_POSTINGS_TABLE_RE.exec(n);
        if (m) suffixes.add(m[1]);
      }
      this.unitOrgs.clear();
      this.unitNextId.clear();
      TermLists.dropped(this.db, null);
      for (const name of suffixes) this.dropOrgTables(name);
      this.db.prepare('DELETE FROM text_orgs').run();
      this.db.exec(`DROP TABLE IF EXISTS ${LEGACY.vocab}; DROP TABLE IF EXISTS ${LEGACY.fts}; DROP TABLE IF EXISTS ${LEGACY.docs};`);
      this.legacyTables = undefined; // looked for again: a rolled-back reset leaves them
    });
  }

  countSync(org: string): number {
    const t = this.orgTables(org, false);
    if (!t) return 0;
    if (!t.legacy) return this.writes(t).count.get()?.n ?? 0;
    return this.db.prepare(`SELECT count(*) FROM ${t.docs} WHERE org = ?`).pluck().get(org) as number;
  }

  searchSync(q: TextQuery): TextHit[] {
    this.warmer?.queried();
    const limit = Math.min(Math.floor(q.limit), MAX_LIMIT);
    if (!(limit > 0)) return [];
    // An empty uid scope matches nothing; an empty node_types list is no filter.
    if (q.uids && q.uids.length === 0) return [];
    const terms = queryTerms(q.query ?? '');
    if (terms.length === 0) return [];
    const t = this.orgTables(q.org, false);
    if (!t) return [];

    const shape: FilterShape = {
      types: !!q.node_types?.length,
      exclude: !!q.exclude_node_types?.length,
      layer: q.layer !== undefined && q.layer !== null,
      uids: !!q.uids,
    };
    const filterParams: unknown[] = t.legacy ? [q.org] : [];
    if (shape.types) filterParams.push(JSON.stringify(q.node_types));
    if (shape.exclude) filterParams.push(JSON.stringify(q.exclude_node_types));
    if (shape.layer) filterParams.push(q.layer);
    if (shape.uids) filterParams.push(JSON.stringify(q.uids));
    const filter: RowFilter = {
      types: shape.types ? new Set(q.node_types) : undefined,
      exclude: shape.exclude ? new Set(q.exclude_node_types) : undefined,
      layer: shape.layer ? (q.layer as string) : undefined,
    };
    const rows = this.rankedRows(t, terms, shape, filterParams, filter, limit);

    const hits: TextHit[] = [];
    for (const row of rows) {
      // bm25() is "lower is better" and negative; the port wants higher-is-better.
      const score = row.rank === 0 ? 0 : -row.rank;
      if (q.min_score !== undefined && q.min_score !== null && score < q.min_score) break;
      hits.push({ uid: row.uid, score, salience: row.salience });
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

  async setSalience(org: string, changes: SalienceChange[]): Promise<void> {
    this.setSalienceSync(org, changes);
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
    this.warmer?.stop();
    this.orgCache.clear();
    this.legacyTables = undefined;
  }

  /**
   * Runs now, up to `steps` steps, the warming of term lists that idle time would run (written
   * organizations' frequent words read into memory); answers the steps run. For a caller that
   * knows the index is about to be queried (and for tests: no timer involved).
   */
  warmTermLists(steps = Number.MAX_SAFE_INTEGER): number {
    let n = 0;
    while (this.warmer?.hasWork && n < steps && !this.db.inTransaction) {
      this.warmer.runStep();
      n++;
    }
    return n;
  }

  // ---- internals ----

  /**
   * One step of warming `org`'s term lists: a slice of its vocabulary scanned for words in
   * 1/200 (at least WARM_MIN_ROWS, at most WARM_MAX_ROWS) to 1/2 of its rows (more common ones
   * score nothing, see `rankedRows`; rarer ones are quick to read when asked for), or the next
   * such word's list read, most frequent first. False when done, or when the lists hold half
   * their budget.
   */
  private warmStep(org: string, state: WarmState): boolean {
    const lists = this.termLists;
    const t = this.orgTables(org, false);
    if (!lists || !t || t.legacy || !t.salience || !this.typedStatements(t) || lists.halfFull) return false;
    const rows = this.rowCount(t);
    if (!state.scanned) {
      t.vocabSlice ??= this.db.prepare<[string], { term: string; doc: number }>(`SELECT term, doc FROM ${t.vocab} WHERE term > ? ORDER BY term LIMIT ${WARM_SCAN}`);
      const got = t.vocabSlice.all(state.cursor ?? '');
      const low = Math.max(WARM_MIN_ROWS, rows / 200);
      const common: { term: string; doc: number }[] = [];
      for (const r of got) {
        if (r.doc < low) continue;
        if (2 * r.doc < rows && r.doc <= WARM_MAX_ROWS) state.words.push(r);
        else common.push(r);
      }
      // too common for a list worth holding, but a query's plan needs their row counts, which
      // fts5vocab finds by walking the whole doclist (1–3 ms each at 100,000 rows): keep the ones just read
      if (common.length) {
        const held = this.scratchOnly(() => lists.open(t, this.listsVersion()));
        for (const r of common) lists.countRows(held, r.term, r.doc);
      }
      if (got.length === WARM_SCAN) state.cursor = got[got.length - 1].term;
      else {
        state.scanned = true;
        state.words.sort((a, b) => b.doc - a.doc);
      }
      return true;
    }
    if (state.next >= state.words.length) return false;
    const word = state.words[state.next++];
    this.scratchOnly(() => lists.warm(lists.open(t, this.listsVersion()), word.term, word.doc));
    return true;
  }

  /**
   * The organization's tables: from the catalogue, created when `create` (a write) and
   * missing. A read of an organization without tables falls back to the version-1 shared
   * table while that still exists (until the rebuild its version bump started is swapped in).
   */
  private orgTables(org: string, create: boolean): OrgTables | undefined {
    // a schema change (another write, or a rebuilt database copied in under this handle) may
    // have added or dropped columns the cached statements were planned for
    const schema = this.schemaVersion.get()!;
    if (schema !== this.seenSchema) {
      this.orgCache.clear();
      this.seenSchema = schema;
    }
    let name = this.stmts.orgName.get(org);
    if (name === undefined) {
      if (!create) return this.legacy() ?? undefined;
      name = this.createOrgTables(org);
    }
    let t = this.orgCache.get(name);
    if (t) {
      this.orgCache.delete(name); // most recently used last
    } else {
      t = this.prepareOrg(docsTable(name), ftsTable(name), vocabTable(name), false);
      if (this.orgCache.size >= CACHED_ORGS) this.orgCache.delete(this.orgCache.keys().next().value!);
    }
    this.orgCache.set(name, t);
    return t;
  }

  private createOrgTables(org: string): string {
    const base = createHash('sha256').update(org, 'utf8').digest('hex').slice(0, 16);
    let name = base;
    for (let i = 2; this.stmts.nameTaken.get(name) !== undefined; i++) name = `${base}_${i}`;
    this.db.exec(orgTablesDdl(name));
    this.stmts.insertOrg.run(org, name);
    return name;
  }

  private dropOrgTables(name: string): void {
    this.orgCache.delete(name);
    this.averagesReaders.delete(name);
    this.postings.forget(name);
    this.db.exec(`DROP TABLE IF EXISTS ${oldPostingsTable(name)}; DROP TABLE IF EXISTS ${postingsTable(name)}; DROP TABLE IF EXISTS ${segmentsTable(name)}; DROP TABLE IF EXISTS ${mergeTable(name)}; DROP TABLE IF EXISTS ${vocabTable(name)}; DROP TABLE IF EXISTS ${ftsTable(name)}; DROP TABLE IF EXISTS ${docsTable(name)};`);
  }

  /**
   * The version-1 shared tables while they exist (read-only use). Once gone they never come
   * back (every later layout is built by this code); while present they are looked up again
   * each time, since a swap can replace the database under this handle.
   */
  private legacy(): OrgTables | null {
    if (this.legacyTables === null) return null;
    const present =
      this.db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)").pluck().get(LEGACY.docs, LEGACY.fts, LEGACY.vocab) === 3 &&
      (this.db.prepare(`SELECT name FROM pragma_table_info('${LEGACY.docs}')`).pluck().all() as string[]).includes('org');
    if (!present) this.legacyTables = null;
    else this.legacyTables ??= this.prepareOrg(LEGACY.docs, LEGACY.fts, LEGACY.vocab, true);
    return this.legacyTables;
  }

  private prepareOrg(docs: string, fts: string, vocab: string, legacy: boolean): OrgTables {
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('${docs}')`).pluck().all() as string[];
    const name = legacy ? '' : docs.slice('text_docs_'.length);
    return { name, docs, fts, vocab, legacy, salience: columns.includes('salience'), search: new Map() };
  }

  /** Whether the organization's postings table exists (looked up once per schema version). */
  private hasPostings(t: OrgTables): boolean {
    if (t.legacy) return false;
    t.postings ??= this.db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(postingsTable(t.name)) === 1;
    return t.postings;
  }

  /** FTS5's stored token counts per column for row `id` (undefined when it keeps none). */
  private storedSizes(w: OrgWrites, id: number): number[] | undefined {
    const blob = w.docSize.get(id);
    return blob ? decodeSizes(blob) : undefined;
  }

  /**
   * Takes row `id`'s postings out, from the text FTS5 indexed for it (read before its delete).
   * Whether the organization keeps postings (a re-indexed row then needs a new id).
   */
  private removePostings(t: OrgTables, w: OrgWrites, id: number): boolean {
    if (!this.postingsOn || !this.hasPostings(t)) return false;
    const old = w.indexedText.get(id);
    if (!old || old.label === null) return true; // a contentless table keeps no text (no postings either)
    const row = this.analyzer.analyze([old.label ?? '', old.summary ?? '', old.body ?? ''], this.storedSizes(w, id));
    this.postings.remove(t.name, id, row.wtf.keys());
    return true;
  }

  /** The organization's write statements, prepared on its first write through this handle. */
  private writes(t: OrgTables): OrgWrites {
    if (t.legacy) throw new Error('internal: the version-1 full-text tables are read-only');
    const { docs, fts } = t;
    if (this.postingsOn && !t.postings && !this.hasPostings(t)) {
      // tables made before postings (or before their segments): from now on written (queries
      // use them once they hold every row)
      this.db.exec(`DROP TABLE IF EXISTS ${oldPostingsTable(t.name)}; ${postingsDdl(t.name)}`);
      t.postings = true;
    }
    if (!t.salience) {
      // tables made before the column: add it (the rebuild the version bump started fills it)
      this.db.exec(`ALTER TABLE ${docs} ADD COLUMN salience REAL NOT NULL DEFAULT ${DEFAULT_SALIENCE}; ${salienceIndexDdl(docs)};`);
      t.salience = true;
      t.search.clear();
    }
    return (t.w ??= {
      findDoc: this.db.prepare(`SELECT id, node_type, layer, salience FROM ${docs} WHERE uid = ?`),
      indexedText: this.db.prepare(`SELECT label, summary, body FROM ${fts} WHERE rowid = ?`),
      insertDoc: this.db.prepare(`INSERT INTO ${docs} (uid, node_type, layer, salience) VALUES (?, ?, ?, ?)`),
      insertDocAt: this.db.prepare(`INSERT INTO ${docs} (id, uid, node_type, layer, salience) VALUES (?, ?, ?, ?, ?)`),
      maxId: this.db
        .prepare<[], number>(
          this.hasPostings(t)
            ? `SELECT max(coalesce((SELECT max(id) FROM ${docs}), 0), coalesce((SELECT max(last_id) FROM ${segmentsTable(t.name)}), 0))`
            : `SELECT coalesce(max(id), 0) FROM ${docs}`,
        )
        .pluck(),
      updateDoc: this.db.prepare(`UPDATE ${docs} SET node_type = ?, layer = ?, salience = ? WHERE id = ?`),
      setSalience: this.db.prepare(`UPDATE ${docs} SET salience = ? WHERE uid = ?`),
      deleteDoc: this.db.prepare(`DELETE FROM ${docs} WHERE id = ?`),
      insertFts: this.db.prepare(`INSERT INTO ${fts} (rowid, label, summary, body) VALUES (?, ?, ?, ?)`),
      deleteFts: this.db.prepare(`DELETE FROM ${fts} WHERE rowid = ?`),
      docSize: this.db.prepare<[number], Buffer | undefined>(`SELECT sz FROM ${fts}_docsize WHERE id = ?`).pluck(),
      count: this.db.prepare(`SELECT count(*) AS n FROM ${docs}`),
    });
  }

  private upsertOne(tables: OrgTables, t: OrgWrites, doc: TextDocument): void {
    const label = doc.label ?? '';
    const summary = doc.summary ?? '';
    const body = doc.body ?? '';
    const salience = doc.salience ?? DEFAULT_SALIENCE;
    const existing = t.findDoc.get(doc.uid);
    let id: number;
    if (existing) {
      id = existing.id;
      const changed = existing.node_type !== doc.node_type || existing.layer !== doc.layer || existing.salience !== salience;
      // an update that keeps the text (salience, props outside it) has nothing to re-index
      const old = t.indexedText.get(id);
      if (old && old.label === label && old.summary === summary && old.body === body) {
        if (changed) t.updateDoc.run(doc.node_type, doc.layer, salience, id);
        return;
      }
      TermLists.changed(this.db, tables.name, id);
      const postings = this.removePostings(tables, t, id);
      t.deleteFts.run(id);
      if (postings) {
        // a new id, above every other: postings segments hold disjoint, growing id ranges
        t.deleteDoc.run(id);
        id = this.newId(tables, t);
        t.insertDocAt.run(id, doc.uid, doc.node_type, doc.layer, salience);
      } else if (changed) t.updateDoc.run(doc.node_type, doc.layer, salience, id);
    } else {
      if (this.postingsOn && this.hasPostings(tables)) t.insertDocAt.run((id = this.newId(tables, t)), doc.uid, doc.node_type, doc.layer, salience);
      else id = Number(t.insertDoc.run(doc.uid, doc.node_type, doc.layer, salience).lastInsertRowid);
    }
    t.insertFts.run(id, label, summary, body);
    if (this.postingsOn) this.postings.add(tables.name, id, [label, summary, body], this.storedSizes(t, id), this.analyzer);
  }

  /**
   * `"t1" OR "t2" …`. Every user term is a quoted phrase made only of letters/digits/marks,
   * so no FTS5 operator or column filter can be smuggled in.
   */
  private matchExpression(terms: string[]): string {
    return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  }

  /**
   * The first `limit` rows of the order score, then salience, then uid, planned so that
   * neither ties nor common terms cost a pass over every matching row.
   *
   * The score is FTS5's bm25() over the query's terms, with one rule for common terms. FTS5
   * floors the IDF of a term found in at least half of the organization's N rows at 1e-6, so
   * such a term adds at most 2.2e-6 to a score. When those terms together match more than
   * `commonTermRows` rows they add nothing: rows matching only them score 0 and follow every
   * other hit in salience, then uid order, read from the docs table's index in that order
   * (`zeroTier`) instead of scoring every row. Below that size they are scored as FTS5 scores
   * them. Either way a row's score depends only on the query and the organization's rows, never
   * on the page asked for, so pages are slices of one order.
   *
   * Ties on score are broken inside SQLite's own top-k (ORDER BY rank, salience DESC, uid),
   * never by reading every tied row.
   */
  private rankedRows(t: OrgTables, terms: string[], shape: FilterShape, filterParams: unknown[], filter: RowFilter, limit: number): RankedRow[] {
    // the v1 shared table's statistics span organizations: no planning on it
    if (t.legacy) return this.searchStatement(t, shape, false).all(this.matchExpression(terms), ...filterParams, limit) as RankedRow[];
    const rows = this.rowCount(t);
    if (rows === 0) return [];
    const docFreq = this.docFreqReader(t);
    const stats: TermStat[] = terms.map((term) => {
      const tokens = this.ftsTokens(term);
      return { term, df: tokens.length === 1 ? docFreq(tokens[0]) : null };
    });
    const common = stats.filter((x) => x.df !== null && 2 * x.df >= rows);
    const commonRows = common.reduce((n, x) => n + x.df!, 0);
    const dropCommon = common.length > 0 && commonRows > this.commonTermRows;
    const typed = this.topByType(t, stats, dropCommon ? common : [], shape, filter, limit);
    if (typed) return typed;
    if (!dropCommon) return this.topByMaxScore(t, stats, rows, shape, filterParams, filter, limit);

    const scored = stats.filter((x) => !common.includes(x));
    const head = scored.length ? this.topByMaxScore(t, scored, rows, shape, filterParams, filter, limit) : [];
    if (head.length >= limit) return head;
    // a short head holds every row matching a scored term; the rest of the page scores 0
    return head.concat(this.zeroTier(t, common, rows, shape, filterParams, head, limit - head.length));
  }

  /**
   * Exact BM25 top-`limit` over `stats`' terms (bm25() costs ~0.6 µs per matching row, so a
   * term in 30% of 100k rows costs ~20 ms however few hits are wanted). MaxScore: the rarest
   * terms are "essential". Every candidate row matching one of them is scored with the whole
   * query (the others are only walked, not scored). A row matching none of them scores at most
   * Σ idf·(k1+1) over the other terms; when the page is full and its last score beats that
   * bound, no other row can enter the page (nor tie its last row). Otherwise the plain query.
   */
  private topByMaxScore(t: OrgTables, stats: TermStat[], rows: number, shape: FilterShape, filterParams: unknown[], filter: RowFilter, limit: number): RankedRow[] {
    const fromPostings = this.topFromPostings(t, stats, shape, filter, limit);
    if (fromPostings) return fromPostings;
    const fromLists = this.topFromLists(t, stats, shape, filter, limit);
    if (fromLists) return fromLists;
    const run = () => this.plainTop(t, stats, shape, filterParams, limit);
    if (stats.length === 1) return run();
    // rarest first; multi-token terms (unknown df) are always essential
    const sorted = [...stats].sort((a, b) => (a.df ?? -1) - (b.df ?? -1));
    const essential: TermStat[] = [];
    let budget = 0;
    for (const x of sorted) {
      if (essential.length && (x.df === null ? 0 : budget + x.df) > this.essentialDfBudget) break;
      essential.push(x);
      budget += x.df ?? 0;
    }
    if (essential.length === sorted.length) return run();
    // rows matching an essential term number at most their dfs' sum: under a page, the restricted
    // statement cannot fill it and its pass over every match would only precede the plain query's
    if (essential.every((x) => x.df !== null) && budget < limit) return run();
    let bound = 0;
    for (const x of sorted.slice(essential.length)) {
      const df = x.df ?? 0;
      bound += K1_PLUS_1 * Math.max(1e-6, Math.log((rows - df + 0.5) / (df + 0.5)));
    }
    const restricted = this.searchStatement(t, shape, true).all(
      this.matchExpression(stats.map((x) => x.term)),
      this.matchExpression(essential.map((x) => x.term)),
      ...filterParams,
      limit,
    ) as RankedRow[];
    const last = restricted[limit - 1];
    return last && -last.rank > bound * (1 + 1e-9) + 1e-12 ? restricted : run();
  }

  /**
   * The plain statement's answer (every match scored, sorted by rank, salience desc, uid),
   * without joining each match to its docs row: FTS5 keeps the limit + 1 best by rank alone
   * (about 0.4 µs a match less), and only those rows are looked up. When the page's last rank
   * is shared past the page (a tie at its end) the tied rows' order needs salience and uid:
   * they are found by walking the docs table in that order (`tiedRows`), or else by the plain
   * statement. Unfiltered queries on tables with salience only; the statement otherwise.
   */
  private plainTop(t: OrgTables, stats: TermStat[], shape: FilterShape, filterParams: unknown[], limit: number): RankedRow[] {
    const expr = this.matchExpression(stats.map((x) => x.term));
    const statement = () => this.searchStatement(t, shape, false).all(expr, ...filterParams, limit) as RankedRow[];
    if (t.legacy || !t.salience || shape.types || shape.exclude || shape.layer || shape.uids) return statement();
    t.byRank ??= this.db.prepare<[string, number], { id: number; rank: number }>(
      `SELECT rowid AS id, bm25(${t.fts}, ${BM25_WEIGHTS}) AS rank FROM ${t.fts} WHERE ${t.fts} MATCH ? ORDER BY rank LIMIT ?`,
    );
    const best = t.byRank.all(expr, limit + 1);
    let page = best;
    if (best.length > limit) {
      const last = best[limit - 1].rank;
      page = best.slice(0, limit);
      if (best[limit].rank === last) {
        // every row ranked above `last` is in `best`; the rest of the page is the first rows of rank `last`
        const above = page.filter((r) => r.rank < last);
        const tied = this.tiedRows(t, stats, last, above, limit - above.length);
        if (!tied) return statement();
        page = above.concat(tied);
      }
    }
    t.facts ??= this.db.prepare<[number], RowFacts>(`SELECT uid, salience, node_type, layer FROM ${t.docs} WHERE id = ?`);
    const rows: RankedRow[] = [];
    for (const r of page) {
      const f = t.facts.get(r.id);
      if (f) rows.push({ id: r.id, uid: f.uid, rank: r.rank, salience: f.salience });
    }
    // a match without its docs row is not in the statement's answer either (it joins them)
    if (rows.length < page.length && best.length > limit) return statement();
    rows.sort((a, b) => a.rank - b.rank || b.salience - a.salience || compareCodePoints(a.uid, b.uid));
    return rows;
  }

  /**
   * The first `need` rows of rank exactly `rank`, in salience then uid order, read by walking
   * the docs table in that order (8·need + 256 rows at most, and under a quarter of the table):
   * each row's text as FTS5 keeps it is tokenized (an FTS5 probe per row cost ~40 µs), which
   * says whether it matches, and a match is scored as bm25() scores it (`fts5Bm25`, as the type
   * walk does). Null when the walk
   * does not apply or ends first, or when it meets a row scoring above `rank` that `above` does
   * not hold (a score computed otherwise than FTS5 would: the statement then answers).
   */
  private tiedRows(t: OrgTables, stats: TermStat[], rank: number, above: { id: number }[], need: number): RankedRow[] | null {
    const avg = this.averages(t);
    const walk = 8 * need + 256;
    if (walk >= avg.rows / 4 || stats.some((x) => x.df === null) || !this.typedStatements(t)) return null;
    const terms = this.bm25Terms(stats, avg);
    if (!terms) return null;
    const { avgdl, idf, slot } = terms;
    t.tieWalk ??= this.db.prepare<[number], TypedRow>(
      `SELECT d.id, d.uid, d.salience, d.node_type, d.layer, c.c0, c.c1, c.c2, z.sz
         FROM (SELECT id, uid, salience, node_type, layer FROM ${t.docs} ORDER BY salience DESC, uid LIMIT ?) d
         CROSS JOIN ${t.fts}_content c ON c.id = d.id LEFT JOIN ${t.fts}_docsize z ON z.id = d.id
        ORDER BY d.salience DESC, d.uid`,
    );
    const known = new Set(above.map((r) => r.id));
    const freq = new Array<number>(stats.length);
    const out: RankedRow[] = [];
    // read whole first: tokenizing may run statements (FTS5 scratch), which an open iterator forbids
    const none = new Set<string>();
    for (const r of t.tieWalk.all(walk)) {
      const { any, dl } = this.rowFrequencies(r, slot, freq, none);
      // the row's own tokens (as FTS5 made them) say whether it matches the query
      if (!any) continue;
      const score = fts5Bm25(idf, freq, dl, avgdl);
      if (score < rank) {
        if (!known.has(r.id)) return null;
      } else if (score === rank) {
        out.push({ id: r.id, uid: r.uid, rank, salience: r.salience });
        if (out.length === need) return out;
      }
    }
    return null;
  }

  /**
   * The same answer as the statements, for a query filtered to node types that hold few of the
   * rows its terms match (a rare type: `/retrieve/context`'s articles, an ontology type), from
   * those types' rows rather than from every match: each row's text as FTS5 indexed it is
   * tokenized (checked against FTS5's token counts for it, `DocAnalyzer`) and scored with
   * bm25()'s own arithmetic (`fts5Bm25`, IDF through SQLite's ln()); rows matching only
   * `unscored` terms (common terms left out, see `rankedRows`) score 0. Sorted (rank, salience
   * desc, uid), as the statements sort. Null when it does not apply: no type filter, a uid
   * scope, a term FTS5 makes several tokens of, a table keeping no text, or types holding more
   * than 1/typeWalkRatio of the terms' matches.
   */
  private topByType(t: OrgTables, stats: TermStat[], unscored: TermStat[], shape: FilterShape, filter: RowFilter, limit: number): RankedRow[] | null {
    if (!filter.types || shape.uids || t.legacy || !t.salience) return null;
    let matched = 0;
    for (const x of stats) {
      if (x.df === null) return null;
      matched += x.df;
    }
    const cap = this.typeWalkRatio > 0 ? Math.floor(matched / this.typeWalkRatio) : Number.MAX_SAFE_INTEGER;
    if (cap < 1) return null;
    const st = this.typedStatements(t);
    if (!st) return null;
    const types = JSON.stringify([...filter.types]);
    // counted through the type index, never past the cap
    if (st.count.get(types, cap + 1)! > cap) return null;
    // the query's FTS5 tokens: scored ones in MATCH order (bm25() sums its phrases in that order)
    const scored = stats.filter((x) => !unscored.includes(x));
    const terms = this.bm25Terms(scored, this.averages(t));
    if (!terms) return null;
    const { avgdl, idf, slot } = terms;
    const zero = new Set(unscored.map((x) => this.ftsTokens(x.term)[0]));
    const freq = new Array<number>(scored.length);
    const hits: { id: number; uid: string; rank: number; salience: number }[] = [];
    // read whole first: tokenizing may run statements (FTS5 scratch), which an open iterator forbids
    for (const r of st.rows.all(types)) {
      if ((filter.exclude && filter.exclude.has(r.node_type)) || (filter.layer !== undefined && r.layer !== filter.layer)) continue;
      const { any, hit, dl } = this.rowFrequencies(r, slot, freq, zero);
      if (!any && !hit) continue;
      // bm25() of the scored phrases; a row holding none of them scores 0 (a zero-tier row)
      const rank = any ? fts5Bm25(idf, freq, dl, avgdl) : 0;
      hits.push({ id: r.id, uid: r.uid, rank, salience: r.salience });
    }
    hits.sort((a, b) => a.rank - b.rank || b.salience - a.salience || compareCodePoints(a.uid, b.uid));
    return hits.slice(0, limit);
  }

  /**
   * What bm25()'s arithmetic needs to score rows in JavaScript for `scored` (single-token terms,
   * in MATCH order): avgdl, each phrase's IDF, and each FTS5 token's phrase slot. Null when two
   * terms are one token (a word and its stem): bm25() counts that token once per phrase, which
   * one slot per token cannot.
   */
  private bm25Terms(scored: TermStat[], avg: { rows: number; tokens: number[] }): { avgdl: number; idf: number[]; slot: Map<string, number> } | null {
    const slot = new Map<string, number>();
    scored.forEach((x, i) => slot.set(this.ftsTokens(x.term)[0], i));
    if (slot.size !== scored.length) return null;
    const idf = scored.map((x) => fts5Idf(avg.rows, x.df!, (v) => this.ln.get(v)!));
    return { avgdl: averageLength(avg), idf, slot };
  }

  /**
   * Tokenizes a row's text as FTS5 indexed it and fills `freq` with the weighted frequency of
   * each scored token (`slot`: token → phrase index). `any`: a scored token is in the row;
   * `hit`: only an unscored (`zero`) one is; `dl`: the row's token count.
   */
  private rowFrequencies(r: TypedRow, slot: Map<string, number>, freq: number[], zero: Set<string>): { any: boolean; hit: boolean; dl: number } {
    this.analyzer.fill([r.c0 ?? '', r.c1 ?? '', r.c2 ?? ''], r.sz ? decodeSizes(r.sz) : undefined);
    freq.fill(0);
    let any = false;
    let hit = false;
    const out = this.analyzer.out;
    for (let c = 0, k = 0; c < 3; c++) {
      const w = BM25_COLUMN_WEIGHTS[c];
      for (const end = k + this.analyzer.sizes[c]; k < end; k++) {
        const i = slot.get(out[k].term);
        if (i !== undefined) {
          freq[i] += w;
          any = true;
        } else if (!hit && zero.has(out[k].term)) hit = true;
      }
    }
    return { any, hit, dl: this.analyzer.sizes[0] + this.analyzer.sizes[1] + this.analyzer.sizes[2] };
  }

  /**
   * The type walk's statements; null when the FTS5 table keeps no text (version-2 tables) or the
   * docs table has no type index yet (tables made before it get it on their next write).
   */
  private typedStatements(t: OrgTables) {
    if (t.typed === undefined) {
      const has = this.db.prepare<[string], number>('SELECT count(*) FROM sqlite_master WHERE name = ?').pluck();
      if (has.get(`${t.fts}_content`) !== 1 || has.get(`${t.docs}_by_type`) !== 1) t.typed = null;
      else {
        const types = `(SELECT value FROM json_each(?))`;
        t.typed = {
          count: this.db.prepare<[string, number], number>(`SELECT count(*) FROM (SELECT 1 FROM ${t.docs} WHERE node_type IN ${types} LIMIT ?)`).pluck(),
          rows: this.db.prepare<[string], TypedRow>(
            `SELECT d.id, d.uid, d.salience, d.node_type, d.layer, c.c0, c.c1, c.c2, z.sz FROM ${t.docs} d JOIN ${t.fts}_content c ON c.id = d.id LEFT JOIN ${t.fts}_docsize z ON z.id = d.id WHERE d.node_type IN ${types}`,
          ),
        };
      }
    }
    return t.typed;
  }

  /**
   * The same answer as the FTS5 statements, from the postings (`topByPostings`: block-max
   * MaxScore, stopping once no unread block can reach the page), when they can give it:
   * every term one FTS5 token, enough matching rows to be worth it, no uid scope (a short list
   * is faster through FTS5), and the postings written and complete (not inside a transaction,
   * whose rows may not be flushed yet; a token whose posting count differs from FTS5's document
   * frequency sends the query to FTS5). Null otherwise.
   */
  private topFromPostings(t: OrgTables, stats: TermStat[], shape: FilterShape, filter: RowFilter, limit: number): RankedRow[] | null {
    if (!this.postingsOn || t.legacy || !t.salience || shape.uids || this.db.inTransaction || this.postings.hasPending) return null;
    let matched = 0;
    for (const x of stats) {
      if (x.df === null) return null;
      matched += x.df;
    }
    if (matched <= this.postingsMinRows || !this.hasPostings(t)) return null;
    // directories kept from earlier queries hold only this handle's commits
    this.postings.sync(`${this.dataVersion.get()}:${this.schemaVersion.get()}`);
    const avg = this.averages(t);
    const avgdl = averageLength(avg);
    const phrases = stats.map((x) => ({ token: this.ftsTokens(x.term)[0], df: x.df!, idf: fts5Idf(avg.rows, x.df!, (v) => this.ln.get(v)!) }));
    t.facts ??= this.db.prepare<[number], RowFacts>(`SELECT uid, salience, node_type, layer FROM ${t.docs} WHERE id = ?`);
    const facts = t.facts;
    return topByPostings(this.postings, t.name, phrases, avgdl, limit, (id) => facts.get(id), (r) => rowAccepted(filter, r), false);
  }

  /**
   * The same answer as the FTS5 statements, from the term lists (`TermLists`): every row of the
   * query's tokens is scored in JavaScript with bm25()'s arithmetic, the best `limit + 1` (or,
   * with a filter, a few times `limit`) are looked up, and the page is exact once its last score
   * beats every row left out. A page ending on a score shared with rows left out takes those
   * rows in salience then uid order: looked up when few, else found by the salience walk
   * (`tiedRows`). Null when it does not apply (a uid scope, a term FTS5 makes several tokens of,
   * few matching rows, an open transaction, a table keeping no text) or cannot settle the page
   * within its look-ups: the statements answer.
   */
  private topFromLists(t: OrgTables, stats: TermStat[], shape: FilterShape, filter: RowFilter, limit: number): RankedRow[] | null {
    const lists = this.termLists;
    if (!lists || t.legacy || !t.salience || shape.uids || this.db.inTransaction) return null;
    let matched = 0;
    for (const x of stats) {
      if (x.df === null) return null;
      matched += x.df;
    }
    if (matched < this.termListsMinRows || !this.typedStatements(t)) return null;
    const avg = this.averages(t);
    const avgdl = averageLength(avg);
    const phrases = stats.map((x) => ({ token: this.ftsTokens(x.term)[0], df: x.df!, idf: fts5Idf(avg.rows, x.df!, (v) => this.ln.get(v)!) }));
    const filtered = isFiltered(filter);
    return this.scratchOnly(() => {
      try {
        const scored = lists.accumulate(lists.open(t, this.listsVersion()), phrases, avgdl, filtered ? undefined : limit);
        return scored && this.pageFromScores(t, stats, filter, filtered, limit, scored.acc, scored.ids, scored.n);
      } catch {
        // the lists are an optimisation: the statements answer, and the organization's lists are read again
        lists.reset();
        TermLists.dropped(this.db, t.name);
        return null;
      } finally {
        lists.done();
      }
    });
  }

  /**
   * Runs `fn`, whose writes go only to FTS5's temporary scratch tables (tokenizing appended rows
   * or a query's words): they are not index changes, so the document-frequency cache keeps.
   */
  private scratchOnly<T>(fn: () => T): T {
    const before = this.stmts.totalChanges.get()!;
    try {
      return fn();
    } finally {
      this.scratchChanges += this.stmts.totalChanges.get()! - before;
    }
  }

  /**
   * What the term lists must have been read at: another connection's last commit. This
   * connection's own writes reach them directly (`TermLists.changed`, `TermLists.dropped`), so
   * neither they nor a schema change here (a new organization's tables) drop every organization's
   * lists.
   */
  private listsVersion(): string {
    return String(this.dataVersion.get());
  }

  /** `topFromLists`' page from the rows' scores (`acc` by row id, over `touched`). */
  private pageFromScores(t: OrgTables, stats: TermStat[], filter: RowFilter, filtered: boolean, limit: number, acc: Float64Array, touched: Int32Array, n: number): RankedRow[] | null {
    t.factsOf ??= this.db.prepare<[string], RowFacts & { id: number }>(
      `SELECT id, uid, salience, node_type, layer FROM ${t.docs} WHERE id IN (SELECT value FROM json_each(?))`,
    );
    const factsOf = t.factsOf;
    // one statement for a page's rows (a look-up each cost ~10 µs); a row without its docs row
    // is not in the statements' answer (they join them)
    const rowsOf = (ids: number[]): RankedRow[] => {
      const rows: RankedRow[] = [];
      for (const f of factsOf.all(JSON.stringify(ids))) if (rowAccepted(filter, f)) rows.push({ id: f.id, uid: f.uid, rank: -1.0 * acc[f.id], salience: f.salience });
      return rows.sort(pageOrder);
    };
    for (let k = Math.min(n, filtered ? 4 * limit + 64 : limit + 1); ; k = Math.min(n, 4 * k)) {
      const top = this.termLists!.best(acc, touched, n, k);
      const rows = rowsOf(top);
      // every row with a score is in `top`
      if (top.length < k || k >= n) return rows.slice(0, limit);
      // every row left out scores at most `edge`
      const edge = acc[top[top.length - 1]];
      if (rows.length >= limit) {
        const last = rows[limit - 1];
        if (-last.rank > edge) return rows.slice(0, limit);
        // the page ends on the score of rows left out: its rows of that score, in salience then uid order
        const above = rows.filter((r) => r.rank < last.rank);
        const cap = 4 * limit + 256;
        const tied: number[] = [];
        for (let i = 0; i < n && tied.length <= cap; i++) if (acc[touched[i]] === edge) tied.push(touched[i]);
        if (tied.length <= cap) return above.concat(rowsOf(tied)).slice(0, limit);
        const walked = filtered ? null : this.tiedRows(t, stats, last.rank, above, limit - above.length);
        return walked ? above.concat(walked) : null;
      }
      // the filter left too few: look further, within bounds
      if (k >= TERM_LISTS_MAX_LOOKUPS) return null;
    }
  }

  /**
   * Rows matching `common`'s terms, none of `head`, in salience then uid order (all score 0).
   * Such terms are in at least half the rows, so walking the docs table in that order finds a
   * match about every other row: a few index reads and one FTS5 membership probe each. A
   * filter that rejects most rows (or a uid scope) would make that walk long: past a bound it
   * gives way to reading every match of the terms (no scoring) and keeping the first.
   */
  private zeroTier(t: OrgTables, common: TermStat[], rows: number, shape: FilterShape, filterParams: unknown[], head: RankedRow[], need: number): RankedRow[] {
    const expr = this.matchExpression(common.map((x) => x.term));
    const excluded = JSON.stringify(head.map((r) => r.id));
    // a probe costs far more than reading a match unscored: walk only for a short page
    const walk = 8 * need + 256;
    if (t.salience && !shape.uids && walk < rows / 4) {
      const got = this.zeroStatement(t, shape, true).all(walk, ...filterParams, excluded, expr, need) as RankedRow[];
      if (got.length >= need) return got;
    }
    return this.zeroStatement(t, shape, false).all(expr, ...filterParams, excluded, need) as RankedRow[];
  }

  /**
   * Document frequency of an FTS5 token. fts5vocab counts it by walking the token's whole
   * posting list (about 14 ms for a word in 70 % of 200,000 rows, on every query that has it),
   * so counts are kept per organization for as long as the database has not changed: no write
   * through this handle (total_changes(), which counts rolled-back writes too), no commit by
   * another connection (data_version: a rebuilt database copied in with the backup API is one)
   * and no schema change (the cache lives on the organization's cached tables, dropped then).
   * Inside a transaction nothing is cached or reused: it may see rows a rollback takes back.
   */
  private docFreqReader(t: OrgTables): (token: string) => number {
    t.docFreq ??= this.db.prepare(`SELECT doc FROM ${t.vocab} WHERE term = ?`);
    const stmt = t.docFreq;
    const read = (token: string) => stmt.get(token)?.doc ?? 0;
    if (this.db.inTransaction) return read;
    // before the version is read: bringing the lists up to date tokenizes in scratch tables
    const lists = this.termLists;
    const held = this.heldLists(t);
    const marks = this.stmts.changeMarks.get()!;
    const version = `${marks.committed}:${marks.changes - this.scratchChanges}`;
    if (t.dfCache?.version !== version) t.dfCache = { version, df: new Map() };
    const cache = t.dfCache.df;
    return (token) => {
      let n = cache.get(token);
      if (n === undefined) {
        n = held ? lists!.heldRows(held, token) : undefined;
        if (n === undefined) {
          n = read(token);
          if (held) lists!.countRows(held, token, n);
        }
        if (cache.size >= FREQUENCIES_KEPT) cache.clear();
        cache.set(token, n);
      }
      return n;
    };
  }

  /**
   * The organization's term lists brought up to its rows, where they are already held. They count
   * a word's rows as fts5vocab does (its held list, or a count kept since it was read and moved
   * by each row appended), without walking every position of its doclist (1–3 ms for a common
   * word at 100,000 rows): every write starts the frequency cache over, so with writes between
   * queries each common word was walked again per query. Null where lists do not serve the
   * organization or are not held (opening them would read every row's length).
   */
  private heldLists(t: OrgTables): OrgLists | null {
    const lists = this.termLists;
    if (!lists || t.legacy || !t.salience || !lists.holds(t.name)) return null;
    return this.scratchOnly(() => {
      try {
        return lists.open(t, this.listsVersion());
      } catch {
        // fts5vocab answers, and the lists are read again (as in `topFromLists`)
        TermLists.dropped(this.db, t.name);
        return null;
      }
    });
  }

  /** N as bm25() takes it: the row count in the FTS5 table's averages record. */
  private rowCount(t: OrgTables): number {
    return this.averages(t).rows;
  }

  /** FTS5's averages record: N and the token total per column, as bm25() reads them. */
  private averages(t: OrgTables) {
    t.averages ??= this.db.prepare<[], Buffer | undefined>(`SELECT block FROM ${t.fts}_data WHERE id = 1`).pluck();
    return decodeFts5Averages(t.averages.get(), TEXT_FTS_COLUMNS.length);
  }

  /** The tokens FTS5 itself makes of `term` (cached). */
  private ftsTokens(term: string): string[] {
    let tokens = this.tokenCache.get(term);
    if (!tokens) {
      // a scratch insert costs ~0.3 ms: ASCII words are stemmed as the rows' runs are
      tokens = this.scratchOnly(() => {
        const ascii = this.analyzer.asciiTokens(term);
        if (ascii) return ascii;
        this.stmts.scratchInsert.run(term);
        const made = this.stmts.scratchTokens.all().map((r) => r.term);
        this.stmts.scratchClear.run();
        return made;
      });
      if (this.tokenCache.size > 10_000) this.tokenCache.clear();
      this.tokenCache.set(term, tokens);
    }
    return tokens;
  }

  /** The filters on the docs row `d` (their parameters follow in `filterParams` order). */
  private filterClauses(t: OrgTables, shape: FilterShape): string[] {
    const where: string[] = [];
    if (t.legacy) where.push('d.org = ?');
    if (shape.types) where.push('d.node_type IN (SELECT value FROM json_each(?))');
    if (shape.exclude) where.push('d.node_type NOT IN (SELECT value FROM json_each(?))');
    if (shape.layer) where.push('d.layer = ?');
    if (shape.uids) where.push('d.uid IN (SELECT value FROM json_each(?))');
    return where;
  }

  /** A row's salience as the statements read it: the default where the table has no column yet. */
  private salienceColumn(t: OrgTables): string {
    return t.salience ? 'd.salience' : String(DEFAULT_SALIENCE);
  }

  /** The tie-break after the score: salience (when the table has it), then uid. */
  private tieBreak(t: OrgTables): string {
    return t.salience ? 'd.salience DESC, d.uid' : 'd.uid';
  }

  private searchStatement(t: OrgTables, shape: FilterShape, restricted: boolean): Statement {
    const key = `${+shape.types}${+shape.exclude}${+shape.layer}${+shape.uids}${+restricted}`;
    let stmt = t.search.get(key);
    if (!stmt) {
      const fts = t.fts;
      const where = [`${fts} MATCH ?`];
      // `+rowid` keeps this a filter on the walk rather than one FTS5 query per rowid (which
      // would recompute every IDF per row); bm25() then runs only on rows that pass.
      if (restricted) where.push(`+${fts}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`);
      where.push(...this.filterClauses(t, shape));
      // CROSS JOIN pins FTS as the outer loop: we walk matches, never the whole table. The
      // tie-break is part of SQLite's bounded sort, so ties never widen what is read.
      stmt = this.db.prepare(
        `SELECT d.id AS id, d.uid AS uid, bm25(${fts}, ${BM25_WEIGHTS}) AS rank, ${this.salienceColumn(t)} AS salience
           FROM ${fts} CROSS JOIN ${t.docs} d ON d.id = ${fts}.rowid
          WHERE ${where.join(' AND ')}
          ORDER BY rank, ${this.tieBreak(t)}
          LIMIT ?`,
      );
      t.search.set(key, stmt);
    }
    return stmt;
  }

  /**
   * Rows scoring 0 (see `zeroTier`), in salience then uid order. `walk`: the first `?` rows of
   * the docs table in that order (its index), each probed for a match (FTS5 seeks the rowid; no
   * bm25(), so no IDF is computed). Otherwise every match of the terms, unscored.
   */
  private zeroStatement(t: OrgTables, shape: FilterShape, walk: boolean): Statement {
    const key = `zero${+shape.types}${+shape.exclude}${+shape.layer}${+shape.uids}${+walk}`;
    let stmt = t.search.get(key);
    if (!stmt) {
      const fts = t.fts;
      const where = [...this.filterClauses(t, shape), 'd.id NOT IN (SELECT value FROM json_each(?))'];
      const sql = walk
        ? `SELECT d.id AS id, d.uid AS uid, 0 AS rank, d.salience AS salience
             FROM (SELECT * FROM ${t.docs} ORDER BY salience DESC, uid LIMIT ?) d
            WHERE ${where.join(' AND ')}
              AND EXISTS (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? AND ${fts}.rowid = d.id)
            ORDER BY d.salience DESC, d.uid
            LIMIT ?`
        : `SELECT d.id AS id, d.uid AS uid, 0 AS rank, ${this.salienceColumn(t)} AS salience
             FROM ${fts} CROSS JOIN ${t.docs} d ON d.id = ${fts}.rowid
            WHERE ${fts} MATCH ? AND ${where.join(' AND ')}
            ORDER BY ${this.tieBreak(t)}
            LIMIT ?`;
      stmt = this.db.prepare(sql);
      t.search.set(key, stmt);
    }
    return stmt;
  }
}

/** The statements' order: rank (lower is better), then salience desc, then uid. */
function pageOrder(a: RankedRow, b: RankedRow): number {
  return a.rank - b.rank || b.salience - a.salience || compareCodePoints(a.uid, b.uid);
}

/** The average row length in tokens, as bm25() computes it from the averages record (0 for no rows). */
function averageLength(avg: { rows: number; tokens: readonly number[] }): number {
  if (!avg.rows) return 0;
  let tokens = 0;
  for (const n of avg.tokens) tokens += n;
  return tokens / avg.rows;
}

/** FTS5's token counts per column from a `_docsize` record of the index's table. */
function decodeSizes(blob: Buffer): number[] | undefined {
  return decodeDocSize(blob, TEXT_FTS_COLUMNS.length);
}
