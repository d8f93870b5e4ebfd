import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { readNodeTypes, readOptionalLayer, readQueryText, searchTypeFilter } from '@strata/domain/retrieval';
import { cheapestPaths, compareCost } from '@strata/domain/traversal';
import { Body, present, readBoolean, readNumber, readString, readUid } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ChunkSearchService } from '../search/chunk-search.service';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { ReadModelTraversalGraph } from '../traverse/read-model-traversal-graph';
import { NodeAnnotator } from './node-annotator';
import { RankingService } from './ranking.service';

interface Ranked {
  node: NodeRecord;
  score: number;
}

function count(body: Body, field: string, def: number, max: number): number {
  const v = readNumber(body, field, { integer: true, min: 0 });
  return v === undefined ? def : Math.min(v, max);
}

/**
 * `POST /retrieve/context` (REFERENCE §9.5): ranked graph nodes (hybrid when embeddings can
 * embed text, else full text) plus nodes reached from them, annotated with provenance,
 * belief, supersession, validity and how they were retrieved; the live edges among them;
 * Article nodes and raw Chunks ranked by the same query.
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

  async run(baseScope: ReadScope, body: Body) {
    const query = readQueryText(body)!;
    const nodeLimit = count(body, 'node_limit', 10, 100);
    const articleLimit = count(body, 'article_limit', 3, 100);
    const chunkLimit = count(body, 'chunk_limit', 0, 100);
    const node_types = readNodeTypes(body);
    const layer = readOptionalLayer(body);
    const includeGraph = readBoolean(body, 'include_graph') ?? true;
    const minSimilarity = readNumber(body, 'min_similarity', { min: 0 }) ?? 0;
    const expansionLimit = Math.min(count(body, 'graph_expansion_limit', 0, 100), nodeLimit);
    // hops from a direct hit (default 2, at most 4); 0 means no expansion at all (REFERENCE §9.5)
    const maxDepth = count(body, 'graph_max_depth', 2, 4);
    const validAt = readValidAt(body);
    const scope = await this.scopes.withProject(baseScope, readUid(body, 'project_uid'));

    const mode: 'hybrid' | 'text' = (await this.ranking.vectorAvailable(scope.org)) ? 'hybrid' : 'text';
    const q = { query, node_types, layer };
    const direct: Ranked[] = mode === 'hybrid' ? (await this.ranking.hybridRank(scope, q, nodeLimit)).results : await this.ranking.textRank(scope, q, nodeLimit);
    const kept = direct.filter((r) => r.score >= minSimilarity);

    // expansion: nodes reached from the direct hits, cheapest path first
    const expansion: { node: NodeRecord; depth: number; cost: number }[] = [];
    if (expansionLimit > 0 && maxDepth > 0 && kept.length) {
      const reached = await cheapestPaths(new ReadModelTraversalGraph(this.graph, scope), kept.map((r) => r.node.uid), {
        max_depth: maxDepth,
        direction: 'both',
        rules: {},
        max_nodes: Math.max(expansionLimit * 20, 200),
      });
      const candidates = [...reached.reached.values()]
        .filter((r) => r.hops > 0)
        .sort((a, b) => compareCost(a.cost, b.cost) || a.hops - b.hops || (a.uid < b.uid ? -1 : 1))
        .slice(0, expansionLimit);
      const recs = await this.graph.getNodes(scope.org, candidates.map((c) => c.uid));
      for (const c of candidates) {
        const n = recs.get(c.uid);
        if (n && n.tombstone_at === null) expansion.push({ node: n, depth: c.hops, cost: c.cost });
      }
    }
    const directSlots = nodeLimit - expansion.length;
    const nodes = [
      ...kept.slice(0, directSlots).map((r) => ({ node: r.node, retrieval: { via: 'direct' as const, score: r.score, depth: 0, path_cost: 0 } })),
      ...expansion.map((x) => ({ node: x.node, retrieval: { via: 'expansion' as const, score: null, depth: x.depth, path_cost: x.cost } })),
    ];
    const annotated = await this.annotator.annotate(scope, nodes.map((n) => n.node), validAt);
    const graphNodes = nodes.map((n, i) => ({ ...annotated[i], retrieval: n.retrieval }));
    const uids = nodes.map((n) => n.node.uid);
    const edges = includeGraph && uids.length ? await this.graph.listEdges(scope.org, { among: uids }) : [];

    const articles = articleLimit > 0 ? await this.articles(scope, query, articleLimit) : [];
    const chunks = chunkLimit > 0 ? await this.chunks.search(scope, query, chunkLimit) : [];
    return { query, mode, articles, chunks, graph: { nodes: graphNodes, edges } };
  }

  private async articles(scope: ReadScope, query: string, limit: number) {
    const ranked = await this.ranking.textRank(scope, { query, ...searchTypeFilter(['Article']) }, limit);
    return ranked.map(({ node, score }) => {
      const p = node.props as Record<string, unknown>;
      return {
        uid: node.uid,
        label: node.label,
        content: typeof p.content === 'string' ? p.content : '',
        article_type: typeof p.article_type === 'string' ? p.article_type : null,
        covers_uid: typeof p.covers_uid === 'string' ? p.covers_uid : null,
        questions: Array.isArray(p.questions) ? p.questions : [],
        score,
      };
    });
  }
}

/** `valid_at`: an ISO 8601 date or datetime (partial precision allowed), as Unix seconds. */
function readValidAt(body: Body): number | undefined {
  if (!present(body, 'valid_at')) return undefined;
  const s = readString(body, 'valid_at', { trim: true })!;
  const t = Date.parse(s.length === 4 ? `${s}-01-01` : s.length === 7 ? `${s}-01` : s);
  if (!/^\d{4}(-\d{2}(-\d{2}([T ].*)?)?)?$/.test(s) || Number.isNaN(t)) throw Errors.invalidField('valid_at', 'valid_at must be an ISO 8601 date or datetime');
  return t / 1000;
}
