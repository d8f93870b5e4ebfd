import type { Database, Statement } from 'better-sqlite3';
import { ACKNOWLEDGING_TASK_STATUSES, Acknowledgement, ExceptionKind } from '@strata/domain/knowledge-health';
import { prepared } from '../sqlite/prepared';

export interface KhNodeRow {
  org: string;
  uid: string;
  node_type: string;
  label: string;
  live: number;
  version: number;
  created_at: number;
  created_by: string | null;
  last_version_at: number;
  tombstone_at: number | null;
  status: string | null;
  status_since: number | null;
  update_times: string;
  attrs: string | null;
  /** a Claim's support as last judged (CLAIM_SUPPORT), null for other nodes */
  support: number | null;
}

export interface KhEdgeRow {
  org: string;
  uid: string;
  edge_type: string;
  from_uid: string;
  to_uid: string;
  live: number;
  version: number;
  created_at: number;
  attrs: string | null;
}

/** A time-based condition waiting for its threshold (§14.2): evaluated at read time. */
export interface Arm {
  /** when the condition's clock started (requested_at, or the moment a Document became pending) */
  base: number;
  /** seconds after `base` the exception is due (approval_overdue reads the setting at read time instead) */
  after_s: number | null;
  detail: Record<string, unknown>;
  ack: Acknowledgement | null;
}

export interface KhExceptionRow {
  org: string;
  id: string;
  kind: ExceptionKind;
  subject_uid: string;
  subject_type: 'node' | 'edge' | 'schedule';
  /** an edge's ends; for a schedule, from_uid is its Project */
  from_uid: string | null;
  to_uid: string | null;
  state: string | null;
  arm: string | null;
  /** where it is read from (a status, or `timed`), its severity rank and first detection: the list's order */
  lane?: string | null;
  sev?: number | null;
  first_at?: number | null;
  resolved_at?: number | null;
}

/** Rows and lists read (or written) during one unit of work, keyed by uid (one organization). */
export interface UnitMemo {
  nodes: Map<string, KhNodeRow | undefined>;
  edges: Map<string, KhEdgeRow | undefined>;
  /** a node's edges of one type in one direction: by uid, then by edge type */
  ins: Map<string, Map<string, KhEdgeRow[]>>;
  outs: Map<string, Map<string, KhEdgeRow[]>>;
  rows: Map<string, KhExceptionRow[]>;
  /** nodes created in this unit: no edge touched them before it */
  bare: Set<string>;
}

export const emptyMemo = (): UnitMemo => ({ nodes: new Map(), edges: new Map(), ins: new Map(), outs: new Map(), rows: new Map(), bare: new Set() });

/**
 * The memo keeps a node's edges per type: reading all of a node's edges would read a Concept
 * cited by a thousand chunks in full once per chunk, which grows quadratically over a document.
 * Two map levels rather than a joined key: a graph event asks for a dozen lists, and a joined
 * key is a new string to build and hash each time.
 */
export function typedList(lists: Map<string, Map<string, KhEdgeRow[]>>, uid: string, type: string): KhEdgeRow[] | undefined {
  return lists.get(uid)?.get(type);
}

export function setTypedList(lists: Map<string, Map<string, KhEdgeRow[]>>, uid: string, type: string, list: KhEdgeRow[]): void {
  let byType = lists.get(uid);
  if (!byType) lists.set(uid, (byType = new Map()));
  byType.set(type, list);
}

/** What a node created in this unit has in every list: nothing (shared, never written to). */
const NONE: readonly KhEdgeRow[] = Object.freeze([]) as readonly KhEdgeRow[];

/** Reads of the Knowledge Health tables shared by the projection and the read model. */
export class KhTables {
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  protected stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  /**
   * Reads kept while the projection applies one unit of work's events (see
   * `KnowledgeHealthProjection.enter`): the node and edge rows as last written, each node's
   * edges in each direction, and the exception rows of each subject. The projection is the only
   * writer of these tables and keeps every list it holds current as it writes, so a `/batch`
   * reads each row once instead of once per event. Null outside the projection (the read model
   * reads the database each time).
   */
  protected memo: UnitMemo | null = null;

  /** A node just created, which no edge can touch yet: its lists are known empty. */
  protected edgeless(uid: string): void {
    const m = this.memo;
    if (!m) return;
    m.bare.add(uid);
    m.rows.set(uid, []);
  }

  /** A node created in this unit that no edge has touched yet (every list of it is empty). */
  protected untouched(uid: string): boolean {
    const m = this.memo;
    return !!m && m.bare.has(uid) && !m.ins.has(uid) && !m.outs.has(uid);
  }

  node(org: string, uid: string): KhNodeRow | undefined {
    const m = this.memo;
    if (m && m.nodes.has(uid)) return m.nodes.get(uid);
    const n = this.stmt('SELECT * FROM kh_nodes WHERE org = ? AND uid = ?').get(org, uid) as KhNodeRow | undefined;
    m?.nodes.set(uid, n);
    return n;
  }
  /** The exception rows about a subject (read once per unit of work; writes keep the memo current). */
  rowsOf(org: string, subject: string): KhExceptionRow[] {
    const m = this.memo;
    let rows = m?.rows.get(subject);
    if (!rows) {
      rows = this.stmt('SELECT * FROM kh_exceptions INDEXED BY kh_exceptions_subject_id WHERE org = ? AND subject_uid = ?').all(org, subject) as KhExceptionRow[];
      m?.rows.set(subject, rows);
    }
    return rows;
  }

  /** After a write of a row: the memo holds it as written (or drops it). */
  protected remember(row: KhExceptionRow, gone = false): void {
    const list = this.memo?.rows.get(row.subject_uid);
    if (!list) return;
    const i = list.findIndex((r) => r.id === row.id);
    if (i >= 0) list.splice(i, 1);
    if (!gone) list.push(row);
  }

  // SQLite plans these lookups as a walk of the organization's whole primary key (the
  // WITHOUT ROWID key is covering, and no statistics say the org prefix is wide): each would
  // read every row of the organization, once per graph event. The indexes are named.
  edge(org: string, uid: string): KhEdgeRow | undefined {
    const m = this.memo;
    if (m && m.edges.has(uid)) return m.edges.get(uid);
    const e = this.stmt('SELECT * FROM kh_edges WHERE org = ? AND uid = ?').get(org, uid) as KhEdgeRow | undefined;
    m?.edges.set(uid, e);
    return e;
  }
  /**
   * A node's edges of one type. Inside the projection the list is the memo's own: callers only
   * read it, and nothing writes an edge while a list is being read (evaluation writes exceptions).
   */
  edgesIn(org: string, uid: string, type: string): readonly KhEdgeRow[] {
    const m = this.memo;
    if (!m) return this.stmt('SELECT * FROM kh_edges INDEXED BY kh_edges_in WHERE org = ? AND to_uid = ? AND edge_type = ?').all(org, uid, type) as KhEdgeRow[];
    const list = typedList(m.ins, uid, type);
    if (list) return list;
    if (m.bare.has(uid)) return NONE;
    const read = this.stmt('SELECT * FROM kh_edges INDEXED BY kh_edges_in WHERE org = ? AND to_uid = ? AND edge_type = ?').all(org, uid, type) as KhEdgeRow[];
    setTypedList(m.ins, uid, type, read);
    return read;
  }
  edgesOut(org: string, uid: string, type: string): readonly KhEdgeRow[] {
    const m = this.memo;
    if (!m) return this.stmt('SELECT * FROM kh_edges INDEXED BY kh_edges_out WHERE org = ? AND from_uid = ? AND edge_type = ?').all(org, uid, type) as KhEdgeRow[];
    const list = typedList(m.outs, uid, type);
    if (list) return list;
    if (m.bare.has(uid)) return NONE;
    const read = this.stmt('SELECT * FROM kh_edges INDEXED BY kh_edges_out WHERE org = ? AND from_uid = ? AND edge_type = ?').all(org, uid, type) as KhEdgeRow[];
    setTypedList(m.outs, uid, type, read);
    return read;
  }

  /** The live pending or in-progress Tasks with a live Targets edge to any of `uids` (§14.2). */
  acknowledgement(org: string, uids: readonly string[]): Acknowledgement | null {
    // made only for a subject some Task acknowledges (most have no Targets edge at all)
    let tasks: Map<string, { uid: string; created_at: number; by: string | null; since: number }> | null = null;
    for (const uid of uids)
      for (const e of this.edgesIn(org, uid, 'Targets')) {
        if (!e.live) continue;
        const t = this.node(org, e.from_uid);
        if (!t || !t.live || t.node_type !== 'Task' || !ACKNOWLEDGING_TASK_STATUSES.has(t.status ?? 'pending')) continue;
        const since = Math.max(e.created_at, t.status_since ?? t.created_at);
        tasks ??= new Map();
        const had = tasks.get(t.uid);
        if (!had || since < had.since) tasks.set(t.uid, { uid: t.uid, created_at: t.created_at, by: t.created_by, since });
      }
    if (!tasks) return null;
    const list = [...tasks.values()].sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : 1));
    return { task_uids: list.map((t) => t.uid), by: list[0].by, since: Math.min(...list.map((t) => t.since)) };
  }
}

/** An armed condition's detail once due: an overdue Approval names its request and deadline (Unix seconds here, ISO on the wire). */
export function armDetail(kind: ExceptionKind, arm: Arm, due: number): Record<string, unknown> {
  return kind === 'approval_overdue' ? { requested_at: arm.base, deadline_at: due } : arm.detail;
}
