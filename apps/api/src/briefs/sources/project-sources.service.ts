import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  Extraction,
  GENERATED_CAP,
  GeneratedItem,
  ItemWork,
  ProjectSources,
  SourceChunk,
  SourceDocument,
  SourceEdge,
  SourceIdentities,
  SourceNode,
  sourceFingerprint,
  structuralCandidates,
} from '@strata/domain/briefs';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { readPageMap } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { ProjectSourcesReadModel } from '@strata/projections/briefs/project-sources-read-model';
import { MissingRecords, ProjectView } from './project-view';
import { EdgeRow, NodeRow, SourceRowReader, SourceTraversal, identitiesOf, traverseSources } from './source-traversal';

type FastStore = Pick<SqliteGraphStore, 'stmt'>;
// whole sets per statement on the embedded store (a Project admits thousands of chunks), and
// columns only: the traversal and the fingerprint never need the records' JSON
const EDGES_IN_SQL = `SELECT uid, version, from_uid, to_uid, edge_type FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL`;
const EDGES_OUT_SQL = `SELECT uid, version, from_uid, to_uid, edge_type FROM edges INDEXED BY edges_out
  WHERE org = ? AND from_uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const NODE_ROWS_SQL = `SELECT uid, version, node_type FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const NODE_DOCS_SQL = `SELECT doc FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const EDGE_DOCS_SQL = `SELECT doc FROM edges WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;

/** Projects whose views are kept (a view may hold every admitted record once the model-backed generator read them) */
const PROJECTS_CACHED = 8;
/** Past this many changed members a view is read afresh rather than updated */
const UPDATE_MAX = 2_000;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Column-only rows from the embedded store. */
function columnReader(fast: FastStore, org: string): SourceRowReader<NodeRow, EdgeRow> {
  return {
    edgesInto: async (targets, edgeType) => (targets.length ? (fast.stmt(EDGES_IN_SQL).all(org, JSON.stringify(targets), edgeType) as EdgeRow[]) : []),
    liveNodes: async (uids) => {
      const out = new Map<string, NodeRow>();
      if (!uids.length) return out;
      for (const r of fast.stmt(NODE_ROWS_SQL).all(org, JSON.stringify([...new Set(uids)])) as NodeRow[]) out.set(r.uid, r);
      return out;
    },
    edgesAmong: async (uids) => {
      const set = new Set(uids);
      return (fast.stmt(EDGES_OUT_SQL).all(org, JSON.stringify(uids)) as EdgeRow[]).filter((e) => set.has(e.to_uid));
    },
  };
}

/** Whole records from any graph read model (servers mode). */
function recordReader(graph: GraphReadModel, org: string): SourceRowReader<NodeRecord, EdgeRecord> {
  return {
    edgesInto: async (targets, edgeType) => {
      const out: EdgeRecord[] = [];
      for (const t of targets) out.push(...(await graph.listEdges(org, { to_uid: t, edge_types: [edgeType] })));
      return out;
    },
    liveNodes: async (uids) => {
      if (!uids.length) return new Map();
      const found = await graph.getNodes(org, [...new Set(uids)]);
      for (const [u, n] of found) if (n.tombstone_at !== null) found.delete(u);
      return found;
    },
    edgesAmong: (uids) => graph.listEdges(org, { among: uids }),
  };
}

/** The graph moved past the view while its records were read (the caller reads the view again). */
class StaleView extends Error {}

/** Worked-out item texts and citations kept (keys name every version they read). */
const WORK_KEPT = 5_000;

/**
 * A Project's admitted sources (REFERENCE §12.1) from the project-sources read model (the
 * projection keeps Docs(P) → Chunks(P) → Nodes(P) → Edges(P) member by member). The view of a
 * Project is kept until the projection reports a change to it, with its fingerprint and ranked
 * structural candidates; generated texts and citations are kept by what they were worked out
 * from, so a regeneration works out only the items whose sources changed. Without the read
 * model (a service given only the graph port, or a replica whose mirror is still reading the
 * graph) the traversal (source-traversal.ts) answers instead, afresh on each call.
 */
@Injectable()
export class ProjectSourcesService {
  private readonly views = new Map<string, ProjectView>();
  private readonly work = new Map<string, unknown>();
  private readonly model: ProjectSourcesReadModel | null;

  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(EMBEDDED_STORAGE) @Optional() private readonly embedded: EmbeddedStorage | null = null,
    @Optional() private readonly mirror: AccountsMirror | null = null,
  ) {
    this.model = embedded ? new ProjectSourcesReadModel(embedded.projections) : (mirror?.projectSourcesReadModel ?? null);
  }

  private fast(): FastStore | null {
    return typeof (this.graph as Partial<FastStore>).stmt === 'function' ? (this.graph as unknown as FastStore) : null;
  }

  /**
   * The Project's view, kept per read-model stamp. None kept while a unit of work's transaction
   * is open: its uncommitted rows are visible on the shared connection and may roll back.
   */
  private view(org: string, projectUid: string): ProjectView | null {
    const model = this.model;
    if (!model || (this.mirror && !this.embedded && !this.mirror.sourcesReady)) return null;
    const key = `${org}\u0000${projectUid}`;
    const stamp = model.stamp(org, projectUid);
    const hit = this.views.get(key);
    if (hit && hit.stamp === stamp) return hit;
    const open = !!this.embedded?.projections.inTransaction;
    if (hit && !open && hit.inUse === 0) {
      // only the members the changes since the view named are read again
      const changed = model.changedSince(org, projectUid, hit.stamp);
      if (changed && changed.size <= UPDATE_MAX) {
        const uids = [...changed];
        hit.update(stamp, uids, model.membersOf(org, projectUid, uids));
        return hit;
      }
    }
    const v = new ProjectView(stamp, projectUid, model.members(org, projectUid));
    if (!open) {
      this.views.delete(key);
      this.views.set(key, v);
      if (this.views.size > PROJECTS_CACHED) this.views.delete(this.views.keys().next().value!);
    }
    return v;
  }

  private async traversed(org: string, projectUid: string) {
    const fast = this.fast();
    return fast ? traverseSources(columnReader(fast, org), projectUid) : traverseSources(recordReader(this.graph, org), projectUid);
  }

  /** What the fingerprint and the hidden check read, without any record's content. */
  async identities(org: string, projectUid: string): Promise<SourceIdentities> {
    return this.view(org, projectUid)?.sources ?? identitiesOf(await this.traversed(org, projectUid));
  }

  /** The identities with their fingerprint (§12.4), hashed once per view. */
  async fingerprinted(org: string, projectUid: string): Promise<{ ids: SourceIdentities; fingerprint: string }> {
    const v = this.view(org, projectUid);
    if (!v) {
      const ids = identitiesOf(await this.traversed(org, projectUid));
      return { ids, fingerprint: sourceFingerprint(ids) };
    }
    return { ids: v.sources, fingerprint: v.fingerprint() };
  }

  private workFor(org: string): ItemWork {
    const work = this.work;
    return {
      get<T>(key: string, make: () => T): T {
        const k = `${org} ${key}`;
        if (work.has(k)) return work.get(k) as T;
        const made = make();
        if (work.size >= WORK_KEPT) work.delete(work.keys().next().value!);
        work.set(k, made);
        return made;
      },
    };
  }

  /** Reads records into the view, refusing any the graph holds at another version than the view. */
  private async fill(org: string, v: ProjectView, uids: string[]): Promise<void> {
    if (!uids.length) return;
    const got = await this.graph.getNodes(org, uids);
    for (const u of uids) {
      const r = got.get(u);
      if (!r || r.version !== v.version(u)) throw new StaleView();
      v.records.set(u, r);
    }
  }

  /**
   * A structural generation over the read model: `write` gets the sources, their fingerprint
   * and the ranked candidates, and reads the text and citations of the items it keeps. The
   * records of the items a version will likely read (the pinned ones and the first of each kind)
   * are read beforehand; one it reads besides is read and the write tried again.
   */
  async structural<T>(
    org: string,
    projectUid: string,
    pinned: { id: string; kind: string }[],
    write: (g: { sources: ProjectSources; fingerprint: string; generated: GeneratedItem[] }) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      // a graph that keeps moving past the view (a replica's mirror behind the graph servers): the traversal answers
      const v = attempt < 3 ? this.view(org, projectUid) : null;
      if (!v) {
        const s = await this.loadByTraversal(org, projectUid);
        return write({ sources: s, fingerprint: sourceFingerprint(s), generated: structuralCandidates(s) });
      }
      const fingerprint = v.fingerprint();
      const generated = v.candidates(this.workFor(org));
      // not changed in place while this generation reads it
      v.inUse++;
      try {
        const pins = new Set(pinned.map((p) => p.id));
        const perKind = new Map<string, number>();
        for (const p of pinned) perKind.set(p.kind, (perKind.get(p.kind) ?? 0) + 1);
        const seen = new Map<string, number>();
        const likely = generated.filter((g) => {
          const n = seen.get(g.kind) ?? 0;
          seen.set(g.kind, n + 1);
          return pins.has(g.id) || n < GENERATED_CAP + (perKind.get(g.kind) ?? 0);
        });
        await this.fill(org, v, v.needs(likely));
        return await write({ sources: v.sources, fingerprint, generated });
      } catch (err) {
        if (err instanceof MissingRecords) await this.fill(org, v, err.uids).catch((e) => (e instanceof StaleView ? this.views.clear() : Promise.reject(e)));
        else if (err instanceof StaleView) this.views.clear();
        else throw err;
      } finally {
        v.inUse--;
      }
    }
  }

  /** Every admitted record loaded: what the model-backed generator and corrections read. */
  async load(org: string, projectUid: string): Promise<ProjectSources> {
    for (let attempt = 0; ; attempt++) {
      const v = attempt < 3 ? this.view(org, projectUid) : null;
      if (!v) return this.loadByTraversal(org, projectUid);
      v.inUse++;
      try {
        if (!v.allLoaded) {
          const s = v.sources;
          await this.fill(org, v, [...s.documents.keys(), ...s.chunks.keys(), ...s.nodes.keys()].filter((u) => !v.records.has(u)));
          v.allLoaded = true;
        }
        return await this.plain(org, v);
      } catch (err) {
        if (!(err instanceof StaleView)) throw err;
        this.views.clear();
      } finally {
        v.inUse--;
      }
    }
  }

  /** The view's sources as plain records, Edges(P) with their whole props. */
  private async plain(org: string, v: ProjectView): Promise<ProjectSources> {
    const s = v.sources;
    const uids = s.edges.map((e) => e.uid);
    const fast = this.fast();
    const records = new Map<string, EdgeRecord>();
    if (uids.length) {
      if (fast) for (const r of fast.stmt(EDGE_DOCS_SQL).all(org, JSON.stringify(uids)) as { doc: string }[]) {
        const e = JSON.parse(r.doc) as EdgeRecord;
        records.set(e.uid, e);
      }
      else for (const e of await this.graph.listEdges(org, { among: [...s.nodes.keys()] })) records.set(e.uid, e);
    }
    // in uid order, as a view first read lists them (an updated view adds members at the end)
    const byUid = <T>(m: Map<string, T>): [string, T][] => [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const documents = new Map(byUid(s.documents).map(([u, d]) => [u, { uid: u, version: d.version, title: d.title, page_map: d.page_map }]));
    const chunks = new Map(byUid(s.chunks).map(([u, c]) => [u, { uid: u, version: c.version, document_uid: c.document_uid, content: c.content, chunk_index: c.chunk_index, char_offset_start: c.char_offset_start }]));
    const nodes = new Map(
      byUid(s.nodes).map(([u, n]) => [u, { uid: u, version: n.version, node_type: n.node_type, label: n.label, props: n.props, confidence: n.confidence, created_at: n.created_at, status: n.status, importance: n.importance }]),
    );
    const edges = s.edges.map((e) => ({ ...e, props: records.get(e.uid)?.props ?? e.props }));
    const extractions = new Map(byUid(s.extractions).map(([u, l]) => [u, l.map((x) => ({ edge_uid: x.edge_uid, edge_version: x.edge_version, chunk_uid: x.chunk_uid, location: x.location }))]));
    return { project_uid: s.project_uid, documents, chunks, nodes, edges, admitting: s.admitting, extractions };
  }

  private async loadByTraversal(org: string, projectUid: string): Promise<ProjectSources> {
    const fast = this.fast();
    if (!fast) {
      const t = await traverseSources(recordReader(this.graph, org), projectUid);
      return assemble(projectUid, t, (u) => t.documents.get(u) ?? t.chunks.get(u)?.node ?? t.nodes.get(u), t.edges);
    }
    const t = await traverseSources(columnReader(fast, org), projectUid);
    const nodeUids = [...t.documents.keys(), ...t.chunks.keys(), ...t.nodes.keys()];
    const nodeDocs = new Map<string, NodeRecord>();
    if (nodeUids.length)
      for (const r of fast.stmt(NODE_DOCS_SQL).all(org, JSON.stringify(nodeUids)) as { doc: string }[]) {
        const n = JSON.parse(r.doc) as NodeRecord;
        nodeDocs.set(n.uid, n);
      }
    const edges = t.edges.length
      ? (fast.stmt(EDGE_DOCS_SQL).all(org, JSON.stringify(t.edges.map((e) => e.uid))) as { doc: string }[]).map((r) => JSON.parse(r.doc) as EdgeRecord)
      : [];
    // as the read model lists them
    edges.sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    // the extraction selectors are the only edge props generation reads
    const extraction = new Map<string, EdgeRecord>();
    if (t.extractedFrom.length)
      for (const r of fast.stmt(EDGE_DOCS_SQL).all(org, JSON.stringify(t.extractedFrom.map((e) => e.uid))) as { doc: string }[]) {
        const e = JSON.parse(r.doc) as EdgeRecord;
        extraction.set(e.uid, e);
      }
    return assemble(projectUid, t, (u) => nodeDocs.get(u), edges, (u) => extraction.get(u));
  }

  /** The chunk nodes named by a correction (live or not), for its 404s. */
  nodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    return this.graph.getNodes(org, [...new Set(uids)]);
  }

  node(org: string, uid: string): Promise<NodeRecord | null> {
    return this.graph.getNode(org, uid);
  }
}

/**
 * ProjectSources from a traversal and the records it names. Versions come from the traversal's
 * rows, so the fingerprint of the result equals that of `identities` at the same position.
 */
function assemble(
  projectUid: string,
  t: SourceTraversal<NodeRow, EdgeRow>,
  node: (uid: string) => NodeRecord | undefined,
  edgeRecords: EdgeRecord[],
  extraction?: (uid: string) => EdgeRecord | undefined,
): ProjectSources {
  const documents = new Map<string, SourceDocument>();
  for (const [u, row] of t.documents) {
    const d = node(u);
    documents.set(u, { uid: u, version: row.version, title: (d && str(d.props.title)) ?? d?.label ?? '', page_map: readPageMap(d?.props.page_offsets) });
  }
  const chunks = new Map<string, SourceChunk>();
  for (const [u, { node: row, document_uid }] of t.chunks) {
    const c = node(u);
    chunks.set(u, {
      uid: u,
      version: row.version,
      document_uid,
      content: (c && str(c.props.content)) ?? '',
      chunk_index: (c && num(c.props.chunk_index)) ?? 0,
      char_offset_start: c ? num(c.props.char_offset_start) : null,
    });
  }
  const nodes = new Map<string, SourceNode>();
  for (const [u, row] of t.nodes) {
    const n = node(u);
    const props: Record<string, unknown> = n?.props ?? {};
    nodes.set(u, { uid: u, version: row.version, node_type: row.node_type, label: n?.label ?? '', props, confidence: n?.confidence ?? 0, created_at: n?.created_at ?? 0, status: props.status, importance: num(props.importance) });
  }
  const extractions = new Map<string, Extraction[]>();
  for (const e of t.extractedFrom) {
    let l = extractions.get(e.from_uid);
    if (!l) extractions.set(e.from_uid, (l = []));
    const rec = extraction ? extraction(e.uid) : (e as EdgeRecord);
    l.push({ edge_uid: e.uid, edge_version: e.version, chunk_uid: e.to_uid, location: rec?.props.location });
  }
  const edges: SourceEdge[] = edgeRecords.map((e) => ({
    uid: e.uid,
    version: e.version,
    edge_type: e.edge_type,
    from_uid: e.from_uid,
    to_uid: e.to_uid,
    props: e.props,
    created_at: e.created_at,
  }));
  const admitting = [...t.partOf, ...t.chunkOf].map((e) => ({ uid: e.uid, version: e.version }));
  return { project_uid: projectUid, documents, chunks, nodes, edges, admitting, extractions };
}
