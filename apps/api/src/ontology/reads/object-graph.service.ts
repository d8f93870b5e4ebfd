import { Inject, Injectable } from '@nestjs/common';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { isDomainObject, objectProps } from '@strata/ontology/domain-objects';

/** How far an expansion may grow before it stops and says it was truncated. */
export const EXPANSION_NODE_CAP = 200;
export const EXPANSION_EDGE_CAP = 500;

const SOURCE_TYPES = new Set(['Document', 'Chunk']);
const COGNITIVE_GROUPS: Record<string, 'claims' | 'risks' | 'decisions' | 'tasks' | 'goals'> = {
  Claim: 'claims',
  RiskAssessment: 'risks',
  Risk: 'risks',
  Decision: 'decisions',
  Task: 'tasks',
  Goal: 'goals',
};

export interface Expansion {
  /** every node reached, the start nodes included */
  nodes: Map<string, NodeRecord>;
  edges: Map<string, EdgeRecord>;
  truncated: boolean;
}

export interface Provenance {
  node_uid: string;
  source_uid: string;
  text_span: string | null;
}

/**
 * The neighbourhood of domain objects in the graph: breadth-first over live edges, `depth`
 * hops, only through nodes the caller may see, at most EXPANSION_NODE_CAP nodes.
 */
@Injectable()
export class ObjectGraph {
  constructor(@Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel) {}

  async expand(org: string, start: NodeRecord[], depth: number, scope: ReadScope | null): Promise<Expansion> {
    const nodes = new Map(start.map((n) => [n.uid, n]));
    const edges = new Map<string, EdgeRecord>();
    let frontier = start.map((n) => n.uid);
    let truncated = false;
    for (let d = 0; d < depth && frontier.length && !truncated; d++) {
      // a hop is two reads whatever the frontier's size: its edges, then the nodes they reach
      const touchingOf = await this.touchingEach(org, frontier);
      const reached = new Set<string>();
      for (const uid of frontier)
        for (const e of touchingOf.get(uid) ?? []) {
          const other = e.from_uid === uid ? e.to_uid : e.from_uid;
          if (!nodes.has(other) && (!scope || scope.allows(other))) reached.add(other);
        }
      const loaded = await this.graph.getNodes(org, [...reached]);
      const next: string[] = [];
      for (const uid of frontier) {
        for (const e of touchingOf.get(uid) ?? []) {
          const other = e.from_uid === uid ? e.to_uid : e.from_uid;
          const n = nodes.get(other) ?? loaded.get(other);
          if (!n || n.tombstone_at !== null || (scope && !scope.allows(other))) continue;
          if (edges.size >= EXPANSION_EDGE_CAP) {
            truncated = true;
            break;
          }
          edges.set(e.uid, e);
          if (!nodes.has(other)) {
            if (nodes.size >= EXPANSION_NODE_CAP) {
              truncated = true;
              break;
            }
            nodes.set(other, n);
            next.push(other);
          }
        }
        if (truncated) break;
      }
      frontier = next;
    }
    return { nodes, edges, truncated };
  }

  /** Each frontier node's live edges (at most EXPANSION_EDGE_CAP, oldest first): one read where the store can. */
  private async touchingEach(org: string, uids: string[]): Promise<Map<string, EdgeRecord[]>> {
    if (this.graph.edgesTouchingEach) return this.graph.edgesTouchingEach(org, uids, EXPANSION_EDGE_CAP);
    const out = new Map<string, EdgeRecord[]>();
    for (const uid of uids) out.set(uid, await this.graph.listEdges(org, { touching: uid }, EXPANSION_EDGE_CAP));
    return out;
  }

  /** Domain-object relations (ontology-layer edges) of an expansion. */
  relations(x: Expansion): EdgeRecord[] {
    return [...x.edges.values()].filter(isRelation).sort(byUid);
  }

  relatedObjects(x: Expansion, exclude: Set<string>): NodeRecord[] {
    return [...x.nodes.values()].filter((n) => isDomainObject(n) && !exclude.has(n.uid)).sort(byUid);
  }

  /** The cognitive nodes reached, grouped as GET /ontology/object/{uid}/context shows them. */
  cognitiveGroups(x: Expansion) {
    const out = { claims: [] as NodeRecord[], risks: [] as NodeRecord[], decisions: [] as NodeRecord[], tasks: [] as NodeRecord[], goals: [] as NodeRecord[], other: [] as NodeRecord[] };
    for (const n of [...x.nodes.values()].sort(byUid)) {
      if (n.layer === 'ontology' || SOURCE_TYPES.has(n.node_type)) continue;
      out[COGNITIVE_GROUPS[n.node_type] ?? 'other'].push(n);
    }
    return out;
  }

  /** The cognitive nodes reached, by node type (POST /ontology/query). */
  cognitiveByType(x: Expansion): Record<string, NodeRecord[]> {
    const out: Record<string, NodeRecord[]> = {};
    for (const n of [...x.nodes.values()].sort(byUid)) {
      if (n.layer === 'ontology' || SOURCE_TYPES.has(n.node_type)) continue;
      (out[n.node_type] ??= []).push(n);
    }
    return out;
  }

  /**
   * Where objects came from: ExtractedFrom edges to Documents and Chunks (with the quote's
   * location when the extraction anchored one) and the objects' own `source_uids`.
   */
  async provenance(org: string, objects: NodeRecord[], scope: ReadScope | null): Promise<Provenance[]> {
    const out = new Map<string, Provenance>();
    for (const o of objects) {
      for (const e of await this.graph.listEdges(org, { from_uid: o.uid, edge_types: ['ExtractedFrom'] })) {
        if (scope && !scope.allows(e.to_uid)) continue;
        const loc = (e.props as unknown as Record<string, unknown>).location;
        out.set(`${o.uid}>${e.to_uid}`, { node_uid: o.uid, source_uid: e.to_uid, text_span: typeof loc === 'string' ? loc : null });
      }
      for (const s of (objectProps(o).source_uids as string[] | undefined) ?? []) {
        if (scope && !scope.allows(s)) continue;
        if (!out.has(`${o.uid}>${s}`)) out.set(`${o.uid}>${s}`, { node_uid: o.uid, source_uid: s, text_span: null });
      }
    }
    return [...out.values()];
  }

  /** The sources (Documents, Chunks) of the objects: reached in the graph or named by provenance. */
  async sources(org: string, x: Expansion, provenance: Provenance[]): Promise<{ uid: string; title: string; node_type: string }[]> {
    const uids = new Set([...x.nodes.values()].filter((n) => SOURCE_TYPES.has(n.node_type)).map((n) => n.uid));
    for (const p of provenance) uids.add(p.source_uid);
    const nodes = await this.graph.getNodes(org, [...uids]);
    return [...nodes.values()]
      .filter((n) => n.tombstone_at === null && SOURCE_TYPES.has(n.node_type))
      .sort(byUid)
      .map((n) => ({ uid: n.uid, title: n.label, node_type: n.node_type }));
  }
}

/** An edge of a schema's relation type (not the ExtractedFrom links of extraction). */
export function isRelation(e: EdgeRecord): boolean {
  return e.layer === 'ontology' && typeof (e.props as unknown as Record<string, unknown>).relation_type_id === 'string';
}

function byUid(a: { uid: string }, b: { uid: string }): number {
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}
