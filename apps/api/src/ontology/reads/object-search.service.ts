import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AuthContext } from '@strata/auth/auth-context';
import { canonicalNodeTypeName } from '@strata/domain/catalogue';
import { NodeRecord } from '@strata/domain/records';
import { LegHit, fuseByRank, hybridLegSize } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';
import { TEXT_INDEX, TextIndex } from '@strata/text-index/text-index.port';
import { OntologyScope } from '../ontology-scope';
import { isDomainObject, objectProps } from '@strata/ontology/domain-objects';

export interface ObjectSearchQuery {
  query: string;
  schema_id?: string;
  object_types?: string[];
  limit: number;
}

/**
 * Hybrid search over domain objects (REFERENCE §11, ranked as §5.2 `hybrid`): the `fts` leg
 * from the text index and the `vec` leg from the vector index when the organization can embed
 * text, fused by reciprocal rank (k = 60), restricted to live objects of the schema and types
 * the caller may see. `more` says whether a hit beyond `limit` was left out.
 */
const MIN_SIMILARITY = 1e-6;

@Injectable()
export class ObjectSearch {
  private vectorsRef: Vectors | null | undefined;

  constructor(
    @Inject(TEXT_INDEX) private readonly text: TextIndex,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly embeddings: EmbeddingSettings,
    private readonly moduleRef: ModuleRef,
    private readonly scope: OntologyScope,
  ) {}

  /** The vector index the retrieval area provides, looked up once (none: the fts leg alone). */
  private vectors(): Vectors | null {
    if (this.vectorsRef === undefined) {
      try {
        this.vectorsRef = this.moduleRef.get<Vectors>(VECTORS, { strict: false });
      } catch {
        this.vectorsRef = null;
      }
    }
    return this.vectorsRef;
  }

  async search(auth: AuthContext, q: ObjectSearchQuery): Promise<{ items: { object: NodeRecord; score: number }[]; more: boolean }> {
    const scope = await this.scope.of(auth);
    const types = q.object_types?.map(canonicalNodeTypeName);
    const size = hybridLegSize(q.limit + 1);
    const fts = await this.text.search({ org: auth.org_id, query: q.query, layer: 'ontology', node_types: types, limit: size, uids: scope?.uidList() });
    const legs: { leg: string; hits: LegHit[] }[] = [{ leg: 'fts', hits: fts }];
    const vec = await this.vectorHits(auth.org_id, q.query, types, size);
    if (vec) legs.push({ leg: 'vec', hits: vec.filter((h) => !scope || scope.allows(h.uid)) });
    const fused = fuseByRank(legs);
    const items: { object: NodeRecord; score: number }[] = [];
    // nodes are loaded a page at a time: most searches stop within the first
    const page = q.limit + 1;
    for (let at = 0; at < fused.length && items.length <= q.limit; at += page) {
      const slice = fused.slice(at, at + page);
      const nodes = await this.graph.getNodes(auth.org_id, slice.map((f) => f.uid));
      for (const f of slice) {
        const n = nodes.get(f.uid) ?? null;
        if (!isDomainObject(n) || n.tombstone_at !== null) continue;
        if (q.schema_id && objectProps(n).schema_id !== q.schema_id) continue;
        items.push({ object: n, score: f.score });
        if (items.length > q.limit) break;
      }
    }
    return { items: items.slice(0, q.limit), more: items.length > q.limit };
  }

  private async vectorHits(org: string, query: string, types: string[] | undefined, k: number): Promise<LegHit[] | null> {
    const vectors = this.vectors();
    if (!vectors) return null;
    const embedder = this.embeddings.embedder(await this.embeddings.effective(org));
    if (!embedder) return null;
    const vector = embedder.embedSync ? embedder.embedSync([query])[0] : (await embedder.embed([query]))[0];
    // a vector sharing nothing with the query (similarity 0) is no match, only a filler
    return vectors.search({ org, vector, k, layer: 'ontology', node_types: types, threshold: MIN_SIMILARITY });
  }
}
