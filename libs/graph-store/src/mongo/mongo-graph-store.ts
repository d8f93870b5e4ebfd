import { Collection, Db, Document } from 'mongodb';
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
import {
  ALIAS_PROJECTION,
  EmbeddingOrigin,
  GRAPH_COLLECTIONS,
  GraphCollection,
  RECORD_PROJECTION,
  aliasFromDocument,
  edgeFromDocument,
  embeddingConfigFromDocument,
  embeddingFromDocument,
  embeddingOriginFromDocument,
  nodeFromDocument,
  seriesPointFromDocument,
} from './mongo-documents';
import { EDGE_SORT, NODE_SORT, combine, edgeFilterToMongo, nodeFilterToMongo, seriesFilterToMongo } from './mongo-filters';
import { GRAPH_INDEXES } from './mongo-indexes';

/** uids per `$in` list: keeps each query document far below MongoDB's 16 MB limit. */
const CHUNK = 10_000;

/** A record read together with its stream revision (one document, one consistent read). */
export interface Revisioned<T> {
  record: T;
  revision: number;
}

/**
 * The graph read model on MongoDB (`STRATA_STORE=servers`): the same answers as
 * SqliteGraphStore, written only by MongoGraphWriter. Filters and documents are translated
 * by the pure modules beside it.
 */
export class MongoGraphStore implements GraphReadModel {
  constructor(readonly db: Db) {}

  collection(c: GraphCollection): Collection<Document> {
    return this.db.collection(GRAPH_COLLECTIONS[c]);
  }

  /** Creates the indexes (idempotent); call once before serving or projecting. */
  async ensureIndexes(): Promise<void> {
    for (const [c, indexes] of Object.entries(GRAPH_INDEXES) as [GraphCollection, (typeof GRAPH_INDEXES)[GraphCollection]][])
      await this.collection(c).createIndexes(indexes);
  }

  // ---------- nodes ----------
  async getNode(org: string, uid: string): Promise<NodeRecord | null> {
    const d = await this.collection('nodes').findOne({ org, uid }, { projection: RECORD_PROJECTION });
    return d ? nodeFromDocument(d) : null;
  }

  async getNodeWithRevision(org: string, uid: string): Promise<Revisioned<NodeRecord> | null> {
    const d = await this.collection('nodes').findOne({ org, uid }, { projection: { _id: 0, doc: 1, rev: 1 } });
    return d ? { record: nodeFromDocument(d), revision: d.rev } : null;
  }

  async getNodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    const out = new Map<string, NodeRecord>();
    for (let i = 0; i < uids.length; i += CHUNK) {
      const part = uids.slice(i, i + CHUNK);
      for await (const d of this.collection('nodes').find({ org, uid: { $in: part } }, { projection: RECORD_PROJECTION })) {
        const n = nodeFromDocument(d);
        out.set(n.uid, n);
      }
    }
    return out;
  }

  async nodeRevision(org: string, uid: string): Promise<number> {
    const d = await this.collection('nodes').findOne({ org, uid }, { projection: { _id: 0, rev: 1 } });
    return d ? d.rev : -1;
  }

  async membershipMark(org: string): Promise<number> {
    const d = await this.collection('membershipMarks').findOne({ org }, { projection: { _id: 0, pos: 1 } });
    return d ? (d.pos as number) : 0;
  }

  async listNodes(org: string, f: NodeFilter, page: Page, order: NodeOrder = 'created_desc'): Promise<PageResult<NodeRecord>> {
    const docs = await this.collection('nodes')
      .find(nodeFilterToMongo(org, f), { projection: RECORD_PROJECTION })
      .sort(NODE_SORT[order])
      .skip(page.offset)
      .limit(page.limit + 1)
      .toArray();
    const has_more = docs.length > page.limit;
    if (has_more) docs.pop();
    return { items: docs.map(nodeFromDocument), has_more };
  }

  async countNodes(org: string, f: NodeFilter): Promise<number> {
    return this.collection('nodes').countDocuments(nodeFilterToMongo(org, f));
  }

  // ---------- edges ----------
  async getEdge(org: string, uid: string): Promise<EdgeRecord | null> {
    const d = await this.collection('edges').findOne({ org, uid }, { projection: RECORD_PROJECTION });
    return d ? edgeFromDocument(d) : null;
  }

  async getEdgeWithRevision(org: string, uid: string): Promise<Revisioned<EdgeRecord> | null> {
    const d = await this.collection('edges').findOne({ org, uid }, { projection: { _id: 0, doc: 1, rev: 1 } });
    return d ? { record: edgeFromDocument(d), revision: d.rev } : null;
  }

  async edgeRevision(org: string, uid: string): Promise<number> {
    const d = await this.collection('edges').findOne({ org, uid }, { projection: { _id: 0, rev: 1 } });
    return d ? d.rev : -1;
  }

  async listEdges(org: string, f: EdgeFilter, limit = 1_000_000): Promise<EdgeRecord[]> {
    return (await this.listEdgesWithRevisions(org, f, limit)).map((e) => e.record);
  }

  /** listEdges with each edge's stream revision, from the same documents. */
  async listEdgesWithRevisions(org: string, f: EdgeFilter, limit = 1_000_000): Promise<Revisioned<EdgeRecord>[]> {
    const projection = { _id: 0, doc: 1, rev: 1 };
    const toEntry = (d: Document): Revisioned<EdgeRecord> => ({ record: edgeFromDocument(d), revision: d.rev });
    if (f.among !== undefined && f.among.length > CHUNK) {
      // a very large set: IN on from_uid per chunk, to_uid checked here, then the usual order
      const base = edgeFilterToMongo(org, { ...f, among: undefined })!;
      const inSet = new Set(f.among);
      const rows: Revisioned<EdgeRecord>[] = [];
      for (let i = 0; i < f.among.length; i += CHUNK) {
        const filter = combine([base, { 'doc.from_uid': { $in: f.among.slice(i, i + CHUNK) } }]);
        for await (const d of this.collection('edges').find(filter, { projection })) {
          const e = toEntry(d);
          if (inSet.has(e.record.to_uid)) rows.push(e);
        }
      }
      rows.sort((a, b) => a.record.created_at - b.record.created_at || compareText(a.record.uid, b.record.uid));
      return rows.slice(0, limit);
    }
    const filter = edgeFilterToMongo(org, f);
    if (!filter) return [];
    const docs = await this.collection('edges').find(filter, { projection }).sort(EDGE_SORT).limit(limit).toArray();
    return docs.map(toEntry);
  }

  // ---------- aliases ----------
  async aliasesOf(org: string, uid: string): Promise<AliasRecord[]> {
    return this.aliases({ org, canonical_uid: uid }, { score: -1, created_at: 1, norm: 1 });
  }
  async aliasesByNorm(org: string, norm: string): Promise<AliasRecord[]> {
    return this.aliases({ org, norm }, { score: -1, created_at: 1, canonical_uid: 1 });
  }
  async allAliases(org: string): Promise<AliasRecord[]> {
    return this.aliases({ org }, { created_at: 1, norm: 1, canonical_uid: 1 });
  }
  private async aliases(filter: Document, sort: Record<string, 1 | -1>): Promise<AliasRecord[]> {
    const docs = await this.collection('aliases').find(filter, { projection: ALIAS_PROJECTION }).sort(sort).toArray();
    return docs.map(aliasFromDocument);
  }

  // ---------- embeddings ----------
  async embeddingConfig(org: string): Promise<EmbeddingConfig | null> {
    const d = await this.collection('embeddingConfig').findOne({ org });
    return d ? embeddingConfigFromDocument(d) : null;
  }
  async getEmbedding(org: string, uid: string): Promise<StoredEmbedding | null> {
    const d = await this.collection('embeddings').findOne({ org, uid });
    return d ? embeddingFromDocument(d) : null;
  }

  /** Who produced the recorded vectors of these nodes (server-mode automatic embedding). */
  async embeddingOrigins(org: string, uids: string[]): Promise<Map<string, EmbeddingOrigin>> {
    const out = new Map<string, EmbeddingOrigin>();
    for (let i = 0; i < uids.length; i += CHUNK) {
      const filter = { org, uid: { $in: uids.slice(i, i + CHUNK) } };
      for await (const d of this.collection('embeddings').find(filter, { projection: { _id: 0, uid: 1, source: 1, text_hash: 1 } }))
        out.set(d.uid, embeddingOriginFromDocument(d));
    }
    return out;
  }

  /** The recorded vectors of these nodes. */
  async getEmbeddings(org: string, uids: string[]): Promise<Map<string, StoredEmbedding>> {
    const out = new Map<string, StoredEmbedding>();
    for (let i = 0; i < uids.length; i += CHUNK) {
      for await (const d of this.collection('embeddings').find({ org, uid: { $in: uids.slice(i, i + CHUNK) } })) out.set(d.uid, embeddingFromDocument(d));
    }
    return out;
  }

  // ---------- series ----------
  async seriesPointCount(org: string, seriesUid: string): Promise<number> {
    return this.collection('seriesPoints').countDocuments({ org, series_uid: seriesUid });
  }
  async seriesPoints(
    org: string,
    seriesUid: string,
    q: { start?: number; end?: number; order?: 'asc' | 'desc'; limit: number; offset: number },
  ): Promise<PageResult<SeriesPointRow>> {
    const docs = await this.collection('seriesPoints')
      .find(seriesFilterToMongo(org, seriesUid, q))
      .sort({ ts: q.order === 'desc' ? -1 : 1 })
      .skip(q.offset)
      .limit(q.limit + 1)
      .toArray();
    const has_more = docs.length > q.limit;
    if (has_more) docs.pop();
    return { items: docs.map(seriesPointFromDocument), has_more };
  }

  // ---------- counts ----------
  async versionCount(org: string, nodeUids: string[], edgeUids: string[]): Promise<number> {
    let n = 0;
    for (const [c, uids] of [
      ['nodes', nodeUids],
      ['edges', edgeUids],
    ] as const) {
      for (let i = 0; i < uids.length; i += CHUNK) {
        const [row] = await this.collection(c)
          .aggregate([{ $match: { org, uid: { $in: uids.slice(i, i + CHUNK) } } }, { $group: { _id: null, n: { $sum: '$vcount' } } }])
          .toArray();
        n += row?.n ?? 0;
      }
    }
    return n;
  }

  async stats(org: string): Promise<GraphStats> {
    const live = { 'doc.tombstone_at': null };
    const totals = { $group: { _id: null, total: { $sum: 1 }, live: { $sum: { $cond: [{ $eq: [{ $ifNull: ['$doc.tombstone_at', null] }, null] }, 1, 0] } }, v: { $sum: '$vcount' } } };
    const countBy = (field: string) => [{ $match: live }, { $group: { _id: `$doc.${field}`, n: { $sum: 1 } } }];
    const [nodes, edges, aliases, embeddings, points] = await Promise.all([
      this.collection('nodes')
        .aggregate([{ $match: { org } }, { $facet: { totals: [totals], byType: countBy('node_type'), byLayer: countBy('layer') } }])
        .toArray(),
      this.collection('edges')
        .aggregate([{ $match: { org } }, { $facet: { totals: [totals], byType: countBy('edge_type') } }])
        .toArray(),
      this.collection('aliases').countDocuments({ org }),
      this.collection('embeddings').countDocuments({ org }),
      this.collection('seriesPoints').countDocuments({ org }),
    ]);
    const n = nodes[0]?.totals[0] ?? { total: 0, live: 0, v: 0 };
    const e = edges[0]?.totals[0] ?? { total: 0, live: 0, v: 0 };
    const toObj = (rows: { _id: string; n: number }[] = []) => Object.fromEntries(rows.map((r) => [r._id, r.n]));
    return {
      total_nodes: n.total,
      live_nodes: n.live,
      tombstoned_nodes: n.total - n.live,
      total_edges: e.total,
      live_edges: e.live,
      tombstoned_edges: e.total - e.live,
      nodes_by_type: toObj(nodes[0]?.byType),
      nodes_by_layer: toObj(nodes[0]?.byLayer),
      edges_by_type: toObj(edges[0]?.byType),
      total_versions: n.v + e.v,
      total_aliases: aliases,
      embedding_count: embeddings,
      series_point_count: points,
    };
  }
}

/** Binary order of ASCII uids, as MongoDB and SQLite compare them. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
