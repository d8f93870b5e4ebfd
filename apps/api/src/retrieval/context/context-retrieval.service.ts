import { Inject, Injectable } from '@nestjs/common';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { ContextRequest, SEARCH_HIDDEN_TYPES, searchTypeFilter } from '@strata/domain/retrieval';
import { cheapestPaths, compareCost } from '@strata/domain/traversal';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { RankingService } from '../retrieve/ranking.service';
import { ChunkSearchService } from '../search/chunk-search.service';
import { fastStore } from '../shared/fast-store';
import { holdsLiveType } from '../shared/live-type';
import { ReadModelTraversalGraph } from '../traverse/read-model-traversal-graph';
import { NodeAnnotator } from './node-annotator';

interface Ranked {
  node: NodeRecord;
  score: number;
  /** the vector leg's own similarity, when that leg found the node (hybrid) */
  similarity?: number;
}

// listEdges({among}) in one cached statement (the set as JSON): same edges, same order
const AMONG_SQL = `SELECT doc FROM edges WHERE org = ? AND tombstone_at IS NULL
  AND from_uid IN (SELECT value FROM json_each(?)) AND to_uid IN (SELECT value FROM json_each(?)) ORDER BY created_at ASC, uid ASC`;

/** Structure, not knowledge: never spent on an expansion slot (they are reached through, though). */
const NOT_EXPANDED = new Set(SEARCH_HIDDEN_TYPES);

/**
 * `POST /retrieve/context` (REFERENCE §9.5): ranked graph nodes (hybrid when embeddings can
 * embed text, else full text) plus nodes reached from them, annotated with provenance,
 * belief, supersession, validity and how they were retrieved; the live edges among them;
 * Article nodes and raw Chunks ranked by the same query. Everything is confined to the
 * caller's read scope, narrowed to a Project's admitted sources by `project_uid`.
 */
@Injectable()
export class ContextRetrievalService {
  constructor(
    private readonly ranking: RankingService,
    private readonly chunks: ChunkSearchService,
    private readonly annotator: NodeAnnotator,
    private readonly scopes: ReadScopeService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  async run(baseScope: ReadScope, req: ContextRequest) {
    const scope = await this.scopes.withProject(baseScope, req.project_uid);
    const mode: 'hybrid' | 'text' = (await this.ranking.vectorAvailable(scope.org)) ? 'hybrid' : 'text';
    const q = { query: req.query, node_types: req.node_types, layer: req.layer };
    const ranked = req.node_limit > 0 ? await this.rank(scope, mode, q, req.node_limit) : [];
    // min_similarity bounds the vector similarity in hybrid mode (fused scores are rank-based), the text score otherwise
    const direct = req.min_similarity > 0 ? ranked.filter((r) => (mode === 'hybrid' ? (r.similarity ?? 0) : r.score) >= req.min_similarity) : ranked;

    const expansion = req.include_graph ? await this.expand(scope, direct, req) : [];
    const directSlots = req.node_limit - expansion.length;
    const nodes = [
      ...direct.slice(0, directSlots).map((r) => ({ node: r.node, retrieval: { via: 'direct' as const, score: r.score, depth: 0, path_cost: 0 } })),
      ...expansion.map((x) => ({ node: x.node, retrieval: { via: 'expansion' as const, score: null, depth: x.depth, path_cost: x.cost } })),
    ];
    const annotated = await this.annotator.annotate(scope, nodes.map((n) => n.node), req.valid_at);
    const graphNodes = nodes.map((n, i) => ({ ...annotated[i], retrieval: n.retrieval }));
    const uids = nodes.map((n) => n.node.uid);
    const edges = req.include_graph && uids.length > 1 ? await this.edgesAmong(scope.org, uids) : [];

    const articles = req.article_limit > 0 ? await this.articles(baseScope, req, mode) : [];
    const chunks = req.chunk_limit > 0 ? await this.chunks.search(scope, req.query, req.chunk_limit) : [];
    return { query: req.query, mode, articles, chunks, graph: { nodes: graphNodes, edges } };
  }

  private async edgesAmong(org: string, uids: string[]): Promise<EdgeRecord[]> {
    const fast = fastStore(this.graph);
    if (!fast) return this.graph.listEdges(org, { among: uids });
    const set = JSON.stringify([...new Set(uids)]);
    return (fast.stmt(AMONG_SQL).all(org, set, set) as { doc: string }[]).map((r) => JSON.parse(r.doc) as EdgeRecord);
  }

  private async rank(scope: ReadScope, mode: 'hybrid' | 'text', q: { query: string; node_types?: string[]; layer?: string }, limit: number): Promise<Ranked[]> {
    if (mode === 'text') return this.ranking.textRank(scope, q, limit);
    const { results } = await this.ranking.hybridRank(scope, q, limit);
    return results.map((r) => ({ node: r.node, score: r.score, similarity: r.legs.find((l) => l.leg === 'vec')?.score }));
  }

  /**
   * Nodes reached from the direct hits within `graph_max_depth` hops (either direction),
   * cheapest path first (cost Σ −ln weight, §6.1), then fewer hops, then uid; at most
   * `graph_expansion_limit` of them.
   */
  private async expand(scope: ReadScope, direct: Ranked[], req: ContextRequest) {
    const out: { node: NodeRecord; depth: number; cost: number }[] = [];
    if (req.graph_expansion_limit === 0 || req.graph_max_depth === 0 || !direct.length) return out;
    const starts = direct.slice(0, req.node_limit).map((r) => r.node.uid);
    const reached = await cheapestPaths(new ReadModelTraversalGraph(this.graph, scope), starts, {
      max_depth: req.graph_max_depth,
      direction: 'both',
      rules: {},
      max_nodes: Math.max(req.graph_expansion_limit * 20, 200),
    });
    const candidates = [...reached.reached.values()]
      .filter((r) => r.hops > 0)
      .sort((a, b) => compareCost(a.cost, b.cost) || a.hops - b.hops || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const recs = await this.graph.getNodes(scope.org, candidates.map((c) => c.uid));
    for (const c of candidates) {
      if (out.length >= req.graph_expansion_limit) break;
      const n = recs.get(c.uid);
      if (n && n.tombstone_at === null && !NOT_EXPANDED.has(n.node_type)) out.push({ node: n, depth: c.hops, cost: c.cost });
    }
    return out;
  }

  /**
   * Article nodes ranked by the query. With `project_uid` they are the Project's own Articles
   * (PartOfProject): outputs of the Project, never among its admitted sources (§12.1).
   */
  private async articles(baseScope: ReadScope, req: ContextRequest, mode: 'hybrid' | 'text') {
    if (!(await holdsLiveType(this.graph, baseScope.org, 'Article'))) return [];
    let scope = baseScope;
    if (req.project_uid !== undefined) {
      const own = (await this.graph.listEdges(baseScope.org, { to_uid: req.project_uid, edge_types: ['PartOfProject'] })).map((e) => e.from_uid);
      if (!own.length) return [];
      scope = baseScope.narrow(new Set(own));
    }
    const ranked = await this.rank(scope, mode, { query: req.query, ...searchTypeFilter(['Article']) }, req.article_limit);
    const out = [];
    for (const { node, score } of ranked) {
      const p = node.props as Record<string, unknown>;
      out.push({
        uid: node.uid,
        label: node.label,
        content: typeof p.content === 'string' ? p.content : '',
        article_type: typeof p.article_type === 'string' ? p.article_type : null,
        covers_uid: typeof p.covers_uid === 'string' ? p.covers_uid : await this.coveredBy(baseScope, node.uid),
        questions: Array.isArray(p.questions) ? p.questions : [],
        score,
      });
    }
    return out;
  }

  /** The subject of an Article's Covers edge (primary coverage first) when its props name none. */
  private async coveredBy(scope: ReadScope, article: string): Promise<string | null> {
    const covers = (await this.graph.listEdges(scope.org, { from_uid: article, edge_types: ['Covers'] })).filter((e) => scope.allows(e.to_uid)).sort(
      (a, b) => Number(b.props.coverage === 'primary') - Number(a.props.coverage === 'primary') || (a.to_uid < b.to_uid ? -1 : 1),
    );
    return covers[0]?.to_uid ?? null;
  }
}
