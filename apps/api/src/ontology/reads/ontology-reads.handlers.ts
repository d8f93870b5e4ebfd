import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { OntologyErrors } from '@strata/domain/ontology';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { OntologyScope } from '../ontology-scope';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { isDomainObject } from '@strata/ontology/domain-objects';
import { EXPANSION_NODE_CAP, ObjectGraph, isRelation } from './object-graph.service';
import { ObjectSearch, ObjectSearchQuery } from './object-search.service';

export interface OntologyQuery {
  query: string;
  schema_id: string;
  object_types?: string[];
  include_cognitive_context: boolean;
  include_sources: boolean;
  depth: number;
  limit: number;
}

/** The ontology's retrieval: search, an object's context, the query route, the schema dry run. */
@Injectable()
export class OntologyReads {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly store: OntologyStore,
    private readonly scope: OntologyScope,
    private readonly search: ObjectSearch,
    private readonly expansion: ObjectGraph,
  ) {}

  async searchObjects(auth: AuthContext, q: ObjectSearchQuery) {
    if (q.schema_id) this.store.schema(auth.org_id, q.schema_id);
    const { items } = await this.search.search(auth, q);
    return { items };
  }

  async context(auth: AuthContext, uid: string, depth: number) {
    const scope = await this.scope.of(auth);
    const object = !scope || scope.allows(uid) ? await this.graph.getNode(auth.org_id, uid) : null;
    if (!isDomainObject(object)) throw OntologyErrors.objectNotFound(uid);
    const x = await this.expansion.expand(auth.org_id, [object], depth, scope);
    const provenance = await this.expansion.provenance(auth.org_id, [object], scope);
    return {
      object,
      depth,
      relations: this.expansion.relations(x),
      related_objects: this.expansion.relatedObjects(x, new Set([uid])),
      cognitive_context: this.expansion.cognitiveGroups(x),
      sources: await this.expansion.sources(auth.org_id, x, provenance),
    };
  }

  async query(auth: AuthContext, q: OntologyQuery) {
    this.store.schema(auth.org_id, q.schema_id);
    const scope = await this.scope.of(auth);
    const found = await this.search.search(auth, { query: q.query, schema_id: q.schema_id, object_types: q.object_types, limit: q.limit });
    const objects = found.items.map((i) => i.object);
    const x = await this.expansion.expand(auth.org_id, objects, q.depth, scope);
    const relations = this.expansion.relations(x);
    const provenance = q.include_sources ? await this.expansion.provenance(auth.org_id, objects, scope) : [];
    const graphNodes = [...x.nodes.values()].slice(0, EXPANSION_NODE_CAP);
    const truncated: Record<string, boolean> = {};
    if (found.more) truncated.objects = true;
    if (x.truncated) {
      truncated.relations = true;
      truncated.graph = true;
    }
    const confidence = objects.length ? objects.reduce((s, o) => s + o.confidence, 0) / objects.length : 0;
    return {
      objects,
      relations,
      cognitive_context: q.include_cognitive_context ? this.expansion.cognitiveByType(x) : {},
      // objects bound to external SQL sources are not fetched from them by this service
      external_refs: [],
      graph: { nodes: graphNodes, edges: [...x.edges.values()] },
      provenance,
      confidence: { overall: Math.round(confidence * 1000) / 1000 },
      truncated,
    };
  }

  /** The experimental dry run: each example query searched in the schema, nothing written. */
  async testSchema(auth: AuthContext, schemaId: string, queries: string[]) {
    this.store.schema(auth.org_id, schemaId);
    const results = [];
    for (const query of queries) {
      const found = await this.search.search(auth, { query, schema_id: schemaId, limit: 10 });
      const objects = found.items.map((i) => i.object);
      const among = new Set(objects.map((o) => o.uid));
      const edges = objects.length ? await this.graph.listEdges(auth.org_id, { among: [...among] }) : [];
      results.push({
        query,
        objects,
        relations: edges.filter((e) => isRelation(e) && e.tombstone_at === null),
        note: objects.length ? 'experimental: hybrid search over the schema objects; nothing was written' : 'experimental: no object of this schema matches; nothing was written',
      });
    }
    return { schema_id: schemaId, experimental: true, results };
  }
}
