import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { EdgeFilter, GraphReadModel, NodeFilter, NodeOrder, Page } from '@strata/graph-store/graph-read-model.port';
import type { Revisioned } from '@strata/graph-store/mongo/mongo-graph-store';

/** Reads that return a record and its stream revision from one document (MongoGraphStore). */
export interface RevisionedReads {
  getNodeWithRevision(org: string, uid: string): Promise<Revisioned<NodeRecord> | null>;
  getEdgeWithRevision(org: string, uid: string): Promise<Revisioned<EdgeRecord> | null>;
  listEdgesWithRevisions(org: string, f: EdgeFilter, limit?: number): Promise<Revisioned<EdgeRecord>[]>;
}

/**
 * One request's reader in server mode, where projections move while a request decides.
 * GraphTx reads a record, then its revision, and appends expecting that revision; read
 * separately they could come from two different versions and let a stale decision through.
 * Here both come from one document, and the first read of each uid is kept for the rest of
 * the request: a consistent snapshot, checked by the append's expected revisions.
 */
export class RevisionPinningReader implements GraphReadModel {
  private readonly nodes = new Map<string, Revisioned<NodeRecord> | null>();
  private readonly edges = new Map<string, Revisioned<EdgeRecord> | null>();

  constructor(private readonly inner: GraphReadModel & RevisionedReads) {}

  async getNode(org: string, uid: string): Promise<NodeRecord | null> {
    return (await this.pinnedNode(org, uid))?.record ?? null;
  }
  async nodeRevision(org: string, uid: string): Promise<number> {
    return (await this.pinnedNode(org, uid))?.revision ?? -1;
  }
  membershipMark(org: string): Promise<number> {
    return this.inner.membershipMark(org);
  }
  async getEdge(org: string, uid: string): Promise<EdgeRecord | null> {
    return (await this.pinnedEdge(org, uid))?.record ?? null;
  }
  async edgeRevision(org: string, uid: string): Promise<number> {
    return (await this.pinnedEdge(org, uid))?.revision ?? -1;
  }

  /** Edges as stored now; an edge already read in this request keeps its first-read version. */
  async listEdges(org: string, f: EdgeFilter, limit?: number): Promise<EdgeRecord[]> {
    const found = await this.inner.listEdgesWithRevisions(org, f, limit);
    return found.map((e) => {
      const k = key(org, e.record.uid);
      const pinned = this.edges.get(k);
      if (pinned) return pinned.record;
      this.edges.set(k, e);
      return e.record;
    });
  }

  private async pinnedNode(org: string, uid: string): Promise<Revisioned<NodeRecord> | null> {
    const k = key(org, uid);
    if (!this.nodes.has(k)) this.nodes.set(k, await this.inner.getNodeWithRevision(org, uid));
    return this.nodes.get(k) ?? null;
  }
  private async pinnedEdge(org: string, uid: string): Promise<Revisioned<EdgeRecord> | null> {
    const k = key(org, uid);
    if (!this.edges.has(k)) this.edges.set(k, await this.inner.getEdgeWithRevision(org, uid));
    return this.edges.get(k) ?? null;
  }

  // ---------- queries: straight through ----------
  getNodes(org: string, uids: string[]) {
    return this.inner.getNodes(org, uids);
  }
  listNodes(org: string, f: NodeFilter, page: Page, order?: NodeOrder) {
    return this.inner.listNodes(org, f, page, order);
  }
  countNodes(org: string, f: NodeFilter) {
    return this.inner.countNodes(org, f);
  }
  aliasesOf(org: string, uid: string) {
    return this.inner.aliasesOf(org, uid);
  }
  aliasesByNorm(org: string, norm: string) {
    return this.inner.aliasesByNorm(org, norm);
  }
  allAliases(org: string) {
    return this.inner.allAliases(org);
  }
  embeddingConfig(org: string) {
    return this.inner.embeddingConfig(org);
  }
  getEmbedding(org: string, uid: string) {
    return this.inner.getEmbedding(org, uid);
  }
  stats(org: string) {
    return this.inner.stats(org);
  }
  versionCount(org: string, nodeUids: string[], edgeUids: string[]) {
    return this.inner.versionCount(org, nodeUids, edgeUids);
  }
  seriesPointCount(org: string, seriesUid: string) {
    return this.inner.seriesPointCount(org, seriesUid);
  }
  seriesPoints(org: string, seriesUid: string, q: Parameters<GraphReadModel['seriesPoints']>[2]) {
    return this.inner.seriesPoints(org, seriesUid, q);
  }
}

function key(org: string, uid: string): string {
  return `${org}\u0000${uid}`;
}
