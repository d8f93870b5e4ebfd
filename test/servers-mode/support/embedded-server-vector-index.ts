import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import type { VectorHit, VectorItem, VectorQuery, VectorSpaceConfig } from '@strata/vector-index/vector-index.port';
import type { ServerVectorIndex } from '@strata/platform/storage/server-stores';

/**
 * The vector index of servers mode (Qdrant) played by the embedded index: the VectorIndex port
 * as it is, plus the point look-ups servers mode reads (ServerVectorIndex). One instance is
 * shared by the worker, which writes it, and the API replicas, which read it.
 */
export class EmbeddedServerVectorIndex implements ServerVectorIndex {
  constructor(readonly index: EmbeddedVectorIndex) {}

  configure(org: string, config: VectorSpaceConfig): Promise<void> {
    return this.index.configure(org, config);
  }
  upsert(org: string, items: VectorItem[]): Promise<void> {
    return this.index.upsert(org, items);
  }
  remove(org: string, uids: string[]): Promise<void> {
    return this.index.remove(org, uids);
  }
  removeOrg(org: string): Promise<void> {
    return this.index.removeOrg(org);
  }
  search(q: VectorQuery): Promise<VectorHit[]> {
    return this.index.search(q);
  }
  count(org: string): Promise<number> {
    return this.index.count(org);
  }
  async getVector(org: string, uid: string): Promise<number[] | undefined> {
    return this.index.getVector(org, uid);
  }
  async has(org: string, uids: string[]): Promise<Set<string>> {
    return new Set(uids.filter((u) => this.index.getVector(org, u) !== undefined));
  }
  /** every organization's vectors (QdrantVectorIndex.removeAll) */
  async removeAll(): Promise<void> {
    this.index.clearSync();
  }
  flush(): Promise<void> {
    return this.index.flush();
  }
  close(): Promise<void> {
    return this.index.close();
  }
}
