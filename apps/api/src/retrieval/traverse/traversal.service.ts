import { Inject, Injectable } from '@nestjs/common';
import { NodeRecord } from '@strata/domain/records';
import {
  EdgeFollowRules,
  ReachedNode,
  TRAVERSAL_LIMITS,
  TraversalRequest,
  cheapestPaths,
  compareSteps,
  fewestHopPath,
  followsEdge,
  kCheapestPaths,
} from '@strata/domain/traversal';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService } from '@strata/platform/scope/provenance.service';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { ReadModelTraversalGraph } from './read-model-traversal-graph';

/** A step of a traversal answer (REFERENCE §6.1 PathStep). */
export interface PathStep {
  node_uid: string;
  label: string;
  node_type: string;
  layer: string;
  edge_type: string | null;
  edge_uid: string | null;
  direction: 'outgoing' | 'incoming' | null;
  depth: number;
  parent_uid: string | null;
  path_cost: number;
  path_confidence: number;
  source_documents?: { uid: string; title: string }[];
}

export interface SubgraphRequest {
  start_uids: string[];
  max_depth: number;
  direction: TraversalRequest['direction'];
  rules: EdgeFollowRules;
  max_nodes: number;
  node_types?: string[];
  include_provenance: boolean;
}

/** `/traverse` and its GET/POST shortcuts. Every read is scoped to the caller. */
@Injectable()
export class TraversalService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly scopes: ReadScopeService,
    private readonly provenance: ProvenanceService,
  ) {}

  async run(scope: ReadScope, req: TraversalRequest): Promise<Record<string, unknown>> {
    await this.scopes.liveVisibleNode(scope, req.start_uid, 'start_uid');
    if (req.end_uid !== undefined) await this.scopes.liveVisibleNode(scope, req.end_uid, 'end_uid');
    const g = new ReadModelTraversalGraph(this.graph, scope);
    switch (req.action) {
      case 'chain':
      case 'neighborhood': {
        const r = await cheapestPaths(g, [req.start_uid], req);
        const reached = [...r.reached.values()].filter((n) => req.action === 'chain' || n.uid !== req.start_uid).sort(compareSteps);
        return {
          mode: req.action,
          start_uid: req.start_uid,
          max_depth: req.max_depth,
          steps: await this.steps(scope, g, reached, req.include_provenance),
          truncated: r.truncated,
        };
      }
      case 'path': {
        const r = await fewestHopPath(g, req.start_uid, req.end_uid!, {
          max_depth: req.max_depth,
          direction: req.direction,
          rules: req.rules,
          max_nodes: TRAVERSAL_LIMITS.max_nodes,
        });
        const last = r.path[r.path.length - 1];
        return {
          mode: 'path',
          start_uid: req.start_uid,
          end_uid: req.end_uid,
          found: r.found,
          hops: r.found ? last.hops : null,
          path_cost: r.found ? last.cost : null,
          path_confidence: r.found ? last.confidence : null,
          steps: await this.steps(scope, g, r.path, req.include_provenance),
          truncated: r.truncated,
        };
      }
      case 'subgraph': {
        const sub = await this.subgraph(scope, { ...req, start_uids: [req.start_uid] });
        return { mode: 'subgraph', start_uid: req.start_uid, nodes: sub.nodes, edges: sub.edges, truncated: sub.truncated };
      }
      case 'top_k_paths': {
        const r = await kCheapestPaths(g, req.start_uid, req.end_uid!, {
          k: req.k,
          max_hops: req.max_hops,
          max_cost: req.max_cost,
          direction: req.direction,
          rules: req.rules,
        });
        const labels = await g.describe([...new Set(r.paths.flatMap((p) => p.node_uids))]);
        return {
          mode: 'top_k_paths',
          start_uid: req.start_uid,
          end_uid: req.end_uid,
          paths: r.paths.map((p) => ({
            node_uids: p.node_uids,
            labels: p.node_uids.map((u) => labels.get(u)?.label ?? null),
            edge_uids: p.edge_uids,
            edge_types: p.edge_types,
            hops: p.hops,
            cost: p.cost,
            confidence: p.confidence,
          })),
          truncated: r.truncated,
        };
      }
    }
  }

  /** Reached nodes plus the starts; edges = live edges among them passing the type and weight rules. */
  async subgraph(scope: ReadScope, req: SubgraphRequest) {
    const g = new ReadModelTraversalGraph(this.graph, scope);
    const r = await cheapestPaths(g, req.start_uids, req);
    const ordered = [...r.reached.values()].sort(compareSteps);
    const records = await this.graph.getNodes(scope.org, ordered.map((n) => n.uid));
    const starts = new Set(req.start_uids);
    const wanted = req.node_types ? new Set(req.node_types) : null;
    const nodes: (NodeRecord & { source_documents?: unknown })[] = [];
    for (const n of ordered) {
      const rec = records.get(n.uid);
      if (!rec || rec.tombstone_at !== null) continue;
      if (wanted && !starts.has(n.uid) && !wanted.has(rec.node_type)) continue;
      nodes.push(rec);
    }
    const kept = new Set(nodes.map((n) => n.uid));
    const edges = kept.size
      ? (await this.graph.listEdges(scope.org, { among: [...kept] })).filter(
          (e) => kept.has(e.from_uid) && kept.has(e.to_uid) && followsEdge(e, { edge_types: req.rules.edge_types, weight_threshold: req.rules.weight_threshold, exclude_edge_types: req.rules.exclude_edge_types }),
        )
      : [];
    if (req.include_provenance) {
      const docs = await this.provenance.sourceDocuments(scope, nodes);
      for (const n of nodes) n.source_documents = (docs.get(n.uid) ?? []).map((d) => ({ uid: d.uid, title: d.title }));
    }
    return { nodes, edges, truncated: r.truncated };
  }

  private async steps(scope: ReadScope, g: ReadModelTraversalGraph, reached: ReachedNode[], withProvenance: boolean): Promise<PathStep[]> {
    const labels = await g.describe(reached.map((r) => r.uid));
    const steps: PathStep[] = [];
    for (const r of reached) {
      const n = labels.get(r.uid);
      if (!n) continue;
      steps.push({
        node_uid: r.uid,
        label: n.label,
        node_type: n.node_type,
        layer: n.layer,
        edge_type: r.edge_type,
        edge_uid: r.edge_uid,
        direction: r.direction,
        depth: r.hops,
        parent_uid: r.parent,
        path_cost: r.cost,
        path_confidence: r.confidence,
      });
    }
    if (withProvenance && steps.length) {
      const records = await this.graph.getNodes(scope.org, steps.map((s) => s.node_uid));
      const docs = await this.provenance.sourceDocuments(scope, [...records.values()]);
      for (const s of steps) s.source_documents = (docs.get(s.node_uid) ?? []).map((d) => ({ uid: d.uid, title: d.title }));
    }
    return steps;
  }
}
