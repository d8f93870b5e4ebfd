import type { Database, Statement } from 'better-sqlite3';
import { NOT_SOURCES } from '@strata/domain/briefs/source-traversal';
import { RecordedEvent, isGraphEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { EmbeddedProjection } from '../projection';
import { sourcesChanged, sourcesReset } from './project-sources-changes';
import { PROJECT_SOURCES_DDL, PROJECT_SOURCES_TABLES } from './project-sources-schema';
import { prepared } from '../sqlite/prepared';

interface NodeRow {
  uid: string;
  node_type: string;
  version: number;
  live: number;
}

interface EdgeRow {
  uid: string;
  edge_type: string;
  from_uid: string;
  to_uid: string;
  version: number;
  live: number;
}

type Kind = 'd' | 'c' | 'n' | 'e' | 'p' | 'o' | 'x';

interface OrgSources {
  /** uids with a row in ps_members (of any Project and kind) */
  members: Set<string>;
  /** Documents with a PartOfProject edge (live or not) */
  partOfDocs: Set<string>;
}

/** Edge types whose edges admit a member (a Document, a Chunk, a node) */
const ADMITTING = new Set(['PartOfProject', 'ChunkOf', 'ExtractedFrom']);
const EDGE_COLS = 'INSERT INTO ps_edges(org, uid, edge_type, from_uid, to_uid, version, live, created_at, attr) VALUES (?,?,?,?,?,?,?,?,?)';
const NODE_COLS = 'INSERT INTO ps_nodes(org, uid, node_type, version, live, confidence, created_at, status, importance) VALUES (?,?,?,?,?,?,?,?,?)';

/** The statements every event may run, prepared once. */
function statements(db: Database) {
  return {
    node: db.prepare('SELECT uid, node_type, version, live FROM ps_nodes WHERE org = ? AND uid = ?'),
    edge: db.prepare('SELECT uid, edge_type, from_uid, to_uid, version, live FROM ps_edges WHERE org = ? AND uid = ?'),
    insertNode: db.prepare(`${NODE_COLS} ON CONFLICT(org, uid) DO NOTHING`),
    insertEdge: db.prepare(`${EDGE_COLS} ON CONFLICT(org, uid) DO NOTHING`),
    upsertNode: db.prepare(
      `${NODE_COLS} ON CONFLICT(org, uid) DO UPDATE SET node_type = excluded.node_type, version = excluded.version, live = excluded.live, confidence = excluded.confidence,
        created_at = excluded.created_at, status = excluded.status, importance = excluded.importance`,
    ),
    upsertEdge: db.prepare(
      `${EDGE_COLS}
       ON CONFLICT(org, uid) DO UPDATE SET edge_type = excluded.edge_type, from_uid = excluded.from_uid, to_uid = excluded.to_uid, version = excluded.version,
         live = excluded.live, created_at = excluded.created_at, attr = excluded.attr`,
    ),
    projectsOf: db.prepare('SELECT project_uid FROM ps_members INDEXED BY ps_members_uid WHERE org = ? AND uid = ? AND kind = ?').pluck(),
    projectsWith: db.prepare('SELECT DISTINCT project_uid FROM ps_members INDEXED BY ps_members_uid WHERE org = ? AND uid = ?').pluck(),
    isMember: db.prepare('SELECT 1 FROM ps_members WHERE org = ? AND project_uid = ? AND kind = ? AND uid = ?'),
    member: db.prepare('SELECT a, b FROM ps_members WHERE org = ? AND project_uid = ? AND kind = ? AND uid = ?'),
    upsertMember: db.prepare(
      'INSERT INTO ps_members(org, project_uid, kind, uid, a, b) VALUES (?,?,?,?,?,?) ON CONFLICT(org, project_uid, kind, uid) DO UPDATE SET a = excluded.a, b = excluded.b',
    ),
    deleteMember: db.prepare('DELETE FROM ps_members WHERE org = ? AND project_uid = ? AND kind = ? AND uid = ?'),
    memberUids: db.prepare('SELECT DISTINCT uid FROM ps_members INDEXED BY ps_members_uid WHERE org = ?').pluck(),
    partOfDocs: db.prepare("SELECT from_uid FROM ps_edges INDEXED BY ps_edges_part_of WHERE org = ? AND edge_type = 'PartOfProject'").pluck(),
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** The raw `status` prop as JSON (absent: null), so the generator reads it as the record has it. */
const statusOf = (props: Record<string, unknown>): string | null => (props.status === undefined ? null : JSON.stringify(props.status));

/** What the generator reads of an edge beyond its identity: a Contradicts edge's resolution, an extraction's selector. */
function attrOf(e: EdgeRecord): string | null {
  const p = e.props as Record<string, unknown>;
  if (e.edge_type === 'Contradicts') return p.resolution_status === undefined ? null : JSON.stringify({ resolution_status: p.resolution_status });
  if (e.edge_type === 'ExtractedFrom') return p.location === undefined ? null : JSON.stringify({ location: p.location });
  return null;
}

/**
 * Each Project's admitted sources (REFERENCE §12.1) as a projection of the graph events:
 * Docs(P) → Chunks(P) → Nodes(P) → Edges(P) and the edges admitting them, kept member by member.
 * A change re-judges only the subjects it can change (the node or edge, then what hangs from it
 * in each Project it enters or leaves), so a write costs a few indexed reads, and a brief reads
 * its Project's members instead of traversing the graph. Defined once: the embedded default
 * runs it in the projections database, each servers-mode replica in its log mirror.
 */
export class ProjectSourcesProjection implements EmbeddedProjection {
  readonly name = 'project_sources';
  readonly version = 1;
  private readonly stmts = new Map<string, Statement>();
  /** Projects whose members changed while applying the current event, with the members named (null: any) */
  private touched = new Map<string, Set<string> | null>();
  /** Per organization, what may bear on a Project (loaded once, kept as events apply) */
  private readonly orgs = new Map<string, OrgSources>();
  private readonly q: ReturnType<typeof statements>;

  constructor(private readonly db: Database) {
    db.exec(PROJECT_SOURCES_DDL);
    this.q = statements(db);
  }

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  /**
   * What the organization holds that may bear on a Project: a superset (an entry is added with
   * its row and never taken out, so a rolled-back unit of work leaves at worst one too many,
   * which only costs a lookup). Most graph events touch nothing in it and skip every judgement.
   */
  private org(org: string): OrgSources {
    let o = this.orgs.get(org);
    if (!o) {
      o = {
        members: new Set(this.q.memberUids.all(org) as string[]),
        partOfDocs: new Set(this.q.partOfDocs.all(org) as string[]),
      };
      this.orgs.set(org, o);
    }
    return o;
  }

  private touch(project: string, uid: string | null): void {
    const t = this.touched.get(project);
    if (uid === null) this.touched.set(project, null);
    else if (t === undefined) this.touched.set(project, new Set([uid]));
    else if (t !== null) t.add(uid);
  }

  apply(e: RecordedEvent): void {
    if (!isGraphEvent(e)) return;
    const org = e.metadata.org_id;
    if (this.touched.size) this.touched = new Map();
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeTombstoned':
      case 'NodeRestored':
        this.onNode(org, e.data.node, e.type === 'NodeCreated');
        break;
      case 'EdgeCreated':
      case 'EdgeUpdated':
      case 'EdgeTombstoned':
      case 'EdgeRestored':
        this.onEdge(org, e.data.edge, e.type === 'EdgeCreated');
        break;
      case 'NodeTouched': {
        // a props patch without a version: only the ranking facts matter here
        const p = e.data.props;
        if (!p || (p.status === undefined && p.importance === undefined)) break;
        const sets: string[] = [];
        const args: unknown[] = [];
        if (p.status !== undefined) sets.push('status = ?') && args.push(statusOf(p));
        if (p.importance !== undefined) sets.push('importance = ?') && args.push(num(p.importance));
        if (this.stmt(`UPDATE ps_nodes SET ${sets.join(', ')} WHERE org = ? AND uid = ?`).run(...args, org, e.data.uid).changes) this.touchMembersOf(org, e.data.uid);
        break;
      }
      case 'GraphPurged':
        this.onRemoved(org, e.data.node_uids, e.data.edge_uids);
        break;
      case 'GraphCleared': {
        const projects = this.stmt('SELECT DISTINCT project_uid FROM ps_members WHERE org = ?').pluck().all(org) as string[];
        for (const t of PROJECT_SOURCES_TABLES) this.stmt(`DELETE FROM ${t} WHERE org = ?`).run(org);
        for (const p of projects) this.touch(p, null);
        break;
      }
      default:
        break;
    }
    for (const [p, uids] of this.touched) sourcesChanged(this.db, org, p, uids && [...uids]);
  }

  reset(): void {
    for (const t of PROJECT_SOURCES_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
    this.orgs.clear();
    sourcesReset(this.db);
  }

  // ---- rows

  private node(org: string, uid: string): NodeRow | undefined {
    return this.q.node.get(org, uid) as NodeRow | undefined;
  }

  private edge(org: string, uid: string): EdgeRow | undefined {
    return this.q.edge.get(org, uid) as EdgeRow | undefined;
  }

  private edgesOut(org: string, uid: string, type?: string): EdgeRow[] {
    return type === undefined
      ? (this.stmt('SELECT uid, edge_type, from_uid, to_uid, version, live FROM ps_edges INDEXED BY ps_edges_out WHERE org = ? AND from_uid = ?').all(org, uid) as EdgeRow[])
      : (this.stmt('SELECT uid, edge_type, from_uid, to_uid, version, live FROM ps_edges INDEXED BY ps_edges_out WHERE org = ? AND from_uid = ? AND edge_type = ?').all(org, uid, type) as EdgeRow[]);
  }

  private edgesIn(org: string, uid: string, type?: string): EdgeRow[] {
    return type === undefined
      ? (this.stmt('SELECT uid, edge_type, from_uid, to_uid, version, live FROM ps_edges INDEXED BY ps_edges_in WHERE org = ? AND to_uid = ?').all(org, uid) as EdgeRow[])
      : (this.stmt('SELECT uid, edge_type, from_uid, to_uid, version, live FROM ps_edges INDEXED BY ps_edges_in WHERE org = ? AND to_uid = ? AND edge_type = ?').all(org, uid, type) as EdgeRow[]);
  }

  /** The Projects where `uid` is a member of that kind. */
  private projectsOf(org: string, kind: Kind, uid: string): string[] {
    if (!this.org(org).members.has(uid)) return [];
    return this.q.projectsOf.all(org, uid, kind) as string[];
  }

  private isMember(org: string, project: string, kind: Kind, uid: string): boolean {
    return this.org(org).members.has(uid) && this.q.isMember.get(org, project, kind, uid) !== undefined;
  }

  /** Sets or clears one membership; true when it entered or left (a changed `a` only marks the Project). */
  private set(org: string, project: string, kind: Kind, uid: string, want: boolean, a: string | null = null, b: string | null = null): boolean {
    const members = this.org(org).members;
    if (!want && !members.has(uid)) return false;
    const had = this.q.member.get(org, project, kind, uid) as { a: string | null; b: string | null } | undefined;
    if (want) {
      if (had && had.a === a && had.b === b) return false;
      this.q.upsertMember.run(org, project, kind, uid, a, b);
      members.add(uid);
      this.touch(project, uid);
      return !had;
    }
    if (!had) return false;
    this.q.deleteMember.run(org, project, kind, uid);
    this.touch(project, uid);
    return true;
  }

  /** The Projects `uid` is a member of (of any kind). */
  private projectsWith(org: string, uid: string): string[] {
    if (!this.org(org).members.has(uid)) return [];
    return this.q.projectsWith.all(org, uid) as string[];
  }

  /** A version or fact of a member changed: every Project it is a member of (of any kind) changed. */
  private touchMembersOf(org: string, uid: string): void {
    for (const p of this.projectsWith(org, uid)) this.touch(p, uid);
  }

  // ---- admission, level by level (source-traversal.ts is the same definition as a query)

  private checkDoc(org: string, p: string, d: string): void {
    const n = this.node(org, d);
    const want = !!n && n.live === 1 && n.node_type === 'Document' && this.edgesOut(org, d, 'PartOfProject').some((e) => e.live === 1 && e.to_uid === p);
    if (!this.set(org, p, 'd', d, want)) return;
    for (const e of this.edgesOut(org, d, 'PartOfProject')) if (e.to_uid === p) this.checkPartOf(org, p, e);
    for (const e of this.edgesIn(org, d, 'ChunkOf')) {
      this.checkChunk(org, p, e.from_uid);
      this.checkChunkOf(org, p, e);
    }
  }

  private checkPartOf(org: string, p: string, e: EdgeRow): void {
    this.set(org, p, 'p', e.uid, e.live === 1 && e.edge_type === 'PartOfProject' && e.to_uid === p && this.isMember(org, p, 'd', e.from_uid));
  }

  private checkChunk(org: string, p: string, c: string): void {
    const n = this.node(org, c);
    let doc: string | null = null;
    if (n && n.live === 1 && n.node_type === 'Chunk')
      // the chunk's document: the least uid among the admitted documents it is a ChunkOf
      for (const e of this.edgesOut(org, c, 'ChunkOf')) if (e.live === 1 && (doc === null || e.to_uid < doc) && this.isMember(org, p, 'd', e.to_uid)) doc = e.to_uid;
    if (!this.set(org, p, 'c', c, doc !== null, doc)) return;
    for (const e of this.edgesOut(org, c, 'ChunkOf')) this.checkChunkOf(org, p, e);
    for (const e of this.edgesIn(org, c, 'ExtractedFrom')) {
      this.checkNode(org, p, e.from_uid);
      this.checkExtraction(org, p, e);
    }
  }

  private checkChunkOf(org: string, p: string, e: EdgeRow): void {
    this.set(org, p, 'o', e.uid, e.live === 1 && e.edge_type === 'ChunkOf' && this.isMember(org, p, 'c', e.from_uid) && this.isMember(org, p, 'd', e.to_uid), e.from_uid, e.to_uid);
  }

  private checkNode(org: string, p: string, u: string): void {
    const n = this.node(org, u);
    const want = !!n && n.live === 1 && !NOT_SOURCES.has(n.node_type) && this.edgesOut(org, u, 'ExtractedFrom').some((e) => e.live === 1 && this.isMember(org, p, 'c', e.to_uid));
    if (!this.set(org, p, 'n', u, want)) return;
    for (const e of this.edgesOut(org, u)) {
      if (e.edge_type === 'ExtractedFrom') this.checkExtraction(org, p, e);
      this.checkAmong(org, p, e);
    }
    for (const e of this.edgesIn(org, u)) this.checkAmong(org, p, e);
  }

  private checkExtraction(org: string, p: string, e: EdgeRow): void {
    this.set(org, p, 'x', e.uid, e.live === 1 && e.edge_type === 'ExtractedFrom' && this.isMember(org, p, 'n', e.from_uid) && this.isMember(org, p, 'c', e.to_uid), e.from_uid, e.to_uid);
  }

  private checkAmong(org: string, p: string, e: EdgeRow): void {
    this.set(org, p, 'e', e.uid, e.live === 1 && this.isMember(org, p, 'n', e.from_uid) && this.isMember(org, p, 'n', e.to_uid), e.from_uid, e.to_uid);
  }

  // ---- events

  /** Whether nothing in the organization bears on a Project yet: no member, no PartOfProject edge. */
  private projectFree(org: string): boolean {
    const o = this.org(org);
    return o.members.size === 0 && o.partOfDocs.size === 0;
  }

  private onNode(org: string, n: NodeRecord, created: boolean): void {
    const props = n.props as Record<string, unknown>;
    const live = n.tombstone_at === null ? 1 : 0;
    // a new node: no edge touches it yet, so it is in no Project
    if (created && this.q.insertNode.run(org, n.uid, n.node_type, n.version, live, n.confidence, n.created_at, statusOf(props), num(props.importance)).changes === 1) return;
    this.q.upsertNode.run(org, n.uid, n.node_type, n.version, live, n.confidence, n.created_at, statusOf(props), num(props.importance));
    if (this.projectFree(org)) return;
    this.touchMembersOf(org, n.uid);
    this.recheckNode(org, n.uid, n.node_type);
  }

  /**
   * Every Project the node is or may be admitted to, judged again at each level. Only a
   * Document with a PartOfProject edge can enter Docs(P), only a Chunk Chunks(P), only a source
   * type Nodes(P); any other level it can only leave, so only its memberships are read there.
   */
  private recheckNode(org: string, uid: string, nodeType: string): void {
    const docs = new Set(this.projectsOf(org, 'd', uid));
    if (this.org(org).partOfDocs.has(uid)) for (const e of this.edgesOut(org, uid, 'PartOfProject')) docs.add(e.to_uid);
    for (const p of docs) this.checkDoc(org, p, uid);
    const chunks = new Set(this.projectsOf(org, 'c', uid));
    if (nodeType === 'Chunk') for (const e of this.edgesOut(org, uid, 'ChunkOf')) for (const p of this.projectsOf(org, 'd', e.to_uid)) chunks.add(p);
    for (const p of chunks) this.checkChunk(org, p, uid);
    const nodes = new Set(this.projectsOf(org, 'n', uid));
    if (!NOT_SOURCES.has(nodeType)) for (const e of this.edgesOut(org, uid, 'ExtractedFrom')) for (const p of this.projectsOf(org, 'c', e.to_uid)) nodes.add(p);
    for (const p of nodes) this.checkNode(org, p, uid);
  }

  private onEdge(org: string, ed: EdgeRecord, created: boolean): void {
    const live = ed.tombstone_at === null ? 1 : 0;
    const cols = [org, ed.uid, ed.edge_type, ed.from_uid, ed.to_uid, ed.version, live, ed.created_at, attrOf(ed)];
    if (ed.edge_type === 'PartOfProject') this.org(org).partOfDocs.add(ed.from_uid);
    if (this.projectFree(org)) {
      // nothing to judge: the row is all an organization without Projects needs
      this.q.upsertEdge.run(...cols);
      return;
    }
    const row = { uid: ed.uid, edge_type: ed.edge_type, from_uid: ed.from_uid, to_uid: ed.to_uid, version: ed.version, live };
    // a new edge between non-members that admits nothing (most edges): its row is all there is to write
    if (created && !ADMITTING.has(ed.edge_type) && !this.org(org).members.has(ed.from_uid) && this.q.insertEdge.run(...cols).changes === 1) return;
    const prev = this.edge(org, ed.uid);
    this.q.upsertEdge.run(...cols);
    if (prev) this.touchMembersOf(org, ed.uid);
    this.judgeEdge(org, row, prev);
  }

  /** An edge's own memberships and those of the subjects it admits, before and after the change. */
  private judgeEdge(org: string, e: EdgeRow, prev: EdgeRow | undefined): void {
    for (const x of prev && (prev.from_uid !== e.from_uid || prev.to_uid !== e.to_uid || prev.edge_type !== e.edge_type) ? [prev, e] : [e]) {
      if (x.edge_type === 'PartOfProject') this.checkDoc(org, x.to_uid, x.from_uid);
      if (x.edge_type === 'ChunkOf') for (const p of new Set([...this.projectsOf(org, 'd', x.to_uid), ...this.projectsOf(org, 'c', x.from_uid)])) this.checkChunk(org, p, x.from_uid);
      if (x.edge_type === 'ExtractedFrom') for (const p of new Set([...this.projectsOf(org, 'c', x.to_uid), ...this.projectsOf(org, 'n', x.from_uid)])) this.checkNode(org, p, x.from_uid);
    }
    // the edge itself, wherever it is or may be a member
    const projects = new Set(this.projectsWith(org, e.uid));
    const from = this.projectsOf(org, 'n', e.from_uid);
    if (from.length) {
      const to = new Set(this.projectsOf(org, 'n', e.to_uid));
      for (const p of from) if (to.has(p)) projects.add(p);
    }
    if (e.edge_type === 'PartOfProject') projects.add(e.to_uid);
    if (e.edge_type === 'ChunkOf') for (const p of this.projectsOf(org, 'c', e.from_uid)) projects.add(p);
    if (e.edge_type === 'ExtractedFrom') for (const p of this.projectsOf(org, 'n', e.from_uid)) projects.add(p);
    const retyped = !!prev && prev.edge_type !== e.edge_type;
    for (const p of projects) {
      this.checkAmong(org, p, e);
      if (e.edge_type === 'PartOfProject') this.checkPartOf(org, p, e);
      if (e.edge_type === 'ChunkOf') this.checkChunkOf(org, p, e);
      if (e.edge_type === 'ExtractedFrom') this.checkExtraction(org, p, e);
      if (retyped) for (const k of ['p', 'o', 'x'] as const) if (k !== { PartOfProject: 'p', ChunkOf: 'o', ExtractedFrom: 'x' }[e.edge_type]) this.set(org, p, k, e.uid, false);
    }
  }

  /**
   * A purge or a clear erases its subjects from the log, so a rebuild never sees them: they
   * leave every Project as if they had never been, and what they admitted is judged again.
   */
  private onRemoved(org: string, nodeUids: readonly string[], edgeUids: readonly string[]): void {
    for (const uid of edgeUids) {
      const e = this.edge(org, uid);
      if (!e) continue;
      this.stmt('UPDATE ps_edges SET live = 0 WHERE org = ? AND uid = ?').run(org, uid);
      this.judgeEdge(org, { ...e, live: 0 }, e);
      this.stmt('DELETE FROM ps_edges WHERE org = ? AND uid = ?').run(org, uid);
    }
    for (const uid of nodeUids) {
      const n = this.node(org, uid);
      if (!n) continue;
      this.stmt('UPDATE ps_nodes SET live = 0 WHERE org = ? AND uid = ?').run(org, uid);
      this.recheckNode(org, uid, n.node_type);
      this.stmt('DELETE FROM ps_nodes WHERE org = ? AND uid = ?').run(org, uid);
    }
  }
}
