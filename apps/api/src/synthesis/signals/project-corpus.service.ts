import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { CorpusNode, ProjectCorpus } from '@strata/domain/synthesis';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

/** Never among a Project's extracted nodes (REFERENCE §12.1 Nodes(P)). */
const NOT_SOURCES = new Set(['Document', 'Chunk', 'Article', 'Space']);

/**
 * Reads a Project's admitted sources (REFERENCE §12.1), recomputed on every call: Docs(P),
 * Chunks(P), Nodes(P) with the documents each came from, Edges(P), and the vectors of the
 * project's Claims when the organization has embeddings.
 */
@Injectable()
export class ProjectCorpusService {
  private vectors: Vectors | null | undefined;

  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly modules: ModuleRef,
  ) {}

  /**
   * The Project a `{project_uid}` path names (§12.1): live and in the caller's scope (else 404
   * `not_found`), of type Project (else 400 `wrong_node_type`). The uid is already well-formed.
   */
  async project(scope: ReadScope, uid: string): Promise<NodeRecord> {
    const p = await this.graph.getNode(scope.org, uid);
    if (!p || p.tombstone_at !== null || !scope.allows(uid)) throw Errors.refNotFound('project_uid', uid);
    if (p.node_type !== 'Project') throw Errors.wrongNodeType('project_uid', uid, p.node_type, ['Project']);
    return p;
  }

  nodeOf(org: string, uid: string): Promise<NodeRecord | null> {
    return this.graph.getNode(org, uid);
  }

  async load(org: string, projectUid: string): Promise<ProjectCorpus> {
    const docEdges = await this.graph.listEdges(org, { to_uid: projectUid, edge_types: ['PartOfProject'] });
    const docNodes = await this.live(org, docEdges.map((e) => e.from_uid));
    const documents = [...docNodes.values()].filter((d) => d.node_type === 'Document').map((d) => ({ uid: d.uid, label: d.label }));
    const docOfChunk = new Map<string, string>();
    for (const d of documents) {
      const chunkEdges = await this.graph.listEdges(org, { to_uid: d.uid, edge_types: ['ChunkOf'] });
      const chunks = await this.live(org, chunkEdges.map((e) => e.from_uid));
      for (const c of chunks.values()) if (c.node_type === 'Chunk') docOfChunk.set(c.uid, d.uid);
    }
    const docsOf = new Map<string, Set<string>>();
    for (const [chunk, doc] of docOfChunk)
      for (const e of await this.graph.listEdges(org, { to_uid: chunk, edge_types: ['ExtractedFrom'] })) {
        let s = docsOf.get(e.from_uid);
        if (!s) docsOf.set(e.from_uid, (s = new Set()));
        s.add(doc);
      }
    const nodes = new Map<string, CorpusNode>();
    for (const n of (await this.live(org, [...docsOf.keys()])).values()) {
      if (NOT_SOURCES.has(n.node_type)) continue;
      nodes.set(n.uid, { uid: n.uid, label: n.label, node_type: n.node_type, summary: n.summary ?? null });
    }
    for (const u of [...docsOf.keys()]) if (!nodes.has(u)) docsOf.delete(u);
    const uids = [...nodes.keys()];
    const edges = uids.length > 1 ? (await this.graph.listEdges(org, { among: uids })).map((e) => ({ uid: e.uid, edge_type: e.edge_type, from_uid: e.from_uid, to_uid: e.to_uid })) : [];
    const vectors = await this.claimVectors(org, [...nodes.values()].filter((n) => n.node_type === 'Claim').map((n) => n.uid));
    return { project_uid: projectUid, documents, nodes, docsOf, edges, vectors };
  }

  private async live(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    if (!uids.length) return new Map();
    const found = await this.graph.getNodes(org, [...new Set(uids)]);
    for (const [u, n] of found) if (n.tombstone_at !== null) found.delete(u);
    return found;
  }

  /** The vector index belongs to the retrieval area: looked up, not injected (absent: no vectors). */
  private async claimVectors(org: string, claims: string[]): Promise<Map<string, number[]>> {
    if (this.vectors === undefined) {
      try {
        this.vectors = this.modules.get<Vectors>(VECTORS, { strict: false });
      } catch {
        this.vectors = null;
      }
    }
    const out = new Map<string, number[]>();
    if (!this.vectors || !claims.length) return out;
    await this.vectors.settle();
    for (const u of claims) {
      const v = await this.vectors.vectorOf(org, u);
      if (v) out.set(u, v);
    }
    return out;
  }
}
