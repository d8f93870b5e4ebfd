import { RecordedEvent } from '@strata/domain/events';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import { NodeRecord } from '@strata/domain/records';
import type { VectorIndex, VectorItem } from '@strata/vector-index/vector-index.port';
import { ServerProjection } from './server-projection';
import { PlannedItem, VectorFacts, VectorSpaceOf, planVectorWrites, vectorFactsNeeded } from '../vector-writes';

/** What the vector projection reads besides the events (the MongoDB read model and the embedding rules in production). */
export interface VectorProjectionSource {
  /** the organization's embedding configuration in force (null: embeddings off) */
  space(org: string): Promise<VectorSpaceOf | null>;
  /** of these nodes, the ones holding a client vector (never replaced by a built-in one) */
  pinned(org: string, uids: string[]): Promise<Set<string>>;
  /** the recorded vectors of these nodes */
  storedVectors(org: string, uids: string[]): Promise<Map<string, number[]>>;
  nodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>>;
  /** live nodes, oldest first, a page at a time (re-embedding after a configuration change) */
  liveNodes(org: string, page: { limit: number; offset: number }): Promise<{ items: NodeRecord[]; has_more: boolean }>;
  /** the built-in embedder of a space: local computation, never an external provider */
  embed(space: VectorSpaceOf, texts: string[]): number[][];
}

const BACKFILL_PAGE = 500;

/**
 * Vectors in server mode (Qdrant): the worker applies it after the graph projection, whose
 * read model it consults (see vector-writes.ts for the rules). Every write is idempotent
 * (upsert, remove, configure-if-different), so a batch applied again changes nothing.
 */
/** Bumped when what a node's vector is made of changes: the worker rebuilds the index from the log. */
export const VECTOR_SERVER_PROJECTION_VERSION = 3;

export class VectorServerProjection implements ServerProjection {
  readonly name = 'vectors';
  /** 2: a string repeated among a node's label, summary and props is embedded once (embeddingTextOf) */
  readonly version = VECTOR_SERVER_PROJECTION_VERSION;

  /** `resetAll` drops every organization's vectors (the port has no such call) */
  constructor(
    private readonly index: VectorIndex,
    private readonly source: VectorProjectionSource,
    private readonly resetAll: () => Promise<void>,
  ) {}

  async apply(events: RecordedEvent[]): Promise<void> {
    const facts = await this.facts(events);
    for (const w of planVectorWrites(events, facts)) {
      switch (w.kind) {
        case 'configure':
          await this.index.configure(w.org, { dimensions: w.space.dimensions, metric: w.space.metric });
          break;
        case 'upsert':
          await this.index.upsert(w.org, this.vectorsOf(facts.space(w.org)!, w.items));
          break;
        case 'remove':
          await this.index.remove(w.org, w.uids);
          break;
        case 'removeOrg':
          await this.index.removeOrg(w.org);
          break;
        case 'backfill':
          await this.backfill(w.org);
          break;
      }
    }
  }

  reset(): Promise<void> {
    return this.resetAll();
  }

  private async facts(events: RecordedEvent[]): Promise<VectorFacts> {
    const need = vectorFactsNeeded(events);
    const spaces = new Map<string, VectorSpaceOf | null>();
    const pinned = new Map<string, Set<string>>();
    const stored = new Map<string, Map<string, number[]>>();
    const nodes = new Map<string, Map<string, NodeRecord>>();
    for (const org of need.orgs) {
      const space = await this.source.space(org);
      spaces.set(org, space);
      if (!space) continue;
      pinned.set(org, await this.source.pinned(org, [...(need.pinned.get(org) ?? [])]));
      stored.set(org, await this.source.storedVectors(org, [...(need.stored.get(org) ?? [])]));
      nodes.set(org, await this.source.nodes(org, [...(need.nodes.get(org) ?? [])]));
    }
    return {
      space: (org) => spaces.get(org) ?? null,
      pinned: (org, uid) => pinned.get(org)?.has(uid) ?? false,
      stored: (org, uid) => stored.get(org)?.get(uid),
      node: (org, uid) => nodes.get(org)?.get(uid),
    };
  }

  /** Built-in items are embedded together, in one call. */
  private vectorsOf(space: VectorSpaceOf, items: PlannedItem[]): VectorItem[] {
    const texts = items.filter((i) => i.vector === undefined).map((i) => i.text ?? '');
    const computed = texts.length ? this.source.embed(space, texts) : [];
    let k = 0;
    return items.map((i) => ({ uid: i.uid, node_type: i.node_type, layer: i.layer, vector: i.vector ?? computed[k++] }));
  }

  /** Re-embeds the organization's live nodes with the built-in embedder; client vectors stay. */
  private async backfill(org: string): Promise<void> {
    const space = await this.source.space(org);
    if (!space?.builtin) return;
    for (let offset = 0; ; offset += BACKFILL_PAGE) {
      const page = await this.source.liveNodes(org, { limit: BACKFILL_PAGE, offset });
      const pinned = await this.source.pinned(org, page.items.map((n) => n.uid));
      const toEmbed = page.items.filter((n) => !pinned.has(n.uid));
      if (toEmbed.length) {
        const vectors = this.source.embed(space, toEmbed.map(embeddingTextOf));
        await this.index.upsert(org, toEmbed.map((n, i) => ({ uid: n.uid, node_type: n.node_type, layer: n.layer, vector: vectors[i] })));
      }
      if (!page.has_more) return;
    }
  }
}
