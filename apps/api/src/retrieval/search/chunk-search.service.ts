import { Inject, Injectable } from '@nestjs/common';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { NodeRecord } from '@strata/domain/records';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { holdsLiveType } from '../shared/live-type';
import { TextSearchService } from './text-search.service';

export interface ChunkHit {
  chunk_uid: string;
  content: string;
  document_uid: string | null;
  document_title: string | null;
  chunk_index: number | null;
  score: number;
}

/** Raw ingested chunks matching a query, with their documents (`include_chunks`, `/retrieve/context`). */
@Injectable()
export class ChunkSearchService {
  constructor(
    private readonly text: TextSearchService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  async search(scope: ReadScope, query: string, limit: number, minScore?: number): Promise<ChunkHit[]> {
    if (limit <= 0 || !(await holdsLiveType(this.graph, scope.org, 'Chunk'))) return [];
    const ranked = await this.text.search(scope, { query, node_types: ['Chunk'], limit, min_score: minScore });
    // each chunk's Document: one edge probe per hit, then every Document in one read
    const docOf = new Map<string, string>();
    for (const { node } of ranked) {
      const docEdge = (await this.graph.listEdges(scope.org, { from_uid: node.uid, edge_types: ['ChunkOf'] }, 1))[0];
      if (docEdge) docOf.set(node.uid, docEdge.to_uid);
    }
    const docs = docOf.size ? await this.graph.getNodes(scope.org, [...new Set(docOf.values())]) : new Map<string, NodeRecord>();
    return ranked.map(({ node, score }) => {
      const found = docs.get(docOf.get(node.uid) ?? '');
      // a Document the caller cannot read is absent for it (§13.1): the chunk then has none
      const doc = found && found.tombstone_at === null && scope.allows(found.uid) ? found : null;
      const p = node.props as Record<string, unknown>;
      const dp = (doc?.props ?? {}) as Record<string, unknown>;
      return {
        chunk_uid: node.uid,
        content: typeof p.content === 'string' ? p.content : node.label,
        document_uid: doc ? doc.uid : null,
        document_title: doc ? (typeof dp.title === 'string' && dp.title ? dp.title : doc.label) : null,
        chunk_index: typeof p.chunk_index === 'number' ? p.chunk_index : null,
        score,
      };
    });
  }
}
