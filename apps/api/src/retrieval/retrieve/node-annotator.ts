import { Inject, Injectable } from '@nestjs/common';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ProvenanceService } from '@strata/platform/scope/provenance.service';
import { ReadScope } from '@strata/platform/scope/read-scope';

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

/**
 * The annotations `/retrieve/context` adds to a node (REFERENCE §9.5), each present only
 * when it applies: source documents and chunks, believers (Claims), supersession, validity.
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
    const docs = await this.provenance.sourceDocuments(org, nodes);
    const out: Record<string, unknown>[] = [];
    const now = this.clock.now();
    for (const n of nodes) {
      const a: Record<string, unknown> = { ...n };
      const sd = docs.get(n.uid) ?? [];
      if (sd.length) a.source_documents = sd;
      const extracted = await this.graph.listEdges(org, { from_uid: n.uid, edge_types: ['ExtractedFrom'] });
      if (extracted.length) a.source_chunks = extracted.map(sourceChunk);
      if (n.node_type === 'Claim') {
        const beliefs = await this.graph.listEdges(org, { from_uid: n.uid, edge_types: ['BelievedBy'] });
        const agents = await this.graph.getNodes(org, beliefs.map((b) => b.to_uid));
        a.believed_by = beliefs
          .filter((b) => agents.get(b.to_uid)?.tombstone_at === null && scope.allows(b.to_uid))
          .map((b) => ({
            agent_uid: b.to_uid,
            agent_label: agents.get(b.to_uid)!.label,
            confidence: typeof b.props.confidence === 'number' ? b.props.confidence : b.confidence,
          }));
      }
      const sup = (await this.graph.listEdges(org, { to_uid: n.uid, edge_types: ['Supersedes'] })).filter((e) => scope.allows(e.from_uid));
      if (sup.length) {
        const by = await this.graph.getNodes(org, sup.map((e) => e.from_uid));
        const live = sup.filter((e) => by.get(e.from_uid)?.tombstone_at === null);
        a.superseded = live.length > 0;
        a.superseded_by = live.map((e) => e.from_uid);
      }
      const p = n.props as Record<string, unknown>;
      if (p.valid_from !== undefined || p.valid_until !== undefined) {
        const from = isoSeconds(p.valid_from, false);
        const until = isoSeconds(p.valid_until, true);
        const at = validAt ?? now;
        const valid = (from === null || from <= at) && (until === null || at <= until);
        if (validAt !== undefined) a.valid_at_time = valid;
        else a.currently_valid = valid;
      }
      out.push(a);
    }
    return out;
  }
}

function sourceChunk(e: { to_uid: string; props: Record<string, unknown> }) {
  const loc = e.props.location;
  const parsed = parseLocation(loc);
  return {
    chunk_uid: e.to_uid,
    char_start: parsed.start,
    char_end: parsed.end,
    page_start: parsed.page_start,
    page_end: parsed.page_end,
    quote: parsed.quote,
    anchor: parsed.anchor,
  };
}

/** `ExtractedFrom.location` is a text selector (JSON) when ingestion could anchor the quote. */
function parseLocation(loc: unknown) {
  const empty = { start: null, end: null, page_start: null, page_end: null, quote: null, anchor: null } as Record<string, unknown>;
  if (typeof loc !== 'string' || !loc.trim().startsWith('{')) return empty;
  try {
    const o = JSON.parse(loc) as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    const anchor =
      typeof o.exact === 'string'
        ? { exact: o.exact, prefix: str(o.prefix), suffix: str(o.suffix), start: num(o.start), end: num(o.end) }
        : null;
    return {
      start: num(o.start ?? o.char_start),
      end: num(o.end ?? o.char_end),
      page_start: num(o.page_start),
      page_end: num(o.page_end),
      quote: str(o.quote ?? o.exact),
      anchor,
    };
  } catch {
    return empty;
  }
}
