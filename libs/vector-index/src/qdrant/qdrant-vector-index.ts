import { QdrantClient } from '@qdrant/js-client-rest';
import { checkVector, notConfigured } from '../vector-validation';
import type { VectorHit, VectorIndex, VectorItem, VectorQuery, VectorSpaceConfig } from '../vector-index.port';
import {
  DEFAULT_COLLECTION_PREFIX,
  INDEXED_PAYLOAD_FIELDS,
  type PointPayload,
  buildPointFilter,
  collectionName,
  denseVectorOf,
  ownedCollections,
  fromQdrantDistance,
  pointId,
  toPortScore,
  toQdrantDistance,
  toQdrantScoreThreshold,
} from './qdrant-translation';
import type { Clock } from '@strata/domain/time';

export interface QdrantVectorIndexOptions {
  url?: string;
  apiKey?: string;
  /** an already built client (shared or for tests) */
  client?: QdrantClient;
  /** collection names are `${prefix}_…` (default "strata") */
  collectionPrefix?: string;
  /** request timeout in ms (default 30 s) */
  timeoutMs?: number;
  /** how long a collection's config is trusted before re-reading it (ms, default 5 s) */
  configTtlMs?: number;
  /** the service's clock: the config cache ages on it */
  clock: Clock;
}

const UPSERT_BATCH = 256;

interface CachedConfig {
  config: VectorSpaceConfig | undefined;
  /** when it was read, in ms of the clock */
  at: number;
}

/**
 * VectorIndex on Qdrant, one collection per organization (see `collectionName` for why).
 * Writes use `wait: true` so that a completed upsert is searchable. The org's dimensions and
 * metric are read from the collection itself (cached briefly), so API replicas agree.
 */
export class QdrantVectorIndex implements VectorIndex {
  private readonly client: QdrantClient;
  private readonly prefix: string;
  private readonly configTtlMs: number;
  private readonly configs = new Map<string, CachedConfig>();

  private readonly clock: Clock;

  constructor(options: QdrantVectorIndexOptions) {
    this.clock = options.clock;
    this.prefix = options.collectionPrefix ?? DEFAULT_COLLECTION_PREFIX;
    this.configTtlMs = options.configTtlMs ?? 5_000;
    if (options.client) {
      this.client = options.client;
    } else {
      if (!options.url) throw new Error('QdrantVectorIndex needs a url or a client');
      this.client = new QdrantClient({
        url: options.url,
        apiKey: options.apiKey,
        timeout: options.timeoutMs ?? 30_000,
        checkCompatibility: false,
      });
    }
  }

  async configure(org: string, config: VectorSpaceConfig): Promise<void> {
    const name = this.collection(org);
    const distance = toQdrantDistance(config.metric);
    const current = await this.readConfig(org);
    if (current && current.dimensions === config.dimensions && current.metric === config.metric) return;
    if (current) await this.client.deleteCollection(name);
    try {
      await this.client.createCollection(name, { vectors: { size: config.dimensions, distance } });
    } catch (err) {
      // another replica may have created it a moment ago; accept it if it matches
      const now = await this.readConfig(org, true);
      if (!now || now.dimensions !== config.dimensions || now.metric !== config.metric) throw err;
    }
    for (const field of INDEXED_PAYLOAD_FIELDS) {
      await this.client.createPayloadIndex(name, { field_name: field, field_schema: 'keyword', wait: true });
    }
    this.configs.set(org, { config: { ...config }, at: this.nowMs() });
  }

  async upsert(org: string, items: VectorItem[]): Promise<void> {
    if (!items.length) return;
    const config = await this.readConfig(org);
    if (!config) throw notConfigured(org);
    for (const item of items) checkVector(item.vector, config.dimensions);
    const name = this.collection(org);
    for (let i = 0; i < items.length; i += UPSERT_BATCH) {
      const points = items.slice(i, i + UPSERT_BATCH).map((item) => ({
        id: pointId(org, item.uid),
        vector: Array.from(item.vector),
        payload: { org, uid: item.uid, node_type: item.node_type, layer: item.layer } satisfies PointPayload,
      }));
      await this.client.upsert(name, { wait: true, points });
    }
  }

  async remove(org: string, uids: string[]): Promise<void> {
    if (!uids.length) return;
    if (!(await this.readConfig(org))) return;
    await this.client.delete(this.collection(org), { wait: true, points: uids.map((uid) => pointId(org, uid)) });
  }

  async removeOrg(org: string): Promise<void> {
    const name = this.collection(org);
    try {
      await this.client.deleteCollection(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.configs.delete(org);
  }

  async search(q: VectorQuery): Promise<VectorHit[]> {
    let config = await this.readConfig(q.org);
    // another process (the projection worker) may have re-created the space since it was cached
    if (config && q.vector.length !== config.dimensions) config = await this.readConfig(q.org, true);
    if (!config) return [];
    checkVector(q.vector, config.dimensions);
    const k = Math.floor(q.k);
    if (!(k > 0)) return [];
    const threshold = toQdrantScoreThreshold(config.metric, q.threshold);
    if (threshold === null) return [];
    const response = await this.unlessDropped(q.org, { points: [] }, () =>
      this.client.query(this.collection(q.org), {
        query: Array.from(q.vector),
        limit: k,
        filter: buildPointFilter(q),
        with_payload: ['uid'],
        ...(threshold !== undefined ? { score_threshold: threshold } : {}),
      }),
    );
    const hits: VectorHit[] = [];
    for (const point of response.points) {
      const uid = (point.payload as Partial<PointPayload> | null | undefined)?.uid;
      if (typeof uid !== 'string') continue;
      const score = toPortScore(config.metric, point.score);
      // the server applied the threshold already; this only guards float edge cases
      if (q.threshold !== undefined && q.threshold !== null && score < q.threshold) continue;
      hits.push({ uid, score });
    }
    hits.sort((a, b) => b.score - a.score || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    return hits;
  }

  async count(org: string): Promise<number> {
    if (!(await this.readConfig(org))) return 0;
    const res = await this.unlessDropped(org, { count: 0 }, () => this.client.count(this.collection(org), { exact: true }));
    return res.count;
  }

  /**
   * A point's stored vector (not in the port: the API's GET /node/{uid}/embedding). Qdrant
   * keeps cosine vectors normalised, so callers prefer the recorded vector when there is one.
   */
  async getVector(org: string, uid: string): Promise<number[] | undefined> {
    if (!(await this.readConfig(org))) return undefined;
    const [point] = await this.unlessDropped(org, [], () => this.client.retrieve(this.collection(org), { ids: [pointId(org, uid)], with_vector: true, with_payload: false }));
    return point ? denseVectorOf(point.vector) : undefined;
  }

  /** Of these uids, the ones with a point (not in the port: embedding jobs skip them). */
  async has(org: string, uids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!uids.length || !(await this.readConfig(org))) return out;
    const byId = new Map(uids.map((u) => [pointId(org, u), u]));
    for (let i = 0; i < uids.length; i += UPSERT_BATCH) {
      const ids = uids.slice(i, i + UPSERT_BATCH).map((u) => pointId(org, u));
      for (const p of await this.unlessDropped(org, [], () => this.client.retrieve(this.collection(org), { ids, with_vector: false, with_payload: false }))) {
        const uid = byId.get(String(p.id));
        if (uid !== undefined) out.add(uid);
      }
    }
    return out;
  }

  /** Drops every collection of this prefix, in every organization (before a projection rebuild). */
  async removeAll(): Promise<void> {
    const { collections } = await this.client.getCollections();
    for (const name of ownedCollections(collections.map((c) => c.name), this.prefix)) {
      try {
        await this.client.deleteCollection(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    this.configs.clear();
  }

  async flush(): Promise<void> {
    // every write already waited for the server
  }

  async close(): Promise<void> {
    this.configs.clear();
  }

  /**
   * A read of a collection that another process dropped since its config was cached (a clear,
   * a reconfigure, a rebuild): the organization has no vectors right now, not an error.
   */
  private async unlessDropped<T>(org: string, empty: T, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.configs.delete(org);
      return empty;
    }
  }

  private nowMs(): number {
    return this.clock.now() * 1000;
  }

  private collection(org: string): string {
    return collectionName(org, this.prefix);
  }

  /** The collection's dimensions and metric, or undefined when it does not exist. */
  private async readConfig(org: string, fresh = false): Promise<VectorSpaceConfig | undefined> {
    const cached = this.configs.get(org);
    if (!fresh && cached && this.nowMs() - cached.at < this.configTtlMs) return cached.config;
    let config: VectorSpaceConfig | undefined;
    try {
      const info = await this.client.getCollection(this.collection(org));
      const vectors = info.config.params.vectors as { size?: number; distance?: string } | undefined;
      if (!vectors || typeof vectors.size !== 'number' || typeof vectors.distance !== 'string') {
        throw new Error(`collection ${this.collection(org)} has no single unnamed vector`);
      }
      config = { dimensions: vectors.size, metric: fromQdrantDistance(vectors.distance) };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.configs.set(org, { config, at: this.nowMs() });
    return config;
  }
}

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { status?: number }).status === 404;
}
