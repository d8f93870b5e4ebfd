import { RecordedEvent, isGraphEvent, isNodeVersioned, unhandled } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import type { DistanceMetric } from '@strata/vector-index/vector-index.port';
import { MergedRuns } from './server/merged-runs';

/**
 * What a batch of events does to the vector index (Qdrant in server mode), the same effects
 * as the embedded VectorProjection: built-in vectors are computed from node events, recorded
 * vectors (clients, external providers) arrive as EmbeddingSet, tombstones and purges remove,
 * restores put a recorded vector back, a clear drops the organization, a new built-in
 * configuration re-embeds every live node. The configuration applied is the organization's
 * current one, so a replay converges on the present state.
 *
 * The facts are read after the graph projection applied the batch (it runs first), so they
 * describe the batch's end. Applying the writes in order still gives what applying events
 * one by one gives: a pinned vector set later in the batch overwrites a built-in one computed
 * earlier, and a delete or provider vector later in the batch replaces it.
 */

export interface VectorSpaceOf {
  dimensions: number;
  metric: DistanceMetric;
  /** the built-in embedder: vectors are computed here, from the events */
  builtin: boolean;
}

/** A vector to write; built-in vectors carry their text, embedded by the executor in one call. */
export interface PlannedItem {
  uid: string;
  node_type: string;
  layer: string;
  vector?: number[];
  text?: string;
}

type PlannedUpsert = { kind: 'upsert'; org: string; items: PlannedItem[] };
type PlannedRemove = { kind: 'remove'; org: string; uids: string[] };

export type VectorWrite =
  | { kind: 'configure'; org: string; space: VectorSpaceOf }
  | PlannedUpsert
  | PlannedRemove
  | { kind: 'removeOrg'; org: string }
  | { kind: 'backfill'; org: string };

/** What the planner must know, per organization: read once per batch, before planning. */
export interface VectorFactsNeeded {
  orgs: Set<string>;
  /** nodes whose pinned state decides whether a built-in vector is computed */
  pinned: Map<string, Set<string>>;
  /** restored nodes: their recorded vector comes back */
  stored: Map<string, Set<string>>;
  /** nodes of EmbeddingSet events: live? which type and layer? */
  nodes: Map<string, Set<string>>;
}

export interface VectorFacts {
  space(org: string): VectorSpaceOf | null;
  pinned(org: string, uid: string): boolean;
  stored(org: string, uid: string): number[] | undefined;
  node(org: string, uid: string): NodeRecord | undefined;
}


function add(m: Map<string, Set<string>>, org: string, uid: string): void {
  let s = m.get(org);
  if (!s) m.set(org, (s = new Set()));
  s.add(uid);
}

export function vectorFactsNeeded(events: RecordedEvent[]): VectorFactsNeeded {
  const need: VectorFactsNeeded = { orgs: new Set(), pinned: new Map(), stored: new Map(), nodes: new Map() };
  for (const e of events) {
    const org = e.metadata.org_id;
    if (isNodeVersioned(e)) {
      const n = e.data.node;
      if (n.tombstone_at !== null) continue;
      need.orgs.add(org);
      add(need.pinned, org, n.uid);
      if (e.type === 'NodeRestored') add(need.stored, org, n.uid);
    } else if (e.type === 'EmbeddingSet') {
      need.orgs.add(org);
      add(need.nodes, org, e.data.uid);
    } else if (e.type === 'EmbeddingConfigured') need.orgs.add(org);
  }
  return need;
}

export function planVectorWrites(events: RecordedEvent[], facts: VectorFacts): VectorWrite[] {
  const out: VectorWrite[] = [];
  const upserts = new MergedRuns<PlannedUpsert, PlannedItem>((w, items) => (w.items = items));
  const removes = new MergedRuns<PlannedRemove, string>((w, uids) => (w.uids = uids));
  // one item per uid in a call: the later one replaces the earlier
  const upsert = (org: string, item: PlannedItem) =>
    upserts.run(out, (w) => w.org === org, () => ({ kind: 'upsert', org, items: [] })).put(item.uid, item);
  const remove = (org: string, uids: string[]) => {
    if (!uids.length) return;
    const run = removes.run(out, (w) => w.org === org, () => ({ kind: 'remove', org, uids: [] }));
    for (const u of uids) run.add(u, u);
  };
  const configured = new Set<string>();
  const backfills: string[] = [];
  const configure = (org: string, space: VectorSpaceOf, force = false) => {
    if (configured.has(org) && !force) return;
    configured.add(org);
    out.push({ kind: 'configure', org, space });
  };
  for (const e of events) {
    if (!isGraphEvent(e)) continue;
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeRestored': {
        const n = e.data.node;
        if (n.tombstone_at !== null) {
          remove(org, [n.uid]);
          break;
        }
        const space = facts.space(org);
        if (!space) break;
        if (facts.pinned(org, n.uid) || !space.builtin) {
          const stored = e.type === 'NodeRestored' ? facts.stored(org, n.uid) : undefined;
          if (stored && stored.length === space.dimensions) {
            configure(org, space);
            upsert(org, { uid: n.uid, node_type: n.node_type, layer: n.layer, vector: stored });
          }
          break;
        }
        configure(org, space);
        upsert(org, { uid: n.uid, node_type: n.node_type, layer: n.layer, text: embeddingTextOf(n) });
        break;
      }
      case 'NodeTombstoned':
        remove(org, [e.data.node.uid]);
        break;
      case 'EmbeddingSet': {
        const d = e.data;
        const space = facts.space(org);
        const n = facts.node(org, d.uid);
        if (!space || !n || n.tombstone_at !== null || d.vector.length !== space.dimensions) break;
        configure(org, space);
        upsert(org, { uid: d.uid, node_type: n.node_type, layer: n.layer, vector: d.vector });
        break;
      }
      case 'EmbeddingDeleted':
        remove(org, [e.data.uid]);
        break;
      case 'EmbeddingConfigured': {
        const space = facts.space(org);
        if (!space) break;
        // (re)creates the space now: a change of dimensions or metric drops every vector
        configure(org, space, true);
        if (space.builtin && !backfills.includes(org)) backfills.push(org);
        break;
      }
      case 'GraphPurged':
        remove(org, e.data.node_uids);
        break;
      case 'GraphCleared':
        out.push({ kind: 'removeOrg', org });
        configured.delete(org);
        break;
      // vectors follow node versions and embedding events only
      case 'NodeTouched':
      case 'EdgeCreated':
      case 'EdgeUpdated':
      case 'EdgeTombstoned':
      case 'EdgeRestored':
      case 'AliasSet':
      case 'AliasRemoved':
      case 'SalienceDecayed':
      case 'SeriesPointsAppended':
        break;
      default:
        unhandled(e);
    }
  }
  // once per organization, after the batch: it embeds the live nodes as they are now
  for (const org of backfills) out.push({ kind: 'backfill', org });
  upserts.finish();
  removes.finish();
  return out;
}
