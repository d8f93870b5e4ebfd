import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { CorpusNode, ProjectCorpus } from '@strata/domain/synthesis';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

type FastStore = Pick<SqliteGraphStore, 'stmt'>;
const PAIRS_SQL = `SELECT from_uid, to_uid FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL`;

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
    const docEdges = await this.pairs(org, [projectUid], 'PartOfProject');
    const docNodes = await this.live(org, docEdges.map((e) => e.from_uid));
    const documents = [...docNodes.values()].filter((d) => d.node_type === 'Document').map((d) => ({ uid: d.uid, label: d.label }));
    const docOfChunk = new Map<string, string>();
    const chunkEdges = await this.pairs(org, documents.map((d) => d.uid), 'ChunkOf');
    const chunks = await this.live(org, chunkEdges.map((e) => e.from_uid));
    for (const e of chunkEdges) if (chunks.get(e.from_uid)?.node_type === 'Chunk') docOfChunk.set(e.from_uid, e.to_uid);
    const docsOf = new Map<string, Set<string>>();
    for (const e of await this.pairs(org, [...docOfChunk.keys()], 'ExtractedFrom')) {
      let s = docsOf.get(e.from_uid);
      if (!s) docsOf.set(e.from_uid, (s = new Set()));
      s.add(docOfChunk.get(e.to_uid)!);
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

  /**
   * Live edges of a type into any of `targets`, as (from, to) pairs: one statement for the whole
   * set on the embedded store (a Project has thousands of chunks), one port query per target elsewhere.
   */
  private async pairs(org: string, targets: string[], edgeType: string): Promise<{ from_uid: string; to_uid: string }[]> {
    if (!targets.length) return [];
    const fast = typeof (this.graph as Partial<FastStore>).stmt === 'function' ? (this.graph as unknown as FastStore) : null;
    if (fast) return fast.stmt(PAIRS_SQL).all(org, JSON.stringify(targets), edgeType) as { from_uid: string; to_uid: string }[];
    const out: { from_uid: string; to_uid: string }[] = [];
    for (const t of targets) for (const e of await this.graph.listEdges(org, { to_uid: t, edge_types: [edgeType] })) out.push({ from_uid: e.from_uid, to_uid: e.to_uid });
    return out;
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
