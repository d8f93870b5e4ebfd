import { Inject, Injectable } from '@nestjs/common';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';

/** Types that are never among a Project's extracted nodes (REFERENCE §12.1). */
const NOT_EXTRACTED_SOURCES = new Set(['Document', 'Chunk', 'Article', 'Space']);

export interface SourceDocument {
  uid: string;
  title: string;
  ingested_by?: string | null;
  ingested_by_name?: string | null;
  occurred_at?: string | null;
}

/**
 * Provenance over the ingestion chain (REFERENCE §5.1):
 * node → ExtractedFrom → Chunk → ChunkOf → Document → PartOfProject → Project.
 */
@Injectable()
export class ProvenanceService {
  constructor(@Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel) {}

  /**
   * What a Project-scoped credential sees: the Project itself, plus its provenance (below).
   */
  async admittedBy(org: string, projectUid: string): Promise<Set<string>> {
    return (await this.withProvenanceIn(org, projectUid)).add(projectUid);
  }

  /**
   * The `project_uid` filter of searches and retrieval (REFERENCE §5.1): the Project's live
   * admitted Documents, their live Chunks and the nodes extracted from those Chunks. The
   * Project node itself is not among them unless it too was extracted from such a Chunk.
   */
  async withProvenanceIn(org: string, projectUid: string): Promise<Set<string>> {
    const out = new Set<string>();
    const docEdges = await this.graph.listEdges(org, { to_uid: projectUid, edge_types: ['PartOfProject'] });
    const docs = await this.liveOnly(org, docEdges.map((e) => e.from_uid));
    const extracted = new Set<string>();
    for (const d of docs) {
      out.add(d);
      const chunks = await this.liveOnly(org, (await this.graph.listEdges(org, { to_uid: d, edge_types: ['ChunkOf'] })).map((e) => e.from_uid));
      for (const c of chunks) {
        out.add(c);
        for (const e of await this.graph.listEdges(org, { to_uid: c, edge_types: ['ExtractedFrom'] })) extracted.add(e.from_uid);
      }
    }
    // §12.1 Nodes(P): Documents, Chunks, Articles and Spaces are never admitted as extracted nodes
    const found = await this.graph.getNodes(org, [...extracted]);
    for (const n of found.values()) if (n.tombstone_at === null && !NOT_EXTRACTED_SOURCES.has(n.node_type)) out.add(n.uid);
    return out;
  }

  /** Source documents of each node (Documents are their own source; Chunks point at theirs). */
  async sourceDocuments(org: string, nodes: NodeRecord[]): Promise<Map<string, SourceDocument[]>> {
    const out = new Map<string, SourceDocument[]>();
    const docCache = new Map<string, NodeRecord | null>();
    const chunkDocs = new Map<string, string[]>();
    const doc = async (uid: string) => {
      if (!docCache.has(uid)) {
        const d = await this.graph.getNode(org, uid);
        docCache.set(uid, d && d.tombstone_at === null && d.node_type === 'Document' ? d : null);
      }
      return docCache.get(uid)!;
    };
    const docsOfChunk = async (chunk: string) => {
      let ds = chunkDocs.get(chunk);
      if (!ds) {
        ds = (await this.graph.listEdges(org, { from_uid: chunk, edge_types: ['ChunkOf'] })).map((e) => e.to_uid);
        chunkDocs.set(chunk, ds);
      }
      return ds;
    };
    for (const n of nodes) {
      const docUids = new Set<string>();
      if (n.node_type === 'Document') docUids.add(n.uid);
      else if (n.node_type === 'Chunk') for (const d of await docsOfChunk(n.uid)) docUids.add(d);
      else
        for (const e of await this.graph.listEdges(org, { from_uid: n.uid, edge_types: ['ExtractedFrom'] }))
          for (const d of await docsOfChunk(e.to_uid)) docUids.add(d);
      const list: SourceDocument[] = [];
      for (const u of [...docUids].sort()) {
        const d = await doc(u);
        if (d) list.push(describeDocument(d));
      }
      out.set(n.uid, list);
    }
    return out;
  }

  private async liveOnly(org: string, uids: string[]): Promise<string[]> {
    if (!uids.length) return [];
    const found = await this.graph.getNodes(org, [...new Set(uids)]);
    return [...found.values()].filter((n) => n.tombstone_at === null).map((n) => n.uid);
  }
}

function describeDocument(d: NodeRecord): SourceDocument {
  const p = d.props as Record<string, unknown>;
  const out: SourceDocument = { uid: d.uid, title: typeof p.title === 'string' && p.title ? p.title : d.label };
  if (typeof p.ingested_by === 'string') out.ingested_by = p.ingested_by;
  if (typeof p.ingested_by_name === 'string') out.ingested_by_name = p.ingested_by_name;
  if (typeof p.occurred_at === 'string') out.occurred_at = p.occurred_at;
  return out;
}
