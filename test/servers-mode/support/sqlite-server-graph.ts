import type { Database } from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import type { EdgeFilter, GraphReadModel, NodeFilter, NodeOrder, Page, StoredEmbedding } from '@strata/graph-store/graph-read-model.port';
import { embeddingOriginOf } from '@strata/graph-store/mongo/mongo-documents';
import type { Revisioned } from '@strata/graph-store/mongo/mongo-graph-store';
import { GRAPH_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import type { GraphWriterPort } from '@strata/projections/server/graph.server-projection';
import type { EmbeddingOrigin, ServerGraphReads } from '@strata/platform/storage/server-stores';

/**
 * The graph read model of servers mode on SQLite: the embedded SqliteGraphStore behind the
 * GraphReadModel port only (so GET /node takes the path it takes on MongoDB, without the
 * synchronous JSON lane), plus what servers mode reads beyond the port (ServerGraphReads): a record together
 * with its stream revision, and who produced each recorded vector. better-sqlite3 reads are
 * synchronous, so a record and its revision read in one call come from one committed state,
 * as MongoGraphStore's one-document reads do.
 *
 * Who produced a vector lives in a side table written from EmbeddingSet events (the embedded
 * schema has no column for it); it is read only for nodes whose embedding row exists, so the
 * embedded writer's deletions (EmbeddingDeleted, purge, clear, a dropping reconfiguration)
 * apply to it unchanged.
 */
export class SqliteServerGraph implements ServerGraphReads {
  /** the embedded store; not handed out, so nothing reaches past the port (its synchronous extras) */
  private readonly store: SqliteGraphStore;

  constructor(readonly db: Database) {
    this.store = new SqliteGraphStore(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS embedding_origins (
        org TEXT NOT NULL, uid TEXT NOT NULL, source TEXT NOT NULL, text_hash TEXT, PRIMARY KEY (org, uid)
      );
      CREATE TABLE IF NOT EXISTS server_graph_applied (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
    `);
  }

  /** the worker's writer over the same tables */
  writer(): SqliteServerGraphWriter {
    return new SqliteServerGraphWriter(this.store);
  }

  // ---------- GraphReadModel, as the embedded store answers it ----------
  getNode(org: string, uid: string) {
    return this.store.getNode(org, uid);
  }
  getNodes(org: string, uids: string[]) {
    return this.store.getNodes(org, uids);
  }
  nodeRevision(org: string, uid: string) {
    return this.store.nodeRevision(org, uid);
  }
  membershipMark(org: string) {
    return this.store.membershipMark(org);
  }
  listNodes(org: string, f: NodeFilter, page: Page, order?: NodeOrder) {
    return this.store.listNodes(org, f, page, order);
  }
  countNodes(org: string, f: NodeFilter) {
    return this.store.countNodes(org, f);
  }
  getEdge(org: string, uid: string) {
    return this.store.getEdge(org, uid);
  }
  edgeRevision(org: string, uid: string) {
    return this.store.edgeRevision(org, uid);
  }
  listEdges(org: string, f: EdgeFilter, limit?: number) {
    return this.store.listEdges(org, f, limit);
  }
  aliasesOf(org: string, uid: string) {
    return this.store.aliasesOf(org, uid);
  }
  aliasesByNorm(org: string, norm: string) {
    return this.store.aliasesByNorm(org, norm);
  }
  allAliases(org: string) {
    return this.store.allAliases(org);
  }
  embeddingConfig(org: string) {
    return this.store.embeddingConfig(org);
  }
  getEmbedding(org: string, uid: string) {
    return this.store.getEmbedding(org, uid);
  }
  stats(org: string) {
    return this.store.stats(org);
  }
  versionCount(org: string, nodeUids: string[], edgeUids: string[]) {
    return this.store.versionCount(org, nodeUids, edgeUids);
  }
  seriesPointCount(org: string, seriesUid: string) {
    return this.store.seriesPointCount(org, seriesUid);
  }
  seriesPoints(org: string, seriesUid: string, q: Parameters<GraphReadModel['seriesPoints']>[2]) {
    return this.store.seriesPoints(org, seriesUid, q);
  }

  // ---------- what servers mode reads beyond the port ----------
  async getNodeWithRevision(org: string, uid: string): Promise<Revisioned<NodeRecord> | null> {
    const record = this.store.getNodeSync(org, uid);
    return record ? { record, revision: this.store.nodeRevisionSync(org, uid) } : null;
  }

  async getEdgeWithRevision(org: string, uid: string): Promise<Revisioned<EdgeRecord> | null> {
    const record = this.store.getEdgeSync(org, uid);
    return record ? { record, revision: this.store.edgeRevisionSync(org, uid) } : null;
  }

  async listEdgesWithRevisions(org: string, f: EdgeFilter, limit?: number): Promise<Revisioned<EdgeRecord>[]> {
    return this.store.listEdgesSync(org, f, limit).map((record) => ({ record, revision: this.store.edgeRevisionSync(org, record.uid) }));
  }

  async embeddingOrigins(org: string, uids: string[]): Promise<Map<string, EmbeddingOrigin>> {
    const get = this.store.stmt(
      'SELECT o.source, o.text_hash FROM embedding_origins o JOIN embeddings e ON e.org = o.org AND e.uid = o.uid WHERE o.org = ? AND o.uid = ?',
    );
    const out = new Map<string, EmbeddingOrigin>();
    for (const uid of uids) {
      const row = get.get(org, uid) as EmbeddingOrigin | undefined;
      if (row) out.set(uid, { source: row.source === 'explicit' ? 'explicit' : 'provider', text_hash: row.text_hash ?? null });
    }
    return out;
  }

  async getEmbeddings(org: string, uids: string[]): Promise<Map<string, StoredEmbedding>> {
    const out = new Map<string, StoredEmbedding>();
    for (const uid of uids) {
      const e = this.store.getEmbeddingSync(org, uid);
      if (e) out.set(uid, e);
    }
    return out;
  }
}

/**
 * The worker's graph writer on SQLite (GraphWriterPort): the embedded SqliteGraphWriter, one
 * transaction per batch. The port requires a batch applied again to change nothing (the worker
 * checkpoints after applying); the embedded writer counts versions on insert, so the highest
 * applied position is kept in the same transaction and events at or below it are skipped,
 * where MongoGraphWriter guards each document by position.
 */
export class SqliteServerGraphWriter implements GraphWriterPort {
  private readonly writer: SqliteGraphWriter;
  private readonly applyTx: (events: RecordedEvent[]) => void;

  constructor(private readonly graph: SqliteGraphStore) {
    this.writer = new SqliteGraphWriter(graph);
    this.applyTx = graph.db.transaction((events: RecordedEvent[]) => {
      const done = (graph.stmt('SELECT position FROM server_graph_applied WHERE id = 1').pluck().get() as number | undefined) ?? 0;
      const origin = graph.stmt(
        'INSERT INTO embedding_origins(org, uid, source, text_hash) VALUES (?,?,?,?) ON CONFLICT(org, uid) DO UPDATE SET source = excluded.source, text_hash = excluded.text_hash',
      );
      let last = done;
      for (const e of events) {
        if (e.position <= done) continue;
        this.writer.apply(e);
        if (e.type === 'EmbeddingSet') {
          const o = embeddingOriginOf(e.data);
          origin.run(e.metadata.org_id, e.data.uid, o.source, o.text_hash);
        }
        last = e.position;
      }
      graph.stmt('INSERT INTO server_graph_applied(id, position) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET position = excluded.position').run(last);
    });
  }

  async apply(events: RecordedEvent[]): Promise<void> {
    this.applyTx(events);
  }

  async reset(): Promise<void> {
    this.graph.db.transaction(() => {
      for (const t of [...GRAPH_TABLES, 'embedding_origins', 'server_graph_applied']) this.graph.db.prepare(`DELETE FROM ${t}`).run();
    })();
  }
}
