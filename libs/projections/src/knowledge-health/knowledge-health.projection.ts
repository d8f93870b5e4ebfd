import type { Database } from 'better-sqlite3';
import { RecordedEvent, isBriefEvent, isGovernanceEvent, isGraphEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { DEFAULT_GOVERNANCE_SETTINGS } from '@strata/domain/governance';
import { DEPENDENCY_EDGE_TYPES, PremiseFacts, stalePremises } from '@strata/domain/retrieval';
import { documentOfChunkReason } from '@strata/domain/ingestion';
import {
  BRIEF_STALE_AFTER_S,
  DOCUMENT_STUCK_AFTER_S,
  EVIDENCE_NODE_TYPES,
  ExceptionKind,
  ExceptionState,
  Observation,
  SCHEDULE_FAILING_RUNS,
  SEVERITY_OF,
  SOURCE_NODE_TYPES,
  exceptionId,
  nextExceptionState,
  severityRank,
} from '@strata/domain/knowledge-health';
import { EmbeddedProjection } from '../projection';
import { KhTables, UnitMemo, armDetail, emptyMemo, setTypedList, typedList } from './kh-tables';
import { CLAIM_SUPPORT, DAY_S, KNOWLEDGE_HEALTH_DDL, KNOWLEDGE_HEALTH_TABLES, TIMED_LANE, dropOutdatedKnowledgeHealthTables, migrateKnowledgeHealthSchema } from './knowledge-health-schema';

export type { Arm, KhEdgeRow, KhExceptionRow, KhNodeRow } from './kh-tables';
import type { Arm, KhEdgeRow, KhExceptionRow, KhNodeRow } from './kh-tables';

const EDGE_KINDS: Partial<Record<string, ExceptionKind>> = { Contradicts: 'contradiction_unresolved', PossibleDuplicate: 'duplicate_pending' };
const DEPENDENCY = new Set(DEPENDENCY_EDGE_TYPES);
const EDGE_KIND_TYPES = Object.keys(EDGE_KINDS);
const NODE_COLUMNS = ['org', 'uid', 'node_type', 'label', 'live', 'version', 'created_at', 'created_by', 'last_version_at', 'tombstone_at', 'status', 'status_since', 'update_times', 'attrs'];
const insertInto = (columns: string[]) => `INSERT INTO kh_nodes(${columns.join(', ')}) VALUES (${columns.map(() => '?').join(',')})`;
const INSERT_NODE = insertInto(NODE_COLUMNS);
/**
 * A created node's row, with its support: a live Claim starts as `unsupported`, the judgement
 * its unit's flush gives almost every new Claim, so that judgement finds nothing to rewrite
 * (on `/batch`, a thousand updates of `kh_nodes` and its support index fewer).
 */
const INSERT_NEW_NODE = `${insertInto([...NODE_COLUMNS, 'support', 'born_at'])} ON CONFLICT(org, uid) DO NOTHING`;
const UPSERT_EDGE = `INSERT INTO kh_edges(org, uid, edge_type, from_uid, to_uid, live, version, created_at, attrs) VALUES (?,?,?,?,?,?,?,?,?)
  ON CONFLICT(org, uid) DO UPDATE SET edge_type = excluded.edge_type, from_uid = excluded.from_uid, to_uid = excluded.to_uid, live = excluded.live, version = excluded.version, attrs = excluded.attrs`;
/** A created edge's row, with the instant it was born (a purge takes its creation off the counts by it). */
const INSERT_NEW_EDGE = 'INSERT INTO kh_edges(org, uid, edge_type, from_uid, to_uid, live, version, created_at, attrs, born_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(org, uid) DO NOTHING';

/** Rows a unit of work may keep in memory before the memo starts over (an import can be one huge unit). */
const MEMO_MAX_ROWS = 200_000;

/** SQLite's order of a node's edges in `kh_edges_in` / `kh_edges_out`: type, then uid (ASCII, so code-unit order is byte order). */
const edgeOrder = (a: KhEdgeRow, b: KhEdgeRow): number => (a.edge_type !== b.edge_type ? (a.edge_type < b.edge_type ? -1 : 1) : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

/** Keeps a memoised list current; a node created in this unit starts its list with this edge. */
function placeIn(lists: Map<string, Map<string, KhEdgeRow[]>>, uid: string, type: string, bare: boolean, row: KhEdgeRow): void {
  let list = typedList(lists, uid, type);
  if (!list && bare) setTypedList(lists, uid, type, (list = []));
  if (list) placeEdge(list, row);
}

/** Puts `row` in a node's edge list in index order, replacing the same edge. */
function placeEdge(list: KhEdgeRow[], row: KhEdgeRow): void {
  const i = list.findIndex((x) => x.uid === row.uid);
  if (i >= 0) list.splice(i, 1);
  let at = list.length;
  while (at > 0 && edgeOrder(list[at - 1], row) > 0) at--;
  list.splice(at, 0, row);
}

/** `node:<type>` for each type seen: one string per type, not one per node counted. */
const TYPE_KEYS = new Map<string, string>();
function typeKey(type: string): string {
  let k = TYPE_KEYS.get(type);
  if (k === undefined) TYPE_KEYS.set(type, (k = `node:${type}`));
  return k;
}

const NO_KEYS: readonly string[] = Object.freeze([]);

/** The counters a node row stands for: its live type, and a live Claim's judged support. */
function nodeKeys(n: Pick<KhNodeRow, 'live' | 'node_type' | 'support'> | undefined): readonly string[] {
  if (!n || n.live !== 1) return NO_KEYS;
  if (n.node_type === 'Claim' && n.support === CLAIM_SUPPORT.evidenced) return [typeKey(n.node_type), 'claim:evidenced'];
  if (n.node_type === 'Claim' && n.support === CLAIM_SUPPORT.sourced) return [typeKey(n.node_type), 'claim:sourced'];
  return [typeKey(n.node_type)];
}

/** Each kind's severity rank, looked up once (every exception write needs it). */
const SEV_RANK = Object.fromEntries(Object.entries(SEVERITY_OF).map(([k, s]) => [k, severityRank(s)])) as Record<ExceptionKind, number>;

/** Where an exception row is read from, and what the list orders and counts it by. */
function laneOf(kind: ExceptionKind, subjectType: string, state: ExceptionState | null, arm: string | null) {
  const timed = arm !== null || subjectType === 'schedule' || kind === 'brief_stale';
  return {
    lane: timed || !state ? TIMED_LANE : state.status,
    sev: SEV_RANK[kind],
    first_at: state?.first_detected_at ?? null,
    resolved_at: state?.resolved_at ?? null,
  };
}

const principalOf = (e: RecordedEvent): string => (e.metadata.principal.kind === 'system' ? 'system' : `${e.metadata.principal.kind}:${e.metadata.principal.id}`);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A Chunk's origin: the Document its creation names (its first event's reason), and whether a
 * purge has since removed that Document. The ChunkOf edge goes with the purge, and a rebuild
 * never sees it; the origin stays, so both find the chunk orphaned from the purge on.
 */
interface ChunkOrigin {
  document_uid: string;
  purged?: true;
}
const chunkOrigin = (attrs: string | null): ChunkOrigin | null => (attrs ? (JSON.parse(attrs) as ChunkOrigin) : null);

/** The status a condition reads, by node type: processing for Documents and Chunks, lifecycle for Approvals and Tasks. */
function statusOf(n: NodeRecord): string | null {
  switch (n.node_type) {
    case 'Document':
    case 'Chunk':
      return str(n.props.processing_status);
    case 'Approval':
    case 'Task':
      // a Task or Approval created without a status is pending
      return str(n.props.status) ?? 'pending';
    default:
      return null;
  }
}

/**
 * Knowledge Health exceptions (REFERENCE §14.2) as a projection of the log: each graph event
 * re-evaluates the conditions of the subjects it can change, and the status machine
 * (`nextExceptionState`) moves at the event's `occurred_at`. No clock and no event of its own:
 * a rebuild gives the same ids, states and times. Time-based kinds keep an `arm` (the clock's
 * start) that the read evaluates against its `now`; an episode that ended before any read saw it
 * is committed here when the condition ends, so reopen counts stay right.
 */
export class KnowledgeHealthProjection extends KhTables implements EmbeddedProjection {
  readonly name = 'knowledge_health';
  /** 3: Claims keep their judged support (`kh_nodes.support`); 4: live and per-day counters, exception lanes; 5: exceptions in a row table; 6: their rows found by subject only (no index by id); 7: creations counted from the rows (`born_at`), not activity rows; 8: creations as one row per unit of work (`kh_created`), no index by `born_at`, and an exception's first opening read from its row (`first_at`), not a transition row; 9: a Chunk's origin Document in its row (`attrs`) */
  readonly version = 9;

  /** The unit of work the memo belongs to, the last position applied, and whether an apply is under way. */
  private unit: string | null = null;
  private unitOrg = '';
  private unitAt = 0;
  private unitRequest = '';
  private lastPosition = -1;
  private applying = false;
  /** Subjects whose conditions this unit's events may have changed, evaluated by `flush`. */
  private readonly dirtyNodes = new Set<string>();
  private readonly dirtyEdges = new Set<string>();
  /**
   * Claims created in this unit with the provisional `unsupported`: one that is no longer live
   * when the unit is judged goes back to no support, as a row that was never judged live has.
   */
  private readonly provisional = new Set<string>();
  /** Counter changes of the unit of work (by org, key), written with its last evaluation. */
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly dayCounts = new Map<string, Map<string, number>>();
  /** The uids the unit of work created, in order: one `kh_created` row each, written with its counters. */
  private readonly created = { nodes_created: [] as string[], edges_created: [] as string[] };

  constructor(db: Database) {
    super(db);
    dropOutdatedKnowledgeHealthTables(db);
    db.exec(KNOWLEDGE_HEALTH_DDL);
    migrateKnowledgeHealthSchema(db);
  }

  apply(e: RecordedEvent): void {
    this.enter(e);
    this.applying = true;
    this.applyEvent(e);
    this.applying = false;
  }

  /**
   * The memo lives for one unit of work: consecutive events of one request at one instant, in
   * increasing log positions. A position that does not move forward means what was applied
   * before was rolled back (the log rolled back too and reuses its positions, or the runner
   * replays from its checkpoint), and an apply (or flush) that never finished may have left
   * rows its transaction then dropped: either starts the memo over and forgets what was left
   * to evaluate. Within a unit nothing else writes these tables (the unit of work holds the
   * write lock), so the memo stays true. A unit that ends evaluates its subjects first.
   */
  private enter(e: RecordedEvent): void {
    const key = `${e.metadata.org_id}\u0000${e.metadata.request_id}\u0000${e.metadata.occurred_at}`;
    const m = this.memo;
    const rolledBack = this.applying || e.position <= this.lastPosition;
    if (rolledBack) {
      this.dirtyNodes.clear();
      this.dirtyEdges.clear();
      this.provisional.clear();
      this.counts.clear();
      this.dayCounts.clear();
      this.created.nodes_created.length = 0;
      this.created.edges_created.length = 0;
    } else if (key !== this.unit || (m && memoSize(m) > MEMO_MAX_ROWS)) this.flush();
    if (!m || rolledBack || key !== this.unit || memoSize(m) > MEMO_MAX_ROWS) this.memo = emptyMemo();
    this.unit = key;
    this.unitOrg = e.metadata.org_id;
    this.unitAt = e.metadata.occurred_at;
    this.unitRequest = e.metadata.request_id;
    this.lastPosition = e.position;
  }

  /**
   * Evaluates, once, every subject the unit of work's events may have changed: a `/batch` of a
   * thousand Claims and the Supports edges between them judges each Claim once, at the end,
   * instead of opening its exception at its creation and taking it back at its edge. Every
   * event of a unit has the same instant, so the outcome is the one the last event would have
   * given. The runner calls this before each commit (and a new unit calls it for the last one).
   */
  flush(): void {
    this.evaluate();
    this.writeCreated();
    this.writeCounts();
  }

  /** The unit's creations: a row for its nodes and one for its edges (all at the unit's instant). */
  private writeCreated(): void {
    for (const what of ['nodes_created', 'edges_created'] as const) {
      const uids = this.created[what];
      if (!uids.length) continue;
      // the unit's second part (its evaluation was split) goes on after its first: two JSON arrays spliced
      this.stmt(
        `INSERT INTO kh_created(org, at, what, request, n, uids) VALUES (?,?,?,?,?,?)
         ON CONFLICT(org, at, what, request) DO UPDATE SET n = n + excluded.n, uids = substr(uids, 1, length(uids) - 1) || ',' || substr(excluded.uids, 2)`,
      ).run(this.unitOrg, this.unitAt, what, this.unitRequest, uids.length, JSON.stringify(uids));
      this.countDay(this.unitOrg, what, this.unitAt, uids.length);
      uids.length = 0;
    }
  }

  /** Takes purged uids out of the creation rows of their instant (a row left empty goes). */
  private uncreate(org: string, what: string, at: number, uids: ReadonlySet<string>): void {
    for (const r of this.stmt('SELECT request, uids FROM kh_created WHERE org = ? AND at = ? AND what = ?').all(org, at, what) as { request: string; uids: string }[]) {
      const list = JSON.parse(r.uids) as string[];
      const kept = list.filter((u) => !uids.has(u));
      if (kept.length === list.length) continue;
      if (kept.length) this.stmt('UPDATE kh_created SET n = ?, uids = ? WHERE org = ? AND at = ? AND what = ? AND request = ?').run(kept.length, JSON.stringify(kept), org, at, what, r.request);
      else this.stmt('DELETE FROM kh_created WHERE org = ? AND at = ? AND what = ? AND request = ?').run(org, at, what, r.request);
    }
  }

  private evaluate(): void {
    if (!this.dirtyNodes.size && !this.dirtyEdges.size) return;
    const nodes = [...this.dirtyNodes];
    const edges = [...this.dirtyEdges];
    this.dirtyNodes.clear();
    this.dirtyEdges.clear();
    const org = this.unitOrg;
    const at = this.unitAt;
    const was = this.applying;
    this.applying = true;
    for (const uid of nodes) this.judgeNode(org, uid, at);
    for (const uid of edges) this.judgeEdge(org, uid, at);
    // every provisional Claim was among the nodes just judged
    this.provisional.clear();
    this.applying = was;
  }

  private applyEvent(e: RecordedEvent): void {
    if (isGovernanceEvent(e)) {
      if (e.type === 'GovernanceSettingsChanged' && e.data.changes.approval_deadline_hours)
        this.stmt('INSERT INTO kh_settings(org, approval_deadline_hours) VALUES (?,?) ON CONFLICT(org) DO UPDATE SET approval_deadline_hours = excluded.approval_deadline_hours').run(
          e.data.org_id,
          e.data.changes.approval_deadline_hours.to,
        );
      return;
    }
    if (isBriefEvent(e)) {
      switch (e.type) {
        case 'BriefVersionCreated':
          return this.onBriefVersion(e.data.org_id, e.data.project_uid, e.data.version, e.data.created_at, e.data.source_fingerprint);
        case 'BriefingScheduleCreated':
          this.stmt("INSERT INTO kh_schedules(org, id, project_uid, channel, recent) VALUES (?,?,?,?,'[]') ON CONFLICT(org, id) DO NOTHING").run(
            e.data.org_id,
            e.data.schedule_id,
            e.data.project_uid,
            e.data.channel,
          );
          return;
        case 'BriefingRunFinished':
          return this.onRunFinished(e.data.org_id, e.data.schedule_id, e.data.status, e.data.error, e.data.at);
        case 'BriefingScheduleDeleted':
          return this.onScheduleDeleted(e.data.org_id, e.data.schedule_id, e.data.at);
        default:
          return;
      }
    }
    if (!isGraphEvent(e)) return;
    const org = e.metadata.org_id;
    const at = e.metadata.occurred_at;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeTombstoned':
      case 'NodeRestored':
        return this.onNode(org, e.data.node, e.type, at, principalOf(e), e.position, e.data.reason);
      case 'EdgeCreated':
      case 'EdgeUpdated':
      case 'EdgeTombstoned':
      case 'EdgeRestored':
        return this.onEdge(org, e.data.edge, e.type, at, e.position);
      case 'NodeTouched': {
        // a counter or props patch without a version: only a processing status can matter here
        const status = e.data.props ? str(e.data.props.processing_status) : null;
        if (status === null) return;
        const n = this.node(org, e.data.uid);
        if (!n || (n.node_type !== 'Chunk' && n.node_type !== 'Document') || n.status === status) return;
        this.stmt('UPDATE kh_nodes SET status = ?, status_since = ? WHERE org = ? AND uid = ?').run(status, at, org, n.uid);
        this.memo?.nodes.set(n.uid, { ...n, status, status_since: at });
        if (n.node_type === 'Chunk' && (status === 'completed' || status === 'failed')) this.activity(org, at, `chunks_${status}`, n.uid, null, null, e.position);
        return this.afterNodeChange(org, n.uid, at);
      }
      case 'GraphPurged': {
        this.flush();
        const edges = this.edgeRows(org, e.data.edge_uids);
        const chunks = this.chunksLosingDocuments(org, e.data.node_uids, edges);
        this.onRemoved(org, e.data.node_uids, e.data.edge_uids);
        // rows went without passing through the memo's lists
        this.memo = emptyMemo();
        this.reoriginChunks(org, chunks, new Set(e.data.node_uids));
        // what the purged edges supported, sourced, premised or acknowledged is judged again without them
        for (const ed of edges) this.afterEdgeChange(org, ed, at);
        return;
      }
      case 'GraphCleared': {
        this.flush();
        const nodes = (this.stmt('SELECT uid FROM kh_nodes WHERE org = ?').all(org) as { uid: string }[]).map((r) => r.uid);
        const edges = (this.stmt('SELECT uid FROM kh_edges WHERE org = ?').all(org) as { uid: string }[]).map((r) => r.uid);
        this.onRemoved(org, nodes, edges);
        this.memo = emptyMemo();
        return;
      }
      default:
        return;
    }
  }

  private activity(org: string, at: number, what: string, uid: string, from: string | null, to: string | null, position: number): void {
    this.stmt('INSERT INTO kh_activity(org, at, what, uid, from_uid, to_uid, position) VALUES (?,?,?,?,?,?,?)').run(org, at, what, uid, from, to, position);
    this.countDay(org, what, at, 1);
  }

  private transition(org: string, at: number, id: string, subject: string, what: 'opened' | 'resolved'): void {
    this.stmt('INSERT INTO kh_transitions(org, at, id, what, subject_uid) VALUES (?,?,?,?,?)').run(org, at, id, what, subject);
    this.countDay(org, `exceptions_${what}`, at, 1);
  }

  /**
   * An exception's first opening, at its first detection: no `kh_transitions` row, the
   * exception's own row (`first_at`) records it; only the day counter is kept beside it.
   */
  private firstOpening(org: string, at: number): void {
    this.countDay(org, 'exceptions_opened', at, 1);
  }

  /** Removes an exception's transitions (its first opening, at `firstAt`, with its row), and takes them off the day counters. */
  private dropTransitions(org: string, id: string, subject: string, firstAt: number | null): void {
    if (firstAt !== null) this.countDay(org, 'exceptions_opened', firstAt, -1);
    for (const t of this.stmt('SELECT at, what FROM kh_transitions INDEXED BY kh_transitions_subject WHERE org = ? AND subject_uid = ? AND id = ?').all(org, subject, id) as { at: number; what: string }[])
      this.countDay(org, `exceptions_${t.what}`, t.at, -1);
    this.stmt('DELETE FROM kh_transitions INDEXED BY kh_transitions_subject WHERE org = ? AND subject_uid = ? AND id = ?').run(org, subject, id);
  }

  private bump(maps: Map<string, Map<string, number>>, org: string, key: string, by: number): void {
    let m = maps.get(org);
    if (!m) maps.set(org, (m = new Map()));
    m.set(key, (m.get(key) ?? 0) + by);
  }

  private countDay(org: string, what: string, at: number, by: number): void {
    // a unit counts mostly one (what, day) over and over: its key is built once
    const day = Math.floor(at / DAY_S);
    const last = this.lastDayKey;
    if (last.what !== what || last.day !== day) this.lastDayKey = { what, day, key: `${what}\u0000${day}` };
    this.bump(this.dayCounts, org, this.lastDayKey.key, by);
  }

  private lastDayKey = { what: '', day: NaN, key: '' };

  /** A node row's move from `prev` to `next` (either absent): its counters follow. */
  private countNode(org: string, prev: Pick<KhNodeRow, 'live' | 'node_type' | 'support'> | undefined, next: Pick<KhNodeRow, 'live' | 'node_type' | 'support'> | undefined): void {
    if (prev && next && prev.live === next.live && prev.node_type === next.node_type && prev.support === next.support) return;
    for (const k of nodeKeys(prev)) this.bump(this.counts, org, k, -1);
    for (const k of nodeKeys(next)) this.bump(this.counts, org, k, 1);
  }

  private countEdge(org: string, prevLive: number, nextLive: number): void {
    if (prevLive !== nextLive) this.bump(this.counts, org, 'edges', nextLive - prevLive);
  }

  /** The unit's counter changes, into the tables (in the unit's transaction). */
  private writeCounts(): void {
    for (const [org, m] of this.counts)
      for (const [key, n] of m)
        if (n) {
          this.stmt('INSERT INTO kh_counts(org, key, n) VALUES (?,?,?) ON CONFLICT(org, key) DO UPDATE SET n = n + excluded.n').run(org, key, n);
          // a counter back to zero goes, as a rebuild of a log without what it counted never writes it
          if (n < 0) this.stmt('DELETE FROM kh_counts WHERE org = ? AND key = ? AND n = 0').run(org, key);
        }
    for (const [org, m] of this.dayCounts)
      for (const [key, n] of m) {
        if (!n) continue;
        const cut = key.indexOf('\u0000');
        const [what, day] = [key.slice(0, cut), Number(key.slice(cut + 1))];
        this.stmt('INSERT INTO kh_day_counts(org, what, day, n) VALUES (?,?,?,?) ON CONFLICT(org, what, day) DO UPDATE SET n = n + excluded.n').run(org, what, day, n);
        if (n < 0) this.stmt('DELETE FROM kh_day_counts WHERE org = ? AND what = ? AND day = ? AND n = 0').run(org, what, day);
      }
    this.counts.clear();
    this.dayCounts.clear();
  }

  private onNode(org: string, n: NodeRecord, type: string, at: number, principal: string, position: number, reason: string | null): void {
    const status = statusOf(n);
    const named = n.node_type === 'Chunk' && type === 'NodeCreated' ? documentOfChunkReason(reason) : null;
    let attrs = n.node_type === 'Approval' ? JSON.stringify({ requested_at: num(n.props.requested_at) }) : named ? JSON.stringify({ document_uid: named } satisfies ChunkOrigin) : null;
    const live = n.tombstone_at === null ? 1 : 0;
    // the row as the upsert leaves it (creation and creator stay those of the first insert)
    const rowAfter = (prev: KhNodeRow | undefined): KhNodeRow => {
      const updates: number[] = prev ? JSON.parse(prev.update_times) : [];
      if (type === 'NodeUpdated') updates.push(at);
      return {
        org,
        uid: n.uid,
        node_type: n.node_type,
        label: n.label,
        live,
        version: n.version,
        created_at: prev ? prev.created_at : n.created_at,
        created_by: prev ? prev.created_by : principal,
        last_version_at: at,
        tombstone_at: n.tombstone_at,
        status,
        status_since: prev && prev.status === status && prev.live === live ? prev.status_since : at,
        update_times: JSON.stringify(updates),
        attrs,
        // the upsert leaves it as it was; a Claim's judgement rewrites it
        support: prev ? prev.support : null,
      };
    };
    let prev: KhNodeRow | undefined;
    let row = rowAfter(undefined);
    const support = live === 1 && n.node_type === 'Claim' ? CLAIM_SUPPORT.unsupported : null;
    // a creation is almost always of a new uid: one insert tells, instead of a lookup and an upsert
    const inserted =
      type === 'NodeCreated' &&
      this.memo?.nodes.get(n.uid) === undefined &&
      this.stmt(INSERT_NEW_NODE).run(org, n.uid, n.node_type, n.label, live, n.version, n.created_at, principal, at, n.tombstone_at, status, at, row.update_times, attrs, support, at).changes === 1;
    if (inserted && support !== null) {
      row.support = support;
      this.provisional.add(n.uid);
    }
    if (!inserted) {
      prev = this.node(org, n.uid);
      // a chunk's origin is its creation's: later versions keep it
      if (n.node_type === 'Chunk' && prev?.node_type === 'Chunk') attrs = prev.attrs;
      row = rowAfter(prev);
      this.stmt(
        `${INSERT_NODE}
       ON CONFLICT(org, uid) DO UPDATE SET node_type = excluded.node_type, label = excluded.label, live = excluded.live, version = excluded.version,
         last_version_at = excluded.last_version_at, tombstone_at = excluded.tombstone_at, status = excluded.status, status_since = excluded.status_since,
         update_times = excluded.update_times, attrs = excluded.attrs`,
      ).run(org, n.uid, n.node_type, n.label, live, n.version, n.created_at, prev?.created_by ?? principal, at, n.tombstone_at, row.status, row.status_since, row.update_times, attrs);
    }
    this.memo?.nodes.set(n.uid, row);
    this.countNode(org, prev, row);
    // a node just created: no edge touches it yet, no exception is about it
    if (!prev) this.edgeless(n.uid);
    if (inserted) {
      // its creation is recorded, and counted by day, with the unit's (kh_created)
      this.created.nodes_created.push(n.uid);
      if (n.node_type === 'Document') this.activity(org, at, 'documents_created', n.uid, null, null, position);
    }
    if (n.node_type === 'Chunk' && (status === 'completed' || status === 'failed') && (!prev || prev.status !== status)) this.activity(org, at, `chunks_${status}`, n.uid, null, null, position);
    this.afterNodeChange(org, n.uid, at);
  }

  /** Everything a change of node N can change: N's own conditions and those that read N. */
  private afterNodeChange(org: string, uid: string, at: number): void {
    const n = this.node(org, uid)!;
    this.evalNode(org, uid, at);
    // created in this unit and touched by no edge yet: nothing else reads it (most creations)
    if (this.untouched(uid)) return;
    // (evalNode marks a set: a subject reached twice is judged once)
    if (EVIDENCE_NODE_TYPES.has(n.node_type)) for (const e of this.edgesOut(org, uid, 'Supports')) this.evalNode(org, e.to_uid, at);
    if (SOURCE_NODE_TYPES.has(n.node_type)) for (const t of ['ExtractedFrom', 'DerivedFrom']) for (const e of this.edgesIn(org, uid, t)) this.evalNode(org, e.from_uid, at);
    if (n.node_type === 'Document') for (const e of this.edgesIn(org, uid, 'ChunkOf')) this.evalNode(org, e.from_uid, at);
    // N as a premise: the nodes that depend on it
    for (const t of DEPENDENCY_EDGE_TYPES) for (const e of this.edgesIn(org, uid, t)) this.evalNode(org, e.from_uid, at);
    this.evalTouchingEdges(org, uid, at);
    if (n.node_type === 'Task') for (const e of this.edgesOut(org, uid, 'Targets')) this.evalAcknowledgeable(org, e.to_uid, at);
  }

  private onEdge(org: string, ed: EdgeRecord, type: string, at: number, position: number): void {
    const p = ed.props as Record<string, unknown>;
    const attrs =
      ed.edge_type === 'Contradicts'
        ? JSON.stringify({ resolution_status: str(p.resolution_status) })
        : ed.edge_type === 'PossibleDuplicate'
          ? JSON.stringify({ status: str(p.status), similarity: num(p.similarity) })
          : null;
    const live = ed.tombstone_at === null ? 1 : 0;
    let prev: KhEdgeRow | undefined;
    const inserted =
      type === 'EdgeCreated' &&
      this.memo?.edges.get(ed.uid) === undefined &&
      this.stmt(INSERT_NEW_EDGE).run(org, ed.uid, ed.edge_type, ed.from_uid, ed.to_uid, live, ed.version, ed.created_at, attrs, at).changes === 1;
    if (!inserted) {
      prev = this.edge(org, ed.uid);
      this.stmt(UPSERT_EDGE).run(org, ed.uid, ed.edge_type, ed.from_uid, ed.to_uid, live, ed.version, ed.created_at, attrs);
    }
    this.countEdge(org, prev ? prev.live : 0, live);
    this.rememberEdge(prev, { org, uid: ed.uid, edge_type: ed.edge_type, from_uid: ed.from_uid, to_uid: ed.to_uid, live, version: ed.version, created_at: prev ? prev.created_at : ed.created_at, attrs });
    if (inserted) this.created.edges_created.push(ed.uid);
    this.afterEdgeChange(org, ed, at);
  }

  /** After an edge's upsert: the memo's row and its endpoints' lists as the database now has them. */
  private rememberEdge(prev: KhEdgeRow | undefined, row: KhEdgeRow): void {
    const m = this.memo;
    if (!m) return;
    m.edges.set(row.uid, row);
    // an edge that left an end: that end's lists are read again from the database
    if (prev && (prev.to_uid !== row.to_uid || prev.edge_type !== row.edge_type)) {
      m.ins.get(prev.to_uid)?.delete(prev.edge_type);
      m.bare.delete(prev.to_uid);
    }
    if (prev && (prev.from_uid !== row.from_uid || prev.edge_type !== row.edge_type)) {
      m.outs.get(prev.from_uid)?.delete(prev.edge_type);
      m.bare.delete(prev.from_uid);
    }
    placeIn(m.ins, row.to_uid, row.edge_type, m.bare.has(row.to_uid), row);
    placeIn(m.outs, row.from_uid, row.edge_type, m.bare.has(row.from_uid), row);
  }

  private afterEdgeChange(org: string, ed: Pick<EdgeRecord, 'uid' | 'edge_type' | 'from_uid' | 'to_uid'>, at: number): void {
    const t = ed.edge_type;
    if (EDGE_KINDS[t]) this.evalEdge(org, ed.uid, at);
    if (t === 'Supports') this.evalNode(org, ed.to_uid, at);
    if (t === 'ExtractedFrom' || t === 'DerivedFrom' || t === 'ChunkOf' || DEPENDENCY.has(t)) this.evalNode(org, ed.from_uid, at);
    if (t === 'Supersedes') for (const dt of DEPENDENCY_EDGE_TYPES) for (const d of this.edgesIn(org, ed.to_uid, dt)) this.evalNode(org, d.from_uid, at);
    if (t === 'Targets') this.evalAcknowledgeable(org, ed.to_uid, at);
  }

  /**
   * A purge or a clear erases its subjects: their streams leave the log, so a rebuild never
   * sees them. Their exceptions, transitions and activity go too (an exception of a
   * tombstoned subject was already resolved as `subject_removed` when it was tombstoned);
   * keeping them would make the live projection differ from any rebuild of the log.
   */
  private onRemoved(org: string, nodeUids: readonly string[], edgeUids: readonly string[]): void {
    for (const uid of [...nodeUids, ...edgeUids]) {
      for (const row of this.stmt('SELECT * FROM kh_exceptions INDEXED BY kh_exceptions_subject_id WHERE org = ? AND subject_uid = ?').all(org, uid) as KhExceptionRow[]) {
        this.stmt('DELETE FROM kh_exceptions WHERE org = ? AND subject_uid = ? AND id = ?').run(org, row.subject_uid, row.id);
        this.dropTransitions(org, row.id, row.subject_uid, row.state ? (JSON.parse(row.state) as ExceptionState).first_detected_at : null);
        this.remember(row, true);
      }
      for (const a of this.stmt('SELECT at, what FROM kh_activity INDEXED BY kh_activity_uid WHERE org = ? AND uid = ?').all(org, uid) as { at: number; what: string }[]) this.countDay(org, a.what, a.at, -1);
      this.stmt('DELETE FROM kh_activity WHERE org = ? AND uid = ?').run(org, uid);
    }
    // creations to take out of kh_created, by what and instant
    const born = new Map<string, { what: string; at: number; uids: Set<string> }>();
    const unborn = (what: string, at: number, uid: string) => {
      const k = `${what}\u0000${at}`;
      let b = born.get(k);
      if (!b) born.set(k, (b = { what, at, uids: new Set() }));
      b.uids.add(uid);
    };
    for (const uid of nodeUids) {
      const n = this.stmt('SELECT live, node_type, support, born_at FROM kh_nodes WHERE org = ? AND uid = ?').get(org, uid) as
        | (Pick<KhNodeRow, 'live' | 'node_type' | 'support'> & { born_at: number | null })
        | undefined;
      this.countNode(org, n, undefined);
      if (n && n.born_at !== null) {
        this.countDay(org, 'nodes_created', n.born_at, -1);
        unborn('nodes_created', n.born_at, uid);
      }
      this.stmt('DELETE FROM kh_nodes WHERE org = ? AND uid = ?').run(org, uid);
    }
    for (const uid of edgeUids) {
      const e = this.stmt('SELECT live, born_at FROM kh_edges WHERE org = ? AND uid = ?').get(org, uid) as { live: number; born_at: number | null } | undefined;
      if (e) this.countEdge(org, e.live, 0);
      if (e && e.born_at !== null) {
        this.countDay(org, 'edges_created', e.born_at, -1);
        unborn('edges_created', e.born_at, uid);
      }
      this.stmt('DELETE FROM kh_edges WHERE org = ? AND uid = ?').run(org, uid);
    }
    for (const b of born.values()) this.uncreate(org, b.what, b.at, b.uids);
  }

  /** The rows of the edges a purge is about to remove (a rebuild never had them: none). */
  private edgeRows(org: string, uids: readonly string[]): KhEdgeRow[] {
    return uids.map((uid) => this.edge(org, uid)).filter((e): e is KhEdgeRow => e !== undefined);
  }

  /**
   * The Chunks a purge leaves behind whose Document goes with it: those with a ChunkOf edge
   * among the purged ones, and those whose origin names a purged node (a rebuild knows them
   * only by that: the edge never reaches it).
   */
  private chunksLosingDocuments(org: string, nodeUids: readonly string[], edges: readonly KhEdgeRow[]): string[] {
    const purgedNodes = new Set(nodeUids);
    const chunks = new Set<string>();
    for (const e of edges) if (e.edge_type === 'ChunkOf' && !purgedNodes.has(e.from_uid)) chunks.add(e.from_uid);
    // only a purged Document leaves chunks naming it (the scan reads every chunk of the
    // organization); on a rebuild the purged nodes have no row at all, and may have been one
    const mayBeDocument = (uid: string) => (this.node(org, uid)?.node_type ?? 'Document') === 'Document';
    if ([...purgedNodes].some(mayBeDocument))
      for (const r of this.stmt("SELECT uid, attrs FROM kh_nodes WHERE org = ? AND node_type = 'Chunk' AND attrs IS NOT NULL").all(org) as { uid: string; attrs: string }[])
        if (!purgedNodes.has(r.uid) && purgedNodes.has(chunkOrigin(r.attrs)!.document_uid)) chunks.add(r.uid);
    return [...chunks];
  }

  /**
   * After a purge, the `chunk_orphaned` exceptions of the Chunks it left without their Document
   * start over at the purge: their history before it read edges and a Document the log no
   * longer holds, so a rebuild could not give it back. Each is judged again at the purge's instant.
   */
  private reoriginChunks(org: string, chunks: readonly string[], purgedNodes: ReadonlySet<string>): void {
    for (const uid of chunks) {
      const n = this.node(org, uid);
      if (!n) continue;
      const origin = chunkOrigin(n.attrs);
      if (origin && purgedNodes.has(origin.document_uid) && !origin.purged) {
        const attrs = JSON.stringify({ ...origin, purged: true } satisfies ChunkOrigin);
        this.stmt('UPDATE kh_nodes SET attrs = ? WHERE org = ? AND uid = ?').run(attrs, org, uid);
        this.memo?.nodes.set(uid, { ...n, attrs });
      }
      for (const row of this.rowsOf(org, uid)) {
        if (row.kind !== 'chunk_orphaned') continue;
        this.stmt('DELETE FROM kh_exceptions WHERE org = ? AND subject_uid = ? AND id = ?').run(org, row.subject_uid, row.id);
        this.dropTransitions(org, row.id, row.subject_uid, row.state ? (JSON.parse(row.state) as ExceptionState).first_detected_at : null);
        this.remember(row, true);
      }
      this.evalNode(org, uid, this.unitAt);
    }
  }

  /** Re-reads the acknowledgement of a subject and of the edge subjects touching it. */
  private evalAcknowledgeable(org: string, uid: string, at: number): void {
    if (this.node(org, uid)) this.evalNode(org, uid, at);
    else if (this.edge(org, uid)) this.evalEdge(org, uid, at);
    this.evalTouchingEdges(org, uid, at);
  }

  private evalTouchingEdges(org: string, uid: string, at: number): void {
    for (const t of EDGE_KIND_TYPES) {
      for (const e of this.edgesOut(org, uid, t)) this.evalEdge(org, e.uid, at);
      for (const e of this.edgesIn(org, uid, t)) this.evalEdge(org, e.uid, at);
    }
  }

  /** Marks a node's conditions for evaluation at the end of the unit of work. */
  private evalNode(_org: string, uid: string, _at: number): void {
    this.dirtyNodes.add(uid);
  }

  private evalEdge(_org: string, uid: string, _at: number): void {
    this.dirtyEdges.add(uid);
  }

  private judgeNode(org: string, uid: string, at: number): void {
    const n = this.node(org, uid);
    if (!n) return;
    const live = n.live === 1;
    const gone: Observation = { holds: false, removed: true };
    if (n.node_type === 'Claim') {
      const s = live ? this.claimSupport(org, uid) : null;
      if (!live && this.provisional.has(uid)) this.keepSupport(org, n, null);
      if (s) this.keepSupport(org, n, s.evidenced ? CLAIM_SUPPORT.evidenced : s.sourced ? CLAIM_SUPPORT.sourced : CLAIM_SUPPORT.unsupported);
      this.settle(org, 'claim_unsupported', n, s ? (!s.evidenced && !s.sourced ? { holds: true, detail: {}, ack: this.acknowledgement(org, [uid]) } : { holds: false, removed: false }) : gone, at);
    }
    if (n.node_type === 'Chunk') {
      const chunkOf = this.edgesOut(org, uid, 'ChunkOf');
      const liveDocs = chunkOf.filter((e) => e.live && this.node(org, e.to_uid)?.live === 1 && this.node(org, e.to_uid)?.node_type === 'Document');
      const origin = chunkOrigin(n.attrs);
      const documentUid = (liveDocs[0] ?? chunkOf[0])?.to_uid ?? origin?.document_uid ?? null;
      // without a ChunkOf edge left, a chunk whose Document was purged is still that Document's
      const orphaned = chunkOf.length > 0 ? liveDocs.length === 0 : origin?.purged === true;
      const ack = live ? this.acknowledgement(org, [uid]) : null;
      this.settle(org, 'chunk_failed', n, !live ? gone : n.status === 'failed' ? { holds: true, detail: { document_uid: documentUid }, ack } : { holds: false, removed: false }, at);
      this.settle(org, 'chunk_orphaned', n, !live ? gone : orphaned ? { holds: true, detail: { document_uid: documentUid }, ack } : { holds: false, removed: false }, at);
    }
    if (n.node_type === 'Approval') {
      const requested = num((n.attrs ? JSON.parse(n.attrs) : {}).requested_at) ?? n.created_at;
      this.arm(org, 'approval_overdue', n, live && n.status === 'pending' ? { base: requested, after_s: null, detail: {}, ack: this.acknowledgement(org, [uid]) } : null, !live, at);
    }
    if (n.node_type === 'Document') {
      const stuck = live && (n.status === 'pending' || n.status === 'processing');
      this.arm(org, 'document_stuck', n, stuck ? { base: n.status_since ?? n.last_version_at, after_s: DOCUMENT_STUCK_AFTER_S, detail: { processing_status: n.status }, ack: this.acknowledgement(org, [uid]) } : null, !live, at);
    }
    this.evalDerivation(org, n, at);
  }

  /** Stores a live Claim's support when it changed, for the summary's counts. */
  private keepSupport(org: string, n: KhNodeRow, support: number | null): void {
    if (n.support === support) return;
    this.stmt('UPDATE kh_nodes SET support = ? WHERE org = ? AND uid = ?').run(support, org, n.uid);
    this.countNode(org, n, { ...n, support });
    this.memo?.nodes.set(n.uid, { ...n, support });
  }

  private evalDerivation(org: string, d: KhNodeRow, at: number): void {
    // never a premise: never a row (edges go only with a purge, long after they were tombstoned)
    if (DEPENDENCY_EDGE_TYPES.every((t) => !this.edgesOut(org, d.uid, t).length)) return;
    const all = DEPENDENCY_EDGE_TYPES.flatMap((t) => this.edgesOut(org, d.uid, t));
    const deps = all.filter((e) => e.live);
    if (!d.live) return this.settle(org, 'derivation_stale', d, { holds: false, removed: true }, at);
    const facts: PremiseFacts[] = [];
    for (const e of deps) {
      const p = this.node(org, e.to_uid);
      if (!p) continue;
      facts.push({
        uid: p.uid,
        label: p.label,
        node_type: p.node_type,
        edge_type: e.edge_type,
        update_times: JSON.parse(p.update_times) as number[],
        tombstone_at: p.tombstone_at,
        superseded_times: this.edgesIn(org, p.uid, 'Supersedes').filter((s) => s.live).map((s) => s.created_at),
      });
    }
    const r = stalePremises(d.last_version_at, facts);
    this.settle(org, 'derivation_stale', d, r.stale_since !== null ? { holds: true, detail: { stale_premises: r.premises }, ack: this.acknowledgement(org, [d.uid]) } : { holds: false, removed: false }, at);
  }

  private claimSupport(org: string, uid: string): { evidenced: boolean; sourced: boolean } {
    const evidenced = this.edgesIn(org, uid, 'Supports').some((e) => {
      if (!e.live) return false;
      const f = this.node(org, e.from_uid);
      return !!f && f.live === 1 && EVIDENCE_NODE_TYPES.has(f.node_type);
    });
    const sourced = ['ExtractedFrom', 'DerivedFrom'].some((t) =>
      this.edgesOut(org, uid, t).some((e) => {
        if (!e.live) return false;
        const s = this.node(org, e.to_uid);
        return !!s && s.live === 1 && SOURCE_NODE_TYPES.has(s.node_type);
      }),
    );
    return { evidenced, sourced };
  }

  private judgeEdge(org: string, uid: string, at: number): void {
    const e = this.edge(org, uid);
    if (!e) return;
    const kind = EDGE_KINDS[e.edge_type];
    if (!kind) return;
    let obs: Observation;
    if (!e.live) obs = { holds: false, removed: true };
    else {
      const ends = this.node(org, e.from_uid)?.live === 1 && this.node(org, e.to_uid)?.live === 1;
      const a = e.attrs ? JSON.parse(e.attrs) : {};
      const pending = kind === 'contradiction_unresolved' ? a.resolution_status == null || a.resolution_status === 'unresolved' : a.status == null || a.status === 'pending';
      obs =
        ends && pending
          ? { holds: true, detail: kind === 'duplicate_pending' ? { from_uid: e.from_uid, to_uid: e.to_uid, similarity: a.similarity ?? null } : { from_uid: e.from_uid, to_uid: e.to_uid }, ack: this.acknowledgement(org, [e.from_uid, e.to_uid]) }
          : { holds: false, removed: false };
    }
    const row = this.rowsOf(org, uid).find((r) => r.kind === kind);
    if (!row && !obs.holds) return;
    this.write(row ?? { org, id: exceptionId(kind, uid), kind, subject_uid: uid, subject_type: 'edge', from_uid: e.from_uid, to_uid: e.to_uid, state: null, arm: null }, obs, at);
  }

  private settle(org: string, kind: ExceptionKind, n: KhNodeRow, obs: Observation, at: number): void {
    const row = this.rowsOf(org, n.uid).find((r) => r.kind === kind);
    if (!row && !obs.holds) return;
    this.write(row ?? { org, id: exceptionId(kind, n.uid), kind, subject_uid: n.uid, subject_type: 'node', from_uid: null, to_uid: null, state: null, arm: null }, obs, at);
  }

  private settleRow(row: KhExceptionRow, obs: Observation, at: number): void {
    if (row.arm) this.arm(row.org, row.kind, { uid: row.subject_uid } as KhNodeRow, null, true, at);
    else this.write(row, obs, at);
  }

  private write(row: KhExceptionRow, obs: Observation, at: number): void {
    const prev = row.state ? (JSON.parse(row.state) as ExceptionState) : null;
    const next = nextExceptionState(prev, obs, at);
    if (prev && next && prev.status !== 'resolved' && next.status === 'resolved' && prev.reopen_count === 0 && prev.first_detected_at === at) {
      // true for no time at all: a unit of work whose evaluation was split (a rebuild's batch
      // ended inside it, or one request committed twice at one instant) opened it and then
      // cleared it at the same instant; it was never an exception anyone could see
      this.stmt('DELETE FROM kh_exceptions WHERE org = ? AND subject_uid = ? AND id = ?').run(row.org, row.subject_uid, row.id);
      this.dropTransitions(row.org, row.id, row.subject_uid, prev.first_detected_at);
      this.remember(row, true);
      return;
    }
    this.save(row, prev, next, row.arm);
  }

  private save(row: KhExceptionRow, prev: ExceptionState | null, next: ExceptionState | null, arm: string | null): void {
    const state = next ? JSON.stringify(next) : null;
    if (state === row.state && arm === row.arm) return;
    this.upsertException(row, next, state, arm);
    this.remember({ ...row, state, arm });
    this.transitions(row.org, row.id, row.subject_uid, prev, next);
  }

  private upsertException(row: KhExceptionRow, state: ExceptionState | null, stateText: string | null, arm: string | null): void {
    const l = laneOf(row.kind, row.subject_type, state, arm);
    this.stmt(
      `INSERT INTO kh_exceptions(org, id, kind, subject_uid, subject_type, from_uid, to_uid, state, arm, lane, sev, first_at, resolved_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
       ON CONFLICT(org, subject_uid, id) DO UPDATE SET state = excluded.state, arm = excluded.arm, lane = excluded.lane, first_at = excluded.first_at, resolved_at = excluded.resolved_at`,
    ).run(row.org, row.id, row.kind, row.subject_uid, row.subject_type, row.from_uid, row.to_uid, stateText, arm, l.lane, l.sev, l.first_at, l.resolved_at);
  }

  private transitions(org: string, id: string, subject: string, prev: ExceptionState | null, next: ExceptionState | null): void {
    if (!next) return;
    const wasOpen = prev !== null && prev.status !== 'resolved';
    const isOpen = next.status !== 'resolved';
    // the moment it opened: first detection, or the reopening (an acknowledgement at once may follow it)
    if (isOpen && !wasOpen) {
      if (prev === null) this.firstOpening(org, next.first_detected_at);
      else this.transition(org, this.reopenedAt(next), id, subject, 'opened');
    }
    if (!isOpen && wasOpen) this.transition(org, next.resolved_at!, id, subject, 'resolved');
  }

  private reopenedAt(s: ExceptionState): number {
    return s.status === 'acknowledged' && s.acknowledged_at !== null ? Math.min(s.acknowledged_at, s.last_changed_at) : s.last_changed_at;
  }

  /** Approval deadline of the organization, as the log has set it so far. */
  deadlineHours(org: string): number {
    const r = this.stmt('SELECT approval_deadline_hours FROM kh_settings WHERE org = ?').get(org) as { approval_deadline_hours: number } | undefined;
    return r?.approval_deadline_hours ?? DEFAULT_GOVERNANCE_SETTINGS.approval_deadline_hours;
  }

  /**
   * A time-based condition: `next` armed (the clock runs), or null (it ended at `at`). An arm
   * whose threshold had passed by `at` was an exception someone may have read: its episode
   * (open at the threshold, resolved at `at`) is committed to the state.
   */
  private arm(org: string, kind: ExceptionKind, n: Pick<KhNodeRow, 'uid'>, next: Arm | null, removed: boolean, at: number): void {
    const row = this.rowsOf(org, n.uid).find((r) => r.kind === kind);
    if (!row && !next) return;
    const id = row?.id ?? exceptionId(kind, n.uid);
    const base: KhExceptionRow = row ?? { org, id, kind, subject_uid: n.uid, subject_type: 'node', from_uid: null, to_uid: null, state: null, arm: null };
    const prev = base.state ? (JSON.parse(base.state) as ExceptionState) : null;
    const old = base.arm ? (JSON.parse(base.arm) as Arm) : null;
    let state = prev;
    if (old) {
      const due = old.base + (old.after_s ?? this.deadlineHours(org) * 3600);
      const ended = !next || next.base !== old.base;
      if (ended && due <= at) {
        // an episode some read may have shown: opened at its threshold, resolved now
        const first = state === null;
        state = nextExceptionState(state, { holds: true, detail: armDetail(kind, old, due), ack: old.ack }, due);
        state = nextExceptionState(state, { holds: false, removed }, at);
        if (first) this.firstOpening(org, due);
        else this.transition(org, due, id, n.uid, 'opened');
        this.transition(org, at, id, n.uid, 'resolved');
      }
    }
    const armText = next ? JSON.stringify(next) : null;
    const stateText = state ? JSON.stringify(state) : null;
    if (stateText === base.state && armText === base.arm) return;
    if (stateText === null && armText === null) {
      // a clock stopped before its threshold: nothing to remember
      this.stmt('DELETE FROM kh_exceptions WHERE org = ? AND subject_uid = ? AND id = ?').run(org, n.uid, id);
      this.remember(base, true);
      return;
    }
    this.remember({ ...base, state: stateText, arm: armText });
    this.upsertException({ ...base, subject_uid: n.uid, subject_type: 'node', from_uid: null, to_uid: null }, state, stateText, armText);
  }

  /**
   * `brief_stale` history: a version replacing one that was over 24 h old with other sources
   * (another fingerprint) ends an episode the read showed — open from the old version's 24th
   * hour, resolved by the new version. The episode still open is judged at read time.
   */
  private onBriefVersion(org: string, project: string, version: number, createdAt: number, fingerprint: string): void {
    const prev = this.stmt('SELECT version, created_at, source_fingerprint FROM kh_briefs WHERE org = ? AND project_uid = ?').get(org, project) as
      | { version: number; created_at: number; source_fingerprint: string }
      | undefined;
    this.stmt(
      'INSERT INTO kh_briefs(org, project_uid, version, created_at, source_fingerprint) VALUES (?,?,?,?,?) ON CONFLICT(org, project_uid) DO UPDATE SET version = excluded.version, created_at = excluded.created_at, source_fingerprint = excluded.source_fingerprint',
    ).run(org, project, version, createdAt, fingerprint);
    if (!prev) return;
    const due = prev.created_at + BRIEF_STALE_AFTER_S;
    if (prev.source_fingerprint === fingerprint || due >= createdAt) return;
    const row = this.rowsOf(org, project).find((r) => r.kind === 'brief_stale');
    const base: KhExceptionRow = row ?? { org, id: exceptionId('brief_stale', project), kind: 'brief_stale', subject_uid: project, subject_type: 'node', from_uid: null, to_uid: null, state: null, arm: null };
    const before = base.state ? (JSON.parse(base.state) as ExceptionState) : null;
    const opened = nextExceptionState(before, { holds: true, detail: { current_version: prev.version }, ack: this.acknowledgement(org, [project]) }, due);
    this.save(base, before, opened, null);
    this.write({ ...base, state: JSON.stringify(opened) }, { holds: false, removed: false }, createdAt);
  }

  /** `schedule_failing`: the schedule's three most recent finished runs (newest first) all failed. */
  private onRunFinished(org: string, id: string, status: string, error: unknown, at: number): void {
    const s = this.stmt('SELECT project_uid, recent FROM kh_schedules WHERE org = ? AND id = ?').get(org, id) as { project_uid: string; recent: string } | undefined;
    if (!s) return;
    const recent = [{ status, error }, ...(JSON.parse(s.recent) as { status: string; error: unknown }[])].slice(0, SCHEDULE_FAILING_RUNS);
    this.stmt('UPDATE kh_schedules SET recent = ? WHERE org = ? AND id = ?').run(JSON.stringify(recent), org, id);
    const holds = recent.length === SCHEDULE_FAILING_RUNS && recent.every((r) => r.status === 'failed');
    const row = this.rowsOf(org, id).find((r) => r.kind === 'schedule_failing');
    if (!row && !holds) return;
    this.write(
      row ?? { org, id: exceptionId('schedule_failing', id), kind: 'schedule_failing', subject_uid: id, subject_type: 'schedule', from_uid: s.project_uid, to_uid: null, state: null, arm: null },
      holds ? { holds: true, detail: { last_errors: recent.map((r) => r.error) }, ack: null } : { holds: false, removed: false },
      at,
    );
  }

  private onScheduleDeleted(org: string, id: string, at: number): void {
    const row = this.rowsOf(org, id).find((r) => r.kind === 'schedule_failing');
    if (row) this.write(row, { holds: false, removed: true }, at);
  }

  reset(): void {
    this.memo = null;
    this.dirtyNodes.clear();
    this.provisional.clear();
    this.dirtyEdges.clear();
    this.counts.clear();
    this.dayCounts.clear();
    this.created.nodes_created.length = 0;
    this.created.edges_created.length = 0;
    for (const t of KNOWLEDGE_HEALTH_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}

function memoSize(m: UnitMemo): number {
  return m.nodes.size + m.edges.size + m.ins.size + m.outs.size + m.rows.size;
}
