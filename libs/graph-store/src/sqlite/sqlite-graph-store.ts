import type { Database, Statement } from 'better-sqlite3';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import {
  AliasRecord,
  EdgeFilter,
  EmbeddingConfig,
  GraphReadModel,
  GraphStats,
  NodeFilter,
  NodeOrder,
  Page,
  PageResult,
  SeriesPointRow,
  StoredEmbedding,
} from '../graph-read-model.port';
import { NodeDocCache } from './node-doc-cache';
import { LABEL_LOOKUP_TERM, LABEL_LOOKUP_TYPES, createGraphSchema } from './sqlite-graph-schema';

const ORDER_SQL: Record<NodeOrder, string> = {
  created_desc: 'created_at DESC, uid ASC',
  created_asc: 'created_at ASC, uid ASC',
  updated_desc: 'updated_at DESC, uid ASC',
  salience_desc: 'salience DESC, updated_at DESC, uid ASC',
  confidence_asc: 'confidence ASC, created_at DESC, uid ASC',
};
/**
 * The same orders with the first key written `+column`, which no index can give: for a list
 * restricted to a set of uids (a scoped key) SQLite then looks the uids up by primary key and
 * sorts them, instead of walking an ordered index of the organization to find them.
 */
const ORDER_SQL_BY_UIDS = Object.fromEntries(Object.entries(ORDER_SQL).map(([k, v]) => [k, `+${v}`])) as Record<NodeOrder, string>;
/** uid sets up to this size are looked up and sorted; larger ones are found by the walk */
const LOOKED_UP_UIDS = 5_000;

/** Type lists up to this long are listed one type at a time and merged (listNodesOfTypes). */
const MERGED_TYPES = 16;
/** Maximum host parameters we put into one IN (…) list. */
const CHUNK = 500;

/**
 * SQLite read model. Reads are synchronous underneath (better-sqlite3); the async port
 * methods wrap the `*Sync` twins that the embedded hot path calls directly.
 */
export class SqliteGraphStore implements GraphReadModel {
  private readonly stmts = new Map<string, Statement>();
  /** kept by the writer (SqliteGraphWriter) and the graph projection's reset and rollback */
  readonly nodeDocs = new NodeDocCache();

  constructor(readonly db: Database) {
    createGraphSchema(db);
  }

  /** Prepared statements are cached by SQL text: filters build a bounded set of shapes. */
  stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  // ---------- nodes ----------
  getNodeDocSync(org: string, uid: string): string | null {
    const cached = this.nodeDocs.get(org, uid);
    if (cached !== undefined) return cached;
    const row = this.stmt('SELECT doc FROM nodes WHERE org = ? AND uid = ?').get(org, uid) as { doc: string } | undefined;
    if (!row) return null;
    this.nodeDocs.remember(org, uid, row.doc);
    return row.doc;
  }
  getNodeSync(org: string, uid: string): NodeRecord | null {
    const doc = this.getNodeDocSync(org, uid);
    return doc ? (JSON.parse(doc) as NodeRecord) : null;
  }
  getNodesSync(org: string, uids: string[]): Map<string, NodeRecord> {
    const out = new Map<string, NodeRecord>();
    for (let i = 0; i < uids.length; i += CHUNK) {
      const part = uids.slice(i, i + CHUNK);
      const rows = this.stmt(`SELECT uid, doc FROM nodes WHERE org = ? AND uid IN (${part.map(() => '?').join(',')})`).all(
        org,
        ...part,
      ) as { uid: string; doc: string }[];
      for (const r of rows) out.set(r.uid, JSON.parse(r.doc));
    }
    return out;
  }
  nodeRevisionSync(org: string, uid: string): number {
    const row = this.stmt('SELECT rev FROM nodes WHERE org = ? AND uid = ?').get(org, uid) as { rev: number } | undefined;
    return row ? row.rev : -1;
  }

  /**
   * `byUids`: the list is restricted to a small set of uids, found by primary key; every other
   * column is then written `+column`, which no index serves, so SQLite does not walk one.
   */
  private nodeWhere(org: string, f: NodeFilter, byUids = false): { sql: string; params: unknown[] } {
    const c = (column: string) => (byUids ? `+${column}` : column);
    const where: string[] = ['org = ?'];
    const params: unknown[] = [org];
    if (f.only_tombstoned) where.push(`${c('tombstone_at')} IS NOT NULL`);
    else if (!f.include_tombstoned) where.push(`${c('tombstone_at')} IS NULL`);
    if (f.tombstoned_before !== undefined) {
      where.push(`${c('tombstone_at')} IS NOT NULL AND ${c('tombstone_at')} <= ?`);
      params.push(f.tombstoned_before);
    }
    if (f.node_types && f.node_types.length) {
      where.push(`${c('node_type')} IN (${f.node_types.map(() => '?').join(',')})`);
      params.push(...f.node_types);
    }
    if (f.exclude_node_types && f.exclude_node_types.length) {
      where.push(`${c('node_type')} NOT IN (${f.exclude_node_types.map(() => '?').join(',')})`);
      params.push(...f.exclude_node_types);
    }
    if (f.layer !== undefined) {
      where.push(`${c('layer')} = ?`);
      params.push(f.layer);
    }
    if (f.agent_id !== undefined) {
      where.push(`${c('agent_id')} = ?`);
      params.push(f.agent_id);
    }
    if (f.privacy_level !== undefined) {
      where.push(`${c('privacy_level')} = ?`);
      params.push(f.privacy_level);
    }
    if (f.label_contains !== undefined) {
      where.push(`instr(${c('label_lower')}, ?) > 0`);
      params.push(f.label_contains.toLowerCase());
    }
    if (f.label_norm !== undefined) {
      where.push(`${c('label_norm')} = ?`);
      params.push(f.label_norm);
      // the label index holds these types only; the term lets SQLite use it (see labelIndexed)
      if (!byUids && labelIndexed(f)) where.push(LABEL_LOOKUP_TERM);
    }
    if (f.created_after !== undefined) {
      where.push(`${c('created_at')} >= ?`);
      params.push(f.created_after);
    }
    if (f.created_before !== undefined) {
      where.push(`${c('created_at')} <= ?`);
      params.push(f.created_before);
    }
    if (f.confidence_lt !== undefined) {
      where.push(`${c('confidence')} < ?`);
      params.push(f.confidence_lt);
    }
    if (f.confidence_min !== undefined) {
      where.push(`${c('confidence')} >= ?`);
      params.push(f.confidence_min);
    }
    if (f.salience_min !== undefined) {
      where.push(`${c('salience')} >= ?`);
      params.push(f.salience_min);
    }
    if (f.uids) {
      if (f.uids.length === 0) where.push('0');
      else {
        // one JSON parameter: a scope may hold more uids than SQLite takes parameters
        where.push('uid IN (SELECT value FROM json_each(?))');
        params.push(JSON.stringify(f.uids));
      }
    }
    if (f.exclude_uids && f.exclude_uids.length) {
      where.push('uid NOT IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(f.exclude_uids));
    }
    addPropsFilters(where, params, f.props_equals, f.props_in);
    return { sql: where.join(' AND '), params };
  }

  listNodesSync(org: string, f: NodeFilter, page: Page, order: NodeOrder = 'created_desc'): PageResult<NodeRecord> {
    const types = f.node_types;
    // (nodes_type holds live nodes only: lists that include tombstones take the plain query)
    const merge = types && types.length > 1 && types.length <= MERGED_TYPES && !f.uids && !f.include_tombstoned && !f.only_tombstoned;
    if (merge && (order === 'created_desc' || order === 'created_asc')) return this.listNodesOfTypes(org, f, types, page, order);
    const byUids = f.uids !== undefined && f.uids.length <= LOOKED_UP_UIDS;
    const { sql, params } = this.nodeWhere(org, f, byUids);
    const orderSql = byUids ? ORDER_SQL_BY_UIDS[order] : ORDER_SQL[order];
    const rows = this.db
      .prepare(`SELECT doc FROM ${!byUids && labelIndexed(f) ? 'nodes INDEXED BY nodes_label' : 'nodes'} WHERE ${sql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`)
      .all(...params, page.limit + 1, page.offset) as { doc: string }[];
    const has_more = rows.length > page.limit;
    if (has_more) rows.pop();
    return { items: rows.map((r) => JSON.parse(r.doc)), has_more };
  }
  /**
   * A page of nodes of several types in creation order: one ordered walk of nodes_type per type
   * (keys only, from the index), merged here, then the page's documents. SQLite would rather
   * walk the organization's whole nodes_created index than sort the union, which costs a full
   * scan when the types are rare.
   */
  private listNodesOfTypes(org: string, f: NodeFilter, types: string[], page: Page, order: 'created_desc' | 'created_asc'): PageResult<NodeRecord> {
    const need = page.offset + page.limit + 1;
    const keys: { created_at: number; uid: string }[] = [];
    for (const t of new Set(types)) {
      const { sql, params } = this.nodeWhere(org, { ...f, node_types: [t] });
      const from = labelIndexed({ ...f, node_types: [t] }) ? 'nodes INDEXED BY nodes_label' : 'nodes';
      const got = this.db.prepare(`SELECT created_at, uid FROM ${from} WHERE ${sql} ORDER BY ${ORDER_SQL[order]} LIMIT ?`).all(...params, need);
      for (const k of got as typeof keys) keys.push(k);
    }
    const dir = order === 'created_desc' ? -1 : 1;
    keys.sort((a, b) => dir * (a.created_at - b.created_at) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const slice = keys.slice(page.offset, page.offset + page.limit + 1);
    const has_more = slice.length > page.limit;
    if (has_more) slice.pop();
    const docs = this.getNodesSync(org, slice.map((k) => k.uid));
    return { items: slice.map((k) => docs.get(k.uid)!), has_more };
  }
  countNodesSync(org: string, f: NodeFilter): number {
    const { sql, params } = this.nodeWhere(org, f);
    return (this.db.prepare(`SELECT count(*) AS n FROM nodes WHERE ${sql}`).get(...params) as { n: number }).n;
  }
  /** Streams matching nodes without materialising them all (decay, export, purge). */
  *iterateNodes(org: string, f: NodeFilter): Generator<NodeRecord> {
    const { sql, params } = this.nodeWhere(org, f);
    for (const r of this.db.prepare(`SELECT doc FROM nodes WHERE ${sql} ORDER BY created_at, uid`).iterate(...params) as Iterable<{
      doc: string;
    }>)
      yield JSON.parse(r.doc);
  }
  lastDecayedAtSync(org: string, uid: string): number | null {
    const row = this.stmt('SELECT last_decayed_at FROM nodes WHERE org = ? AND uid = ?').get(org, uid) as
      | { last_decayed_at: number | null }
      | undefined;
    return row ? row.last_decayed_at : null;
  }

  // ---------- edges ----------
  getEdgeSync(org: string, uid: string): EdgeRecord | null {
    const row = this.stmt('SELECT doc FROM edges WHERE org = ? AND uid = ?').get(org, uid) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }
  edgeRevisionSync(org: string, uid: string): number {
    const row = this.stmt('SELECT rev FROM edges WHERE org = ? AND uid = ?').get(org, uid) as { rev: number } | undefined;
    return row ? row.rev : -1;
  }
  listEdgesSync(org: string, f: EdgeFilter, limit = 1_000_000): EdgeRecord[] {
    const where: string[] = ['org = ?'];
    const params: unknown[] = [org];
    if (!f.include_tombstoned) where.push('tombstone_at IS NULL');
    if (f.from_uid !== undefined) {
      where.push('from_uid = ?');
      params.push(f.from_uid);
    }
    if (f.to_uid !== undefined) {
      where.push('to_uid = ?');
      params.push(f.to_uid);
    }
    if (f.tombstone_reason !== undefined) {
      where.push('tombstone_reason = ?');
      params.push(f.tombstone_reason);
    }
    if (f.edge_types && f.edge_types.length) {
      where.push(`edge_type IN (${f.edge_types.map(() => '?').join(',')})`);
      params.push(...f.edge_types);
    }
    addPropsFilters(where, params, f.props_equals, f.props_in);
    const order = ' ORDER BY created_at ASC, uid ASC LIMIT ?';
    // With an endpoint fixed, its adjacency index finds the few edges at once; left to itself the
    // planner prefers edges_type for the ORDER BY and scans every edge of the type in the org.
    if (f.touching !== undefined) {
      const w = where.join(' AND ');
      const rows = this.db
        .prepare(
          `SELECT doc, created_at, uid FROM edges INDEXED BY edges_out WHERE ${w} AND from_uid = ? UNION SELECT doc, created_at, uid FROM edges INDEXED BY edges_in WHERE ${w} AND to_uid = ?${order}`,
        )
        .all(...params, f.touching, ...params, f.touching, limit) as { doc: string }[];
      return rows.map((r) => JSON.parse(r.doc));
    }
    if (f.among !== undefined) {
      if (f.among.length === 0) return [];
      const set = f.among;
      const rows: { doc: string; created_at: number; uid: string }[] = [];
      const inSet = new Set(set);
      for (let i = 0; i < set.length; i += CHUNK) {
        const part = set.slice(i, i + CHUNK);
        const got = this.db
          .prepare(`SELECT doc, to_uid, created_at, uid FROM edges WHERE ${where.join(' AND ')} AND from_uid IN (${part.map(() => '?').join(',')})`)
          .all(...params, ...part) as { doc: string; to_uid: string; created_at: number; uid: string }[];
        for (const r of got) if (inSet.has(r.to_uid)) rows.push(r);
      }
      rows.sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
      return rows.slice(0, limit).map((r) => JSON.parse(r.doc));
    }
    const by = f.from_uid !== undefined ? ' INDEXED BY edges_out' : f.to_uid !== undefined ? ' INDEXED BY edges_in' : '';
    const sql = `SELECT doc FROM edges${by} WHERE ${where.join(' AND ')}${order}`;
    // preparing costs ~150 µs, ten times the look-up: cached, except props filters (shapes without bound)
    const stmt = f.props_equals || f.props_in ? this.db.prepare(sql) : this.stmt(sql);
    const rows = stmt.all(...params, limit) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc));
  }
  /**
   * `listEdges({touching})` for many uids in one statement: each edge once per endpoint in the
   * set (a self-loop once), the first `limitEach` per uid by (created_at, uid). The set goes in
   * as JSON so that one prepared statement serves every size.
   */
  edgesTouchingEachSync(org: string, uids: string[], limitEach: number): Map<string, EdgeRecord[]> {
    const out = new Map<string, EdgeRecord[]>(uids.map((u) => [u, []]));
    if (!uids.length || limitEach <= 0) return out;
    const rows = this.stmt(
      `SELECT anchor, doc FROM (
         SELECT anchor, doc, row_number() OVER (PARTITION BY anchor ORDER BY created_at ASC, uid ASC) AS rn FROM (
           SELECT from_uid AS anchor, doc, created_at, uid FROM edges INDEXED BY edges_out
             WHERE org = ? AND tombstone_at IS NULL AND from_uid IN (SELECT value FROM json_each(?))
           UNION
           SELECT to_uid AS anchor, doc, created_at, uid FROM edges INDEXED BY edges_in
             WHERE org = ? AND tombstone_at IS NULL AND to_uid IN (SELECT value FROM json_each(?))))
       WHERE rn <= ? ORDER BY anchor, rn`,
    ).all(org, JSON.stringify(uids), org, JSON.stringify(uids), limitEach) as { anchor: string; doc: string }[];
    for (const r of rows) out.get(r.anchor)?.push(JSON.parse(r.doc));
    return out;
  }
  *iterateEdges(org: string, opts: { include_tombstoned?: boolean; tombstoned_before?: number } = {}): Generator<EdgeRecord> {
    let sql = 'SELECT doc FROM edges WHERE org = ?';
    const params: unknown[] = [org];
    if (opts.tombstoned_before !== undefined) {
      sql += ' AND tombstone_at IS NOT NULL AND tombstone_at <= ?';
      params.push(opts.tombstoned_before);
    } else if (!opts.include_tombstoned) sql += ' AND tombstone_at IS NULL';
    for (const r of this.db.prepare(sql + ' ORDER BY created_at, uid').iterate(...params) as Iterable<{ doc: string }>)
      yield JSON.parse(r.doc);
  }
  /** Adjacency for traversal: compact rows, no JSON parsing. */
  adjacencySync(org: string, uid: string, direction: 'outgoing' | 'incoming'): AdjacencyRow[] {
    const sql =
      direction === 'outgoing'
        ? 'SELECT uid, from_uid, to_uid, edge_type, weight, confidence FROM edges WHERE org = ? AND from_uid = ? AND tombstone_at IS NULL'
        : 'SELECT uid, from_uid, to_uid, edge_type, weight, confidence FROM edges WHERE org = ? AND to_uid = ? AND tombstone_at IS NULL';
    return this.stmt(sql).all(org, uid) as AdjacencyRow[];
  }
  /** Liveness and type of many nodes at once, without parsing docs (traversal filters). */
  nodeHeadsSync(org: string, uids: string[]): Map<string, NodeHead> {
    const out = new Map<string, NodeHead>();
    for (let i = 0; i < uids.length; i += CHUNK) {
      const part = uids.slice(i, i + CHUNK);
      const rows = this.db
        .prepare(`SELECT uid, node_type, layer, tombstone_at FROM nodes WHERE org = ? AND uid IN (${part.map(() => '?').join(',')})`)
        .all(org, ...part) as NodeHead[];
      for (const r of rows) out.set(r.uid, r);
    }
    return out;
  }

  // ---------- aliases ----------
  aliasesOfSync(org: string, uid: string): AliasRecord[] {
    return this.stmt(
      'SELECT text, norm, canonical_uid, score, created_at FROM aliases WHERE org = ? AND canonical_uid = ? ORDER BY score DESC, created_at ASC, norm ASC',
    ).all(org, uid) as AliasRecord[];
  }
  aliasesByNormSync(org: string, norm: string): AliasRecord[] {
    return this.stmt(
      'SELECT text, norm, canonical_uid, score, created_at FROM aliases WHERE org = ? AND norm = ? ORDER BY score DESC, created_at ASC, canonical_uid ASC',
    ).all(org, norm) as AliasRecord[];
  }
  allAliasesSync(org: string): AliasRecord[] {
    return this.stmt('SELECT text, norm, canonical_uid, score, created_at FROM aliases WHERE org = ? ORDER BY created_at, norm, canonical_uid').all(
      org,
    ) as AliasRecord[];
  }

  // ---------- embeddings ----------
  embeddingConfigSync(org: string): EmbeddingConfig | null {
    return (
      (this.stmt('SELECT provider, model, dimensions, distance_metric, configured_at FROM embedding_config WHERE org = ?').get(org) as
        | EmbeddingConfig
        | undefined) ?? null
    );
  }
  getEmbeddingSync(org: string, uid: string): StoredEmbedding | null {
    const row = this.stmt('SELECT uid, model, dimension, vector, updated_at FROM embeddings WHERE org = ? AND uid = ?').get(org, uid) as
      | { uid: string; model: string; dimension: number; vector: Buffer; updated_at: number }
      | undefined;
    if (!row) return null;
    return { uid: row.uid, model: row.model, dimension: row.dimension, updated_at: row.updated_at, vector: blobToVector(row.vector) };
  }
  *iterateEmbeddings(org: string): Generator<StoredEmbedding> {
    for (const row of this.db.prepare('SELECT uid, model, dimension, vector, updated_at FROM embeddings WHERE org = ? ORDER BY uid').iterate(org) as Iterable<{
      uid: string;
      model: string;
      dimension: number;
      vector: Buffer;
      updated_at: number;
    }>)
      yield { uid: row.uid, model: row.model, dimension: row.dimension, updated_at: row.updated_at, vector: blobToVector(row.vector) };
  }
  embeddingCountSync(org: string): number {
    return (this.stmt('SELECT count(*) AS n FROM embeddings WHERE org = ?').get(org) as { n: number }).n;
  }

  // ---------- series ----------
  seriesPointsSync(
    org: string,
    seriesUid: string,
    q: { start?: number; end?: number; order?: 'asc' | 'desc'; limit: number; offset: number },
  ): PageResult<SeriesPointRow> {
    const where = ['org = ?', 'series_uid = ?'];
    const params: unknown[] = [org, seriesUid];
    if (q.start !== undefined) {
      where.push('ts >= ?');
      params.push(q.start);
    }
    if (q.end !== undefined) {
      where.push('ts < ?');
      params.push(q.end);
    }
    const rows = this.db
      .prepare(
        `SELECT series_uid, ts, value, source_uid, note, recorded_at FROM series_points WHERE ${where.join(' AND ')} ORDER BY ts ${
          q.order === 'desc' ? 'DESC' : 'ASC'
        } LIMIT ? OFFSET ?`,
      )
      .all(...params, q.limit + 1, q.offset) as SeriesPointRow[];
    const has_more = rows.length > q.limit;
    if (has_more) rows.pop();
    return { items: rows, has_more };
  }
  seriesAllPointsSync(org: string, seriesUid: string, start?: number, end?: number): SeriesPointRow[] {
    return this.seriesPointsSync(org, seriesUid, { start, end, limit: 10_000_000, offset: 0 }).items;
  }
  seriesPointCountSync(org: string, seriesUid: string): number {
    return (this.stmt('SELECT points FROM series_counts WHERE org = ? AND series_uid = ?').pluck().get(org, seriesUid) as number | undefined) ?? 0;
  }
  *iterateSeriesPoints(org: string): Generator<SeriesPointRow> {
    yield* this.db
      .prepare('SELECT series_uid, ts, value, source_uid, note, recorded_at FROM series_points WHERE org = ? ORDER BY series_uid, ts')
      .iterate(org) as Iterable<SeriesPointRow>;
  }

  versionCountSync(org: string, nodeUids: string[], edgeUids: string[]): number {
    let n = 0;
    for (const [table, uids] of [
      ['nodes', nodeUids],
      ['edges', edgeUids],
    ] as const) {
      for (let i = 0; i < uids.length; i += CHUNK) {
        const part = uids.slice(i, i + CHUNK);
        n += (
          this.db.prepare(`SELECT coalesce(sum(vcount),0) AS n FROM ${table} WHERE org = ? AND uid IN (${part.map(() => '?').join(',')})`).get(org, ...part) as {
            n: number;
          }
        ).n;
      }
    }
    return n;
  }

  // ---------- stats ----------
  statsSync(org: string): GraphStats {
    // every aggregate below is answered from an index (see GRAPH_INDEXES), not the rows
    type Group = { k: string; n: number; v: number };
    const byType = this.stmt(
      'SELECT node_type AS k, count(*) AS n, coalesce(sum(vcount),0) AS v FROM nodes WHERE org = ? AND tombstone_at IS NULL GROUP BY node_type',
    ).all(org) as Group[];
    const byLayer = this.stmt('SELECT layer AS k, count(*) AS n, 0 AS v FROM nodes WHERE org = ? AND tombstone_at IS NULL GROUP BY layer').all(org) as Group[];
    const eByType = this.stmt(
      'SELECT edge_type AS k, count(*) AS n, coalesce(sum(vcount),0) AS v FROM edges WHERE org = ? AND tombstone_at IS NULL GROUP BY edge_type',
    ).all(org) as Group[];
    const tomb = (table: 'nodes' | 'edges') =>
      this.stmt(`SELECT count(*) AS n, coalesce(sum(vcount),0) AS v FROM ${table} WHERE org = ? AND tombstone_at IS NOT NULL`).get(org) as { n: number; v: number };
    const sum = (rows: Group[]) => rows.reduce((a, r) => ({ n: a.n + r.n, v: a.v + r.v }), { n: 0, v: 0 });
    const liveNodes = sum(byType);
    const liveEdges = sum(eByType);
    const tombNodes = tomb('nodes');
    const tombEdges = tomb('edges');
    const n = { total: liveNodes.n + tombNodes.n, live: liveNodes.n, v: liveNodes.v + tombNodes.v };
    const e = { total: liveEdges.n + tombEdges.n, live: liveEdges.n, v: liveEdges.v + tombEdges.v };
    const aliases = (this.stmt('SELECT count(*) AS n FROM aliases WHERE org = ?').get(org) as { n: number }).n;
    const points = this.stmt('SELECT coalesce(sum(points), 0) FROM series_counts WHERE org = ?').pluck().get(org) as number;
    const toObj = (rows: { k: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.k, r.n]));
    return {
      total_nodes: n.total,
      live_nodes: n.live,
      tombstoned_nodes: n.total - n.live,
      total_edges: e.total,
      live_edges: e.live,
      tombstoned_edges: e.total - e.live,
      nodes_by_type: toObj(byType),
      nodes_by_layer: toObj(byLayer),
      edges_by_type: toObj(eByType),
      total_versions: n.v + e.v,
      total_aliases: aliases,
      embedding_count: this.embeddingCountSync(org),
      series_point_count: points,
    };
  }

  // ---------- async port ----------
  async getNode(org: string, uid: string) {
    return this.getNodeSync(org, uid);
  }
  async getNodes(org: string, uids: string[]) {
    return this.getNodesSync(org, uids);
  }
  async nodeRevision(org: string, uid: string) {
    return this.nodeRevisionSync(org, uid);
  }
  async membershipMark(org: string) {
    return (this.stmt('SELECT pos FROM membership_marks WHERE org = ?').pluck().get(org) as number | undefined) ?? 0;
  }
  async listNodes(org: string, f: NodeFilter, page: Page, order?: NodeOrder) {
    return this.listNodesSync(org, f, page, order);
  }
  async countNodes(org: string, f: NodeFilter) {
    return this.countNodesSync(org, f);
  }
  async getEdge(org: string, uid: string) {
    return this.getEdgeSync(org, uid);
  }
  async edgeRevision(org: string, uid: string) {
    return this.edgeRevisionSync(org, uid);
  }
  async listEdges(org: string, f: EdgeFilter, limit?: number) {
    return this.listEdgesSync(org, f, limit);
  }
  async edgesTouchingEach(org: string, uids: string[], limitEach: number) {
    return this.edgesTouchingEachSync(org, uids, limitEach);
  }
  async aliasesOf(org: string, uid: string) {
    return this.aliasesOfSync(org, uid);
  }
  async aliasesByNorm(org: string, norm: string) {
    return this.aliasesByNormSync(org, norm);
  }
  async allAliases(org: string) {
    return this.allAliasesSync(org);
  }
  async embeddingConfig(org: string) {
    return this.embeddingConfigSync(org);
  }
  async getEmbedding(org: string, uid: string) {
    return this.getEmbeddingSync(org, uid);
  }
  async stats(org: string) {
    return this.statsSync(org);
  }
  async versionCount(org: string, nodeUids: string[], edgeUids: string[]) {
    return this.versionCountSync(org, nodeUids, edgeUids);
  }
  async seriesPointCount(org: string, seriesUid: string) {
    return this.seriesPointCountSync(org, seriesUid);
  }
  async seriesPoints(org: string, seriesUid: string, q: { start?: number; end?: number; order?: 'asc' | 'desc'; limit: number; offset: number }) {
    return this.seriesPointsSync(org, seriesUid, q);
  }
}

export interface AdjacencyRow {
  uid: string;
  from_uid: string;
  to_uid: string;
  edge_type: string;
  weight: number;
  confidence: number;
}
export interface NodeHead {
  uid: string;
  node_type: string;
  layer: string;
  tombstone_at: number | null;
}

/** A label look-up of label-indexed types only: `nodes_label` (a partial index) holds all it can find. */
function labelIndexed(f: NodeFilter): boolean {
  return f.label_norm !== undefined && !!f.node_types && f.node_types.length > 0 && f.node_types.every((t) => LABEL_LOOKUP_TYPES.has(t));
}

const SAFE_PROP = /^[A-Za-z_][A-Za-z0-9_]*$/;

function addPropsFilters(
  where: string[],
  params: unknown[],
  eq?: Record<string, unknown>,
  inn?: Record<string, unknown[]>,
): void {
  for (const [field, value] of Object.entries(eq ?? {})) {
    if (!SAFE_PROP.test(field)) throw new Error(`unsafe props field ${field}`);
    if (value === null) where.push(`json_extract(doc, '$.props.${field}') IS NULL`);
    else {
      where.push(`json_extract(doc, '$.props.${field}') = ?`);
      params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    }
  }
  for (const [field, values] of Object.entries(inn ?? {})) {
    if (!SAFE_PROP.test(field)) throw new Error(`unsafe props field ${field}`);
    const nonNull = values.filter((v) => v !== null);
    const parts: string[] = [];
    if (nonNull.length) {
      parts.push(`json_extract(doc, '$.props.${field}') IN (${nonNull.map(() => '?').join(',')})`);
      params.push(...nonNull.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)));
    }
    if (nonNull.length !== values.length) parts.push(`json_extract(doc, '$.props.${field}') IS NULL`);
    where.push(parts.length ? `(${parts.join(' OR ')})` : '0');
  }
}

export function vectorToBlob(v: number[] | Float32Array): Buffer {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}
export function blobToVector(b: Buffer): number[] {
  // copy: SQLite blobs are not guaranteed to be 4-byte aligned
  const f = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  return Array.from(f);
}
