import { Inject, Injectable } from '@nestjs/common';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { anchorInChunk, pagesOfSpan, readPageMap } from '@strata/domain/retrieval';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService, SourceDocument } from '@strata/platform/scope/provenance.service';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { fastStore } from '../shared/fast-store';

/** ISO date props (`valid_from`, `valid_until`) as Unix seconds; partial dates allowed. */
function isoSeconds(v: unknown, end: boolean): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string' || !v.trim()) return null;
  const s = v.trim();
  const t = Date.parse(s.length === 4 ? `${s}-01-01` : s.length === 7 ? `${s}-01` : s);
  if (Number.isNaN(t)) return null;
  // a bare date or month covers its whole span when it ends a validity window
  if (end && s.length <= 10) {
    const d = new Date(t);
    if (s.length === 4) d.setUTCFullYear(d.getUTCFullYear() + 1);
    else if (s.length === 7) d.setUTCMonth(d.getUTCMonth() + 1);
    else d.setUTCDate(d.getUTCDate() + 1);
    return d.getTime() / 1000 - 0.001;
  }
  return t / 1000;
}

export interface SourceChunk {
  chunk_uid: string;
  char_start: number | null;
  char_end: number | null;
  page_start: number | null;
  page_end: number | null;
  quote: string | null;
  anchor: { exact: string; prefix: string | null; suffix: string | null; start: number; end: number } | null;
}

// one statement for a whole set of endpoints (as JSON), from the adjacency indexes; per endpoint in listEdges' order
const EDGES_FROM_SQL = `SELECT from_uid AS at, doc FROM edges INDEXED BY edges_out
  WHERE org = ? AND from_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL ORDER BY created_at ASC, uid ASC`;
const EDGES_TO_SQL = `SELECT to_uid AS at, doc FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL ORDER BY created_at ASC, uid ASC`;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The annotations `/retrieve/context` adds to a node (REFERENCE §9.5), each present only
 * when it applies: source documents and chunks (anchored quotes, pages from the page map),
 * believers (Claims), supersession, validity. Only what the caller's scope shows is named.
 */
@Injectable()
export class NodeAnnotator {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly provenance: ProvenanceService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async annotate(scope: ReadScope, nodes: NodeRecord[], validAt: number | undefined): Promise<Record<string, unknown>[]> {
    const org = scope.org;
    const uids = nodes.map((n) => n.uid);
    const extractedAll = await this.edgesOf(org, uids, 'from', 'ExtractedFrom');
    // a node neither ingested nor extracted has no source documents: only the others are traced
    const traced = nodes.filter((n) => n.node_type === 'Document' || n.node_type === 'Chunk' || extractedAll.get(n.uid)?.length);
    const docs = traced.length ? await this.provenance.sourceDocuments(scope, traced) : new Map<string, SourceDocument[]>();
    const extractedOf = new Map<string, EdgeRecord[]>();
    for (const n of nodes) extractedOf.set(n.uid, (extractedAll.get(n.uid) ?? []).filter((e) => scope.allows(e.to_uid)));
    const chunks = await this.liveNodes(org, [...extractedOf.values()].flat().map((e) => e.to_uid));
    const pageMaps = await this.pageMapsOf(scope, [...chunks.keys()]);
    const beliefsOf = await this.edgesOf(org, nodes.filter((n) => n.node_type === 'Claim').map((n) => n.uid), 'from', 'BelievedBy');
    const supersededBy = await this.edgesOf(org, uids, 'to', 'Supersedes');
    const out: Record<string, unknown>[] = [];
    const now = this.clock.now();
    for (const n of nodes) {
      const a: Record<string, unknown> = { ...n };
      const sd = docs.get(n.uid) ?? [];
      if (sd.length) a.source_documents = sd;
      const sc: SourceChunk[] = [];
      for (const e of extractedOf.get(n.uid) ?? []) {
        const chunk = chunks.get(e.to_uid);
        if (!chunk) continue;
        const cp = chunk.props as Record<string, unknown>;
        const at = anchorInChunk(str(cp.content), e.props.location, n.label);
        const pages = pagesOfSpan(pageMaps.get(chunk.uid) ?? [], num(cp.char_offset_start), at.char_start, at.char_end);
        sc.push({ chunk_uid: chunk.uid, char_start: at.char_start, char_end: at.char_end, ...pages, quote: at.quote, anchor: at.anchor });
      }
      if (sc.length) a.source_chunks = sc;
      if (n.node_type === 'Claim') {
        const beliefs = beliefsOf.get(n.uid) ?? [];
        const agents = await this.graph.getNodes(org, beliefs.map((b) => b.to_uid));
        a.believed_by = beliefs
          .filter((b) => agents.get(b.to_uid)?.tombstone_at === null && scope.allows(b.to_uid))
          .map((b) => ({
            agent_uid: b.to_uid,
            agent_label: agents.get(b.to_uid)!.label,
            confidence: typeof b.props.confidence === 'number' ? b.props.confidence : b.confidence,
          }));
      }
      const sup = (supersededBy.get(n.uid) ?? []).filter((e) => scope.allows(e.from_uid));
      if (sup.length) {
        const by = await this.graph.getNodes(org, sup.map((e) => e.from_uid));
        const live = sup.filter((e) => by.get(e.from_uid)?.tombstone_at === null);
        if (live.length) {
          a.superseded = true;
          a.superseded_by = [...new Set(live.map((e) => e.from_uid))].sort();
        }
      }
      const p = n.props as Record<string, unknown>;
      if ((p.valid_from !== undefined && p.valid_from !== null) || (p.valid_until !== undefined && p.valid_until !== null)) {
        const from = isoSeconds(p.valid_from, false);
        const until = isoSeconds(p.valid_until, true);
        const t = validAt ?? now;
        const valid = (from === null || from <= t) && (until === null || t <= until);
        if (validAt !== undefined) a.valid_at_time = valid;
        else a.currently_valid = valid;
      }
      out.push(a);
    }
    return out;
  }

  private async liveNodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    const found = uids.length ? await this.graph.getNodes(org, [...new Set(uids)]) : new Map<string, NodeRecord>();
    for (const [u, n] of found) if (n.tombstone_at !== null || n.node_type !== 'Chunk') found.delete(u);
    return found;
  }

  /**
   * Each chunk's Document page map (empty when the Document has none, or when the caller cannot
   * read it: a Document absent for the caller has no pages to show, §13.1).
   */
  private async pageMapsOf(scope: ReadScope, chunkUids: string[]) {
    const org = scope.org;
    const out = new Map<string, ReturnType<typeof readPageMap>>();
    const docOf = new Map<string, string>();
    for (const [c, edges] of await this.edgesOf(org, chunkUids, 'from', 'ChunkOf')) if (edges.length) docOf.set(c, edges[0].to_uid);
    const found = docOf.size ? await this.graph.getNodes(org, [...new Set(docOf.values())]) : new Map<string, NodeRecord>();
    for (const [c, d] of docOf) {
      const doc = found.get(d);
      if (doc && doc.tombstone_at === null && scope.allows(doc.uid)) out.set(c, readPageMap((doc.props as Record<string, unknown>).page_offsets));
    }
    return out;
  }

  /**
   * Live edges of one type leaving (`from`) or entering (`to`) each of `uids`, per uid in
   * listEdges' order (oldest first, then uid): one statement for the set on the embedded store.
   */
  private async edgesOf(org: string, uids: string[], side: 'from' | 'to', edgeType: string): Promise<Map<string, EdgeRecord[]>> {
    const out = new Map<string, EdgeRecord[]>(uids.map((u) => [u, []]));
    if (!uids.length) return out;
    const fast = fastStore(this.graph);
    if (fast) {
      const rows = fast.stmt(side === 'from' ? EDGES_FROM_SQL : EDGES_TO_SQL).all(org, JSON.stringify([...out.keys()]), edgeType) as { at: string; doc: string }[];
      for (const r of rows) out.get(r.at)!.push(JSON.parse(r.doc) as EdgeRecord);
      return out;
    }
    for (const u of out.keys()) out.set(u, await this.graph.listEdges(org, side === 'from' ? { from_uid: u, edge_types: [edgeType] } : { to_uid: u, edge_types: [edgeType] }));
    return out;
  }
}
