import { classificationOf, SpacedNode } from '@strata/domain/governance';
import { NodeRecord } from '@strata/domain/records';
import type { EdgeFilter, GraphReadModel } from '@strata/graph-store/graph-read-model.port';

/** The reads the Space membership needs: the read model, or a request's own view of it. */
export interface MembershipReader {
  listEdges(filter: EdgeFilter): Promise<{ from_uid: string; to_uid: string; tombstone_at: number | null; tombstone_reason: string | null }[]>;
  getNodes(uids: string[]): Promise<Map<string, NodeRecord>>;
}

export function readModelMembership(graph: GraphReadModel, org: string): MembershipReader {
  return { listEdges: (f) => graph.listEdges(org, f), getNodes: (uids) => graph.getNodes(org, uids) };
}

/**
 * spaces(N) for each spaced node of the organization (REFERENCE §13.1): the live Spaces reached
 * by N's live InSpace edges, with N's classification. Nodes in no live Space are absent.
 * A tombstoned N keeps the InSpace edges its own cascade tombstoned: deleting a spaced node
 * must not make it (still served by GET /node, history, lists with include_tombstoned)
 * readable to everyone.
 */
export async function spacedNodes(r: MembershipReader, onlyFrom?: readonly string[]): Promise<Map<string, SpacedNode>> {
  const all = onlyFrom
    ? (await Promise.all(onlyFrom.map((u) => r.listEdges({ from_uid: u, edge_types: ['InSpace'], include_tombstoned: true })))).flat()
    : await r.listEdges({ edge_types: ['InSpace'], include_tombstoned: true });
  const ownCascade = (e: { from_uid: string; tombstone_at: number | null; tombstone_reason: string | null }) =>
    e.tombstone_at !== null && e.tombstone_reason === `cascade:${e.from_uid}`;
  const edges = all.filter((e) => e.tombstone_at === null || ownCascade(e));
  if (!edges.length) return new Map();
  const spaceUids = [...new Set(edges.map((e) => e.to_uid))];
  const spaces = await r.getNodes(spaceUids);
  const liveSpace = (uid: string) => {
    const s = spaces.get(uid);
    return !!s && s.tombstone_at === null && s.node_type === 'Space';
  };
  // per source: the Spaces of its live InSpace edges, then those its own cascade tombstoned
  const bySource = new Map<string, { live: Set<string>; cascaded: Set<string> }>();
  for (const e of edges) {
    if (!liveSpace(e.to_uid)) continue;
    let entry = bySource.get(e.from_uid);
    if (!entry) bySource.set(e.from_uid, (entry = { live: new Set(), cascaded: new Set() }));
    (e.tombstone_at === null ? entry.live : entry.cascaded).add(e.to_uid);
  }
  if (!bySource.size) return new Map();
  const nodes = await r.getNodes([...bySource.keys()]);
  const out = new Map<string, SpacedNode>();
  for (const [uid, entry] of bySource) {
    const n = nodes.get(uid);
    if (!n) continue;
    const list = n.tombstone_at === null ? [...entry.live] : [...new Set([...entry.live, ...entry.cascaded])];
    if (!list.length) continue;
    out.set(uid, { spaces: list.sort(), classification: classificationOf(n) });
  }
  return out;
}

/** spaces(N) of one node, sorted (empty when unspaced). */
export async function spacesOfNode(r: MembershipReader, uid: string): Promise<string[]> {
  return [...((await spacedNodes(r, [uid])).get(uid)?.spaces ?? [])];
}

/**
 * Whether a match candidate lives in exactly the Spaces a request places its nodes in
 * (REFERENCE §13.1: deduplication and find-or-create match only nodes with the same spaces).
 */
export async function inSameSpaces(r: MembershipReader, uid: string, placement: string | null): Promise<boolean> {
  const spaces = await spacesOfNode(r, uid);
  return placement === null ? spaces.length === 0 : spaces.length === 1 && spaces[0] === placement;
}
