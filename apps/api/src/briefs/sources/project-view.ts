import {
  Extraction,
  GeneratedItem,
  ItemWork,
  ProjectSources,
  SourceChunk,
  SourceDocument,
  SourceEdge,
  SourceIdentity,
  SourceNode,
  StructuralRanking,
  byCreatedThenUid,
  fingerprintOfLines,
  lowerBound,
} from '@strata/domain/briefs';
import { NodeRecord } from '@strata/domain/records';
import { readPageMap } from '@strata/domain/retrieval';
import { MemberChunkRow, MemberEdgeRow, MemberNodeRow, ProjectMembers } from '@strata/projections/briefs/project-sources-read-model';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A generation read a record the view has not loaded yet (the caller loads it and tries again). */
export class MissingRecords extends Error {
  constructor(readonly uids: string[]) {
    super(`records not loaded: ${uids.length}`);
  }
}


const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The fingerprint's lines (`<uid> <version>`) kept sorted and counted, so a change moves a few
 * lines by binary search instead of sorting them all again; the hash still reads every line.
 */
class FingerprintLines {
  private readonly counts = new Map<string, number>();
  private sorted: string[] = [];
  private pending: string[] | null = [];

  add(line: string): void {
    const n = this.counts.get(line) ?? 0;
    this.counts.set(line, n + 1);
    if (n) return;
    if (this.pending) this.pending.push(line);
    else this.sorted.splice(lowerBound(this.sorted, line, byString), 0, line);
  }

  remove(line: string): void {
    const n = this.counts.get(line);
    if (!n) return;
    if (n > 1) return void this.counts.set(line, n - 1);
    this.counts.delete(line);
    this.settle();
    const i = lowerBound(this.sorted, line, byString);
    if (this.sorted[i] === line) this.sorted.splice(i, 1);
  }

  /** Lines added in bulk (the first read) are sorted once. */
  private settle(): void {
    if (!this.pending) return;
    this.sorted = this.pending.sort();
    this.pending = null;
  }

  fingerprint(): string {
    this.settle();
    return fingerprintOfLines(this.sorted);
  }
}

const line = (x: SourceIdentity) => `${x.uid} ${x.version}`;

/**
 * A Project's admitted sources as the project-sources read model holds them: identities and the
 * ranking facts of every member, with content (labels, props, chunk text, document titles) read
 * from the graph only for the records a generation reads, and kept while the view holds. A view
 * is brought up to date with the members a change named (`update`): their rows replace theirs,
 * the fingerprint's lines and the ranking move by what changed, and the records of those members
 * are read again when next needed.
 */
export class ProjectView {
  readonly records = new Map<string, NodeRecord>();
  readonly sources: ProjectSources;
  allLoaded = false;
  /** generations reading the view now: while any runs, it is not changed in place */
  inUse = 0;
  private fp?: string;
  private ranking?: StructuralRanking;
  private readonly lines = new FingerprintLines();
  private readonly edgeById = new Map<string, SourceEdge>();
  private readonly extractionById = new Map<string, { from_uid: string; x: Extraction }>();
  private readonly partOf = new Map<string, SourceIdentity>();
  private readonly chunkOf = new Map<string, SourceIdentity>();
  private readonly chunksOfDoc = new Map<string, Set<string>>();
  /** per chunk, the extraction edges into it and their nodes */
  private readonly extractedFrom = new Map<string, Map<string, string>>();

  constructor(
    public stamp: string,
    projectUid: string,
    m: ProjectMembers,
  ) {
    this.sources = { project_uid: projectUid, documents: new Map(), chunks: new Map(), nodes: new Map(), edges: [], admitting: [], extractions: new Map() };
    this.add(m, true);
    // as the graph lists them (the read model lists each kind in uid order)
    this.sources.edges.sort(byCreatedThenUid);
    this.sources.admitting = [...this.partOf.values(), ...this.chunkOf.values()];
  }

  private rec(uid: string): NodeRecord {
    const r = this.records.get(uid);
    if (!r) throw new MissingRecords([uid]);
    return r;
  }

  private document(d: { uid: string; version: number }): SourceDocument {
    const rec = (u: string) => this.rec(u);
    return {
      uid: d.uid,
      version: d.version,
      get title() {
        const r = rec(d.uid);
        return str(r.props.title) ?? r.label;
      },
      get page_map() {
        return readPageMap(rec(d.uid).props.page_offsets);
      },
    };
  }

  private chunk(c: MemberChunkRow): SourceChunk {
    const rec = (u: string) => this.rec(u);
    return {
      uid: c.uid,
      version: c.version,
      document_uid: c.document_uid,
      get content() {
        return str(rec(c.uid).props.content) ?? '';
      },
      get chunk_index() {
        return num(rec(c.uid).props.chunk_index) ?? 0;
      },
      get char_offset_start() {
        return num(rec(c.uid).props.char_offset_start);
      },
    };
  }

  private node(n: MemberNodeRow): SourceNode {
    const rec = (u: string) => this.rec(u);
    return {
      uid: n.uid,
      version: n.version,
      node_type: n.node_type,
      confidence: n.confidence,
      created_at: n.created_at,
      status: n.status === null ? undefined : JSON.parse(n.status),
      importance: n.importance,
      get label() {
        return rec(n.uid).label;
      },
      get props() {
        return rec(n.uid).props as Record<string, unknown>;
      },
    };
  }

  /** props carry what the generator reads of an edge (a Contradicts edge's resolution) */
  private static edge(e: MemberEdgeRow): SourceEdge {
    return { uid: e.uid, version: e.version, edge_type: e.edge_type, from_uid: e.from_uid, to_uid: e.to_uid, created_at: e.created_at, props: e.attr ? JSON.parse(e.attr) : {} };
  }

  private static extraction(x: MemberEdgeRow): Extraction {
    const attr = x.attr;
    let location: unknown;
    return {
      edge_uid: x.uid,
      edge_version: x.version,
      chunk_uid: x.to_uid,
      get location() {
        return (location ??= attr ? JSON.parse(attr).location : undefined);
      },
    };
  }

  /** Adds member rows; in bulk (the first read) the edges are sorted once afterwards. */
  private add(m: ProjectMembers, bulk: boolean, changes?: { nodes: Set<string>; edges: Map<string, { before?: SourceEdge; after?: SourceEdge }> }): void {
    const s = this.sources;
    for (const d of m.documents) {
      s.documents.set(d.uid, this.document(d));
      this.lines.add(line(d));
    }
    for (const c of m.chunks) {
      s.chunks.set(c.uid, this.chunk(c));
      this.lines.add(line(c));
      let l = this.chunksOfDoc.get(c.document_uid);
      if (!l) this.chunksOfDoc.set(c.document_uid, (l = new Set()));
      l.add(c.uid);
    }
    for (const n of m.nodes) {
      s.nodes.set(n.uid, this.node(n));
      this.lines.add(line(n));
      changes?.nodes.add(n.uid);
    }
    for (const r of m.edges) {
      const e = ProjectView.edge(r);
      this.edgeById.set(e.uid, e);
      this.lines.add(line(e));
      if (bulk) s.edges.push(e);
      else s.edges.splice(lowerBound(s.edges, e, byCreatedThenUid), 0, e);
      if (changes) {
        const c = changes.edges.get(e.uid);
        if (c) c.after = e;
        else changes.edges.set(e.uid, { after: e });
      }
    }
    for (const [into, rows] of [
      [this.partOf, m.part_of],
      [this.chunkOf, m.chunk_of],
    ] as const)
      for (const a of rows) {
        into.set(a.uid, { uid: a.uid, version: a.version });
        this.lines.add(line(a));
      }
    for (const r of m.extractions) {
      const x = ProjectView.extraction(r);
      this.extractionById.set(x.edge_uid, { from_uid: r.from_uid, x });
      this.lines.add(`${x.edge_uid} ${x.edge_version}`);
      let l = s.extractions.get(r.from_uid);
      if (!l) s.extractions.set(r.from_uid, (l = []));
      if (bulk) l.push(x);
      else l.splice(lowerBound(l, x, (a, b) => byString(a.edge_uid, b.edge_uid)), 0, x);
      let into = this.extractedFrom.get(x.chunk_uid);
      if (!into) this.extractedFrom.set(x.chunk_uid, (into = new Map()));
      into.set(x.edge_uid, r.from_uid);
      changes?.nodes.add(r.from_uid);
    }
  }

  /** The nodes whose citations read this chunk or document. */
  private citing(uid: string, into: Set<string>): void {
    for (const c of this.chunksOfDoc.get(uid) ?? []) for (const n of this.extractedFrom.get(c)?.values() ?? []) into.add(n);
    for (const n of this.extractedFrom.get(uid)?.values() ?? []) into.add(n);
  }

  /**
   * Brings the view to `stamp`: the memberships of `changed` (every kind) are replaced by
   * `rows`, their rows as the read model now holds them.
   */
  update(stamp: string, changed: Iterable<string>, rows: ProjectMembers): void {
    const s = this.sources;
    const nodes = new Set<string>();
    const edges = new Map<string, { before?: SourceEdge; after?: SourceEdge }>();
    let admittingMoved = false;
    const uids = [...changed];
    for (const u of uids) {
      this.records.delete(u);
      const d = s.documents.get(u);
      if (d) {
        this.citing(u, nodes);
        this.lines.remove(line(d));
        s.documents.delete(u);
      }
      const c = s.chunks.get(u);
      if (c) {
        this.citing(u, nodes);
        this.lines.remove(line(c));
        s.chunks.delete(u);
        const l = this.chunksOfDoc.get(c.document_uid);
        l?.delete(u);
        if (l && !l.size) this.chunksOfDoc.delete(c.document_uid);
      }
      const n = s.nodes.get(u);
      if (n) {
        nodes.add(u);
        this.lines.remove(line(n));
        s.nodes.delete(u);
      }
      const e = this.edgeById.get(u);
      if (e) {
        edges.set(u, { before: e });
        this.lines.remove(line(e));
        this.edgeById.delete(u);
        const i = lowerBound(s.edges, e, byCreatedThenUid);
        const at = s.edges[i] === e ? i : s.edges.indexOf(e);
        if (at >= 0) s.edges.splice(at, 1);
      }
      for (const a of [this.partOf, this.chunkOf]) {
        const x = a.get(u);
        if (!x) continue;
        this.lines.remove(line(x));
        a.delete(u);
        admittingMoved = true;
      }
      const x = this.extractionById.get(u);
      if (x) {
        nodes.add(x.from_uid);
        this.lines.remove(`${x.x.edge_uid} ${x.x.edge_version}`);
        this.extractionById.delete(u);
        const l = s.extractions.get(x.from_uid) ?? [];
        const at = l.indexOf(x.x);
        if (at >= 0) l.splice(at, 1);
        if (!l.length) s.extractions.delete(x.from_uid);
        const into = this.extractedFrom.get(x.x.chunk_uid);
        into?.delete(u);
        if (into && !into.size) this.extractedFrom.delete(x.x.chunk_uid);
      }
    }
    this.add(rows, false, { nodes, edges });
    if (admittingMoved || rows.part_of.length || rows.chunk_of.length) s.admitting = [...sortedValues(this.partOf), ...sortedValues(this.chunkOf)];
    for (const u of uids) this.citing(u, nodes);
    this.ranking?.update({ nodes, edges: edges.values() });
    this.fp = undefined;
    this.allLoaded = false;
    this.stamp = stamp;
  }

  /** The fingerprint (§12.4) of the view's identities, hashed once per stamp. */
  fingerprint(): string {
    return (this.fp ??= this.lines.fingerprint());
  }

  /** The ranked structural candidates, kept across updates. */
  candidates(work: ItemWork): GeneratedItem[] {
    return (this.ranking ??= new StructuralRanking(this.sources, work)).candidates();
  }

  /** The records a generation of these items reads: their nodes, their extractions' chunks and those chunks' documents. */
  needs(items: Iterable<GeneratedItem>): string[] {
    const s = this.sources;
    const out = new Set<string>();
    for (const i of items)
      for (const u of [...i.subject_uids, ...i.basis_uids]) {
        out.add(u);
        for (const x of s.extractions.get(u) ?? []) {
          out.add(x.chunk_uid);
          const c = s.chunks.get(x.chunk_uid);
          if (c) out.add(c.document_uid);
        }
      }
    return [...out].filter((u) => !this.records.has(u));
  }

  version(uid: string): number | undefined {
    const s = this.sources;
    return (s.nodes.get(uid) ?? s.chunks.get(uid) ?? s.documents.get(uid))?.version;
  }
}

function sortedValues<T>(m: Map<string, T>): T[] {
  return [...m.keys()].sort().map((k) => m.get(k)!);
}
