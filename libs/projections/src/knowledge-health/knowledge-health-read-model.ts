import type { Database } from 'better-sqlite3';
import { NOT_SOURCES, SourceRowReader } from '@strata/domain/briefs/source-traversal';
import { DEFAULT_GOVERNANCE_SETTINGS } from '@strata/domain/governance';
import { EVIDENCE_NODE_TYPES, ExceptionKind, ExceptionState, SOURCE_NODE_TYPES, nextExceptionState } from '@strata/domain/knowledge-health';
import { Arm, KhEdgeRow, KhExceptionRow, KhNodeRow, KhTables, armDetail } from './kh-tables';
import { CLAIM_SUPPORT, CLAIM_TERM, DAY_S, FIRST_OPENINGS, KNOWLEDGE_HEALTH_DDL, TIMED_LANE } from './knowledge-health-schema';

/** One exception row with its state as of a read's `now` (time-based kinds evaluated then). */
export interface MaterializedException {
  row: KhExceptionRow;
  state: ExceptionState;
}

export interface ClaimSupportRow {
  uid: string;
  evidence: string[];
  sources: string[];
}

// the support the projection judged each live Claim to have, counted on an index
const CLAIM_SUPPORT_COUNTS_SQL = `SELECT COUNT(*) AS claims, COALESCE(SUM(support = ${CLAIM_SUPPORT.evidenced}), 0) AS evidenced, COALESCE(SUM(support = ${CLAIM_SUPPORT.sourced}), 0) AS sourced_only
  FROM kh_nodes INDEXED BY kh_nodes_claims WHERE org = @org AND ${CLAIM_TERM} AND live = 1`;

type Row = { uid: string; version: number; node_type: string };
type ERow = { uid: string; version: number; from_uid: string; to_uid: string; edge_type: string };

/**
 * Reads of the Knowledge Health projection. Works on the projections database (embedded) or on
 * a replica's mirror (servers); every figure is filtered by the caller's scope above this.
 */
export class KnowledgeHealthReadModel extends KhTables {
  constructor(db: Database) {
    super(db);
    db.exec(KNOWLEDGE_HEALTH_DDL);
  }

  deadlineHours(org: string): number {
    const r = this.stmt('SELECT approval_deadline_hours FROM kh_settings WHERE org = ?').get(org) as { approval_deadline_hours: number } | undefined;
    return r?.approval_deadline_hours ?? DEFAULT_GOVERNANCE_SETTINGS.approval_deadline_hours;
  }

  /** The projection's live counters ('node:<type>', 'edges', 'claim:evidenced', 'claim:sourced'). */
  counters(org: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.stmt('SELECT key, n FROM kh_counts WHERE org = ?').all(org) as { key: string; n: number }[]) out.set(r.key, r.n);
    return out;
  }

  /**
   * Activity and exception transitions in [since, until), by what: the whole days after the one
   * `since` falls in from the day counters, the rest of that day from the rows, less any row at
   * or after `until` (the read's own instant). Never more rows than one day holds.
   */
  windowCounts(org: string, since: number, until: number): Map<string, number> {
    const out = new Map<string, number>();
    const add = (what: string, n: number) => out.set(what, (out.get(what) ?? 0) + n);
    const day = Math.floor(since / DAY_S);
    const edge = (day + 1) * DAY_S;
    for (const r of this.stmt('SELECT what, SUM(n) AS n FROM kh_day_counts WHERE org = ? AND day > ? GROUP BY what').all(org, day) as { what: string; n: number }[]) add(r.what, r.n);
    const raw = (from: number, to: number, sign: number) => {
      for (const r of this.stmt('SELECT what, COUNT(*) AS n FROM kh_activity INDEXED BY kh_activity_window WHERE org = ? AND at >= ? AND at < ? GROUP BY what').all(org, from, to) as { what: string; n: number }[])
        add(r.what, sign * r.n);
      for (const [what, n] of this.creations(org, from, to)) add(what, sign * n);
      for (const r of this.stmt('SELECT what, COUNT(*) AS n FROM kh_transitions INDEXED BY kh_transitions_window WHERE org = ? AND at >= ? AND at < ? GROUP BY what').all(org, from, to) as { what: string; n: number }[])
        add(`exceptions_${r.what}`, sign * r.n);
      const first = (this.stmt(`SELECT COUNT(*) AS n ${FIRST_OPENINGS}`).get(org, from, to) as { n: number }).n;
      if (first) add('exceptions_opened', sign * first);
    };
    raw(since, Math.min(edge, until), 1);
    raw(Math.max(until, edge), Number.MAX_VALUE, -1);
    return out;
  }

  /** An exception's transitions in [since, until), its first opening (its row's) first; found by its subject and id (its id alone has no index). */
  transitionsOf(org: string, subject: string, id: string, since: number, until: number): { what: string }[] {
    return this.stmt(
      `SELECT 'opened' AS what FROM kh_exceptions INDEXED BY kh_exceptions_subject_id WHERE org = ? AND subject_uid = ? AND id = ? AND first_at >= ? AND first_at < ?
       UNION ALL SELECT what FROM (SELECT what FROM kh_transitions INDEXED BY kh_transitions_subject WHERE org = ? AND subject_uid = ? AND id = ? AND at >= ? AND at < ? ORDER BY rowid)`,
    ).all(org, subject, id, since, until, org, subject, id, since, until) as { what: string }[];
  }

  /** Open and acknowledged rows by kind and status, and resolved ones resolved after `resolvedAfter` (the timed lane aside). */
  laneCounts(org: string, resolvedAfter: number): { kind: ExceptionKind; lane: 'open' | 'acknowledged' | 'resolved'; n: number }[] {
    return [
      ...(this.stmt(
        "SELECT kind, lane, COUNT(*) AS n FROM kh_exceptions INDEXED BY kh_exceptions_lane_kind WHERE org = ? AND lane IN ('open', 'acknowledged') GROUP BY lane, kind",
      ).all(org) as { kind: ExceptionKind; lane: 'open' | 'acknowledged'; n: number }[]),
      ...(this.stmt("SELECT kind, 'resolved' AS lane, COUNT(*) AS n FROM kh_exceptions INDEXED BY kh_exceptions_lane_kind WHERE org = ? AND lane = 'resolved' AND resolved_at > ? GROUP BY kind").all(
        org,
        resolvedAfter,
      ) as { kind: ExceptionKind; lane: 'resolved'; n: number }[]),
    ];
  }

  /** Resolved rows (not timed) resolved in [from, to]: those a retention cut leaves out. */
  resolvedBetween(org: string, from: number, to: number): { id: string; subject_uid: string }[] {
    return this.stmt("SELECT id, subject_uid FROM kh_exceptions INDEXED BY kh_exceptions_lane_kind WHERE org = ? AND lane = 'resolved' AND resolved_at >= ? AND resolved_at <= ?").all(
      org,
      from,
      to,
    ) as { id: string; subject_uid: string }[];
  }

  /** The rows whose status depends on the read (armed conditions, briefs, schedules). */
  timedRows(org: string): KhExceptionRow[] {
    return this.stmt(`SELECT * FROM kh_exceptions INDEXED BY kh_exceptions_page WHERE org = ? AND lane = '${TIMED_LANE}'`).all(org) as KhExceptionRow[];
  }

  /**
   * Up to `limit` rows of one status lane after `after` in the list's order (severity, first
   * detection, id), an edge subject's ends as the edge has them now.
   */
  laneRows(org: string, lane: string, after: readonly [number, number, string] | null, limit: number): KhExceptionRow[] {
    const [sev, first, id] = after ?? [-1, -Number.MAX_VALUE, ''];
    return this.stmt(
      `SELECT x.org, x.id, x.kind, x.subject_uid, x.subject_type, COALESCE(e.from_uid, x.from_uid) AS from_uid, COALESCE(e.to_uid, x.to_uid) AS to_uid, x.state, x.arm, x.sev, x.first_at
       FROM kh_exceptions x INDEXED BY kh_exceptions_page LEFT JOIN kh_edges e ON x.subject_type = 'edge' AND e.org = x.org AND e.uid = x.subject_uid
       WHERE x.org = ? AND x.lane = ? AND (x.sev, x.first_at, x.id) > (?, ?, ?) ORDER BY x.sev, x.first_at, x.id LIMIT ?`,
    ).all(org, lane, sev, first, id, limit) as KhExceptionRow[];
  }

  /**
   * Every exception row of the organization in id order (sorted here: no index is kept by id,
   * whose hashed keys made every new exception a random page write); an edge subject's ends as
   * the edge has them now (a merge may retarget it).
   */
  rows(org: string): KhExceptionRow[] {
    return this.stmt(
      `SELECT x.org, x.id, x.kind, x.subject_uid, x.subject_type, COALESCE(e.from_uid, x.from_uid) AS from_uid, COALESCE(e.to_uid, x.to_uid) AS to_uid, x.state, x.arm
       FROM kh_exceptions x LEFT JOIN kh_edges e ON x.subject_type = 'edge' AND e.org = x.org AND e.uid = x.subject_uid WHERE x.org = ? ORDER BY x.id`,
    ).all(org) as KhExceptionRow[];
  }

  /**
   * The live Projects whose admitted set (§12.1) holds `uid`, walked backwards from it: a
   * Document's PartOfProject edges, a Chunk's Documents', an extracted node's Chunks'. The same
   * sets as the forward traversal, for one subject at the cost of a few index lookups.
   */
  projectsOf(org: string, uid: string): string[] {
    const n = this.node(org, uid);
    if (!n || n.live !== 1) return [];
    const liveOut = (from: string, type: string, toType: string) =>
      (this.stmt(
        `SELECT e.to_uid AS uid FROM kh_edges e INDEXED BY kh_edges_out CROSS JOIN kh_nodes n ON n.org = e.org AND n.uid = e.to_uid
         WHERE e.org = ? AND e.from_uid = ? AND e.edge_type = ? AND e.live = 1 AND n.live = 1 AND n.node_type = ?`,
      ).all(org, from, type, toType) as { uid: string }[]).map((r) => r.uid);
    const ofDocs = (docs: string[]) => docs.flatMap((d) => liveOut(d, 'PartOfProject', 'Project'));
    const ofChunks = (chunks: string[]) => ofDocs([...new Set(chunks.flatMap((c) => liveOut(c, 'ChunkOf', 'Document')))]);
    let out: string[];
    if (n.node_type === 'Document') out = ofDocs([uid]);
    else if (n.node_type === 'Chunk') out = ofChunks([uid]);
    else if (NOT_SOURCES.has(n.node_type)) out = [];
    else out = ofChunks(liveOut(uid, 'ExtractedFrom', 'Chunk'));
    return [...new Set(out)].sort();
  }

  /** spaces(N) of these uids only (§13.1). */
  spacesOf(org: string, uids: readonly string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (!uids.length) return out;
    for (const r of this.stmt(
      `SELECT e.from_uid AS uid, e.to_uid AS space FROM kh_edges e INDEXED BY kh_edges_out CROSS JOIN kh_nodes s ON s.org = e.org AND s.uid = e.to_uid
       WHERE e.org = ? AND e.from_uid IN (SELECT value FROM json_each(?)) AND e.edge_type = 'InSpace' AND e.live = 1 AND s.live = 1 AND s.node_type = 'Space' ORDER BY e.to_uid`,
    ).all(org, JSON.stringify([...new Set(uids)])) as { uid: string; space: string }[]) {
      const l = out.get(r.uid);
      if (l) {
        if (!l.includes(r.space)) l.push(r.space);
      } else out.set(r.uid, [r.space]);
    }
    return out;
  }

  /** Activity in [since, until) counted by what happened (for a caller who sees everything). */
  activityCounts(org: string, since: number, until: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.stmt('SELECT what, COUNT(*) AS n FROM kh_activity WHERE org = ? AND at >= ? AND at < ? GROUP BY what').all(org, since, until) as { what: string; n: number }[]) out.set(r.what, r.n);
    for (const [what, n] of this.creations(org, since, until)) out.set(what, n);
    return out;
  }

  /** Nodes and edges created in [since, until), counted from the creation rows (none: absent). */
  private creations(org: string, since: number, until: number): [string, number][] {
    return (this.stmt('SELECT what, SUM(n) AS n FROM kh_created WHERE org = ? AND at >= ? AND at < ? GROUP BY what ORDER BY what DESC').all(org, since, until) as { what: string; n: number }[])
      .filter((r) => r.n > 0)
      .map((r) => [r.what, r.n]);
  }

  /**
   * The state of a row at `now`. An armed time-based row whose threshold has passed is open (or
   * acknowledged) from that threshold; `due` may move the threshold later (a Document's job activity)
   * or, as null, say the condition does not hold after all.
   */
  materialize(row: KhExceptionRow, now: number, deadlineHours: number, due?: (arm: Arm, threshold: number) => number | null): MaterializedException | null {
    let state = row.state ? (JSON.parse(row.state) as ExceptionState) : null;
    if (row.arm) {
      const arm = JSON.parse(row.arm) as Arm;
      let threshold: number | null = arm.base + (arm.after_s ?? deadlineHours * 3600);
      if (due) threshold = due(arm, threshold);
      if (threshold !== null && threshold <= now) state = nextExceptionState(state, { holds: true, detail: armDetail(row.kind, arm, threshold), ack: arm.ack }, threshold);
    }
    return state ? { row, state } : null;
  }

  /** Live nodes by type (for counts), from the projection's live counters. */
  liveCountsByType(org: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const [key, n] of this.counters(org)) if (key.startsWith('node:') && n) out.set(key.slice(5), n);
    return out;
  }

  liveEdgeCount(org: string): number {
    return (this.stmt('SELECT COUNT(*) AS n FROM kh_edges WHERE org = ? AND live = 1').get(org) as { n: number }).n;
  }

  /** Of these uids, the live nodes with their types. */
  liveTypes(org: string, uids: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    if (!uids.length) return out;
    for (const r of this.stmt('SELECT uid, node_type FROM kh_nodes WHERE org = ? AND live = 1 AND uid IN (SELECT value FROM json_each(?))').all(org, JSON.stringify(uids)) as { uid: string; node_type: string }[])
      out.set(r.uid, r.node_type);
    return out;
  }

  /** Live edges touching any of these uids. */
  liveEdgesTouching(org: string, uids: readonly string[]): KhEdgeRow[] {
    if (!uids.length) return [];
    const list = JSON.stringify(uids);
    return this.stmt(
      `SELECT * FROM kh_edges WHERE org = ? AND live = 1 AND from_uid IN (SELECT value FROM json_each(?))
       UNION SELECT * FROM kh_edges WHERE org = ? AND live = 1 AND to_uid IN (SELECT value FROM json_each(?))`,
    ).all(org, list, org, list) as KhEdgeRow[];
  }

  /** The live Claims, in uid order. */
  liveClaimUids(org: string): string[] {
    return (this.stmt(`SELECT uid FROM kh_nodes INDEXED BY kh_nodes_claims WHERE org = ? AND ${CLAIM_TERM} AND live = 1 ORDER BY uid`).all(org) as { uid: string }[]).map((r) => r.uid);
  }

  /**
   * Each live Claim with the live Evidence-like nodes Supporting it and the live sources it was
   * extracted or derived from (§14.1), so a caller's scope can drop what it may not see.
   */
  claimSupport(org: string): ClaimSupportRow[] {
    const claims = new Map<string, ClaimSupportRow>();
    for (const uid of this.liveClaimUids(org)) claims.set(uid, { uid, evidence: [], sources: [] });
    if (!claims.size) return [];
    // from each live Claim to its edges of the support types (no index is kept by edge type)
    for (const r of this.stmt(
      `SELECT e.to_uid AS claim, e.from_uid AS other FROM kh_nodes c INDEXED BY kh_nodes_claims
       CROSS JOIN kh_edges e INDEXED BY kh_edges_in ON e.org = c.org AND e.to_uid = c.uid AND e.edge_type = 'Supports'
       CROSS JOIN kh_nodes n ON n.org = e.org AND n.uid = e.from_uid
       WHERE c.org = ? AND c.${CLAIM_TERM} AND c.live = 1 AND e.live = 1 AND n.live = 1 AND n.node_type IN ('Evidence','Observation','Experiment','Snippet')`,
    ).all(org) as { claim: string; other: string }[])
      claims.get(r.claim)?.evidence.push(r.other);
    for (const r of this.stmt(
      `SELECT e.from_uid AS claim, e.to_uid AS other FROM kh_nodes c INDEXED BY kh_nodes_claims
       CROSS JOIN kh_edges e INDEXED BY kh_edges_out ON e.org = c.org AND e.from_uid = c.uid AND e.edge_type IN ('ExtractedFrom','DerivedFrom')
       CROSS JOIN kh_nodes n ON n.org = e.org AND n.uid = e.to_uid
       WHERE c.org = ? AND c.${CLAIM_TERM} AND c.live = 1 AND e.live = 1 AND n.live = 1 AND n.node_type IN ('Chunk','Document','Source','Snippet','Observation')`,
    ).all(org) as { claim: string; other: string }[])
      claims.get(r.claim)?.sources.push(r.other);
    return [...claims.values()];
  }

  /**
   * §14.1's counts over every live Claim, for a caller who sees everything: the Claims with a
   * live Supports edge from live evidence, and those sourced but not evidenced, as the
   * projection judged them (it judges a Claim whenever its support can change), read from the
   * covering index `kh_nodes_claims` instead of joining every Claim to its edges.
   */
  claimSupportCounts(org: string): { claims: number; evidenced: number; sourced_only: number } {
    return this.stmt(CLAIM_SUPPORT_COUNTS_SQL).get({ org }) as { claims: number; evidenced: number; sourced_only: number };
  }

  /** Activity in [since, until): the activity rows, and the nodes and edges created (an edge's ends as its row has them now). */
  activity(org: string, since: number, until: number): { what: string; uid: string; from_uid: string | null; to_uid: string | null }[] {
    return this.stmt(
      `SELECT what, uid, from_uid, to_uid FROM kh_activity WHERE org = ? AND at >= ? AND at < ?
       UNION ALL SELECT 'nodes_created', j.value, NULL, NULL FROM kh_created c CROSS JOIN json_each(c.uids) j
         WHERE c.org = ? AND c.at >= ? AND c.at < ? AND c.what = 'nodes_created'
       UNION ALL SELECT 'edges_created', e.uid, e.from_uid, e.to_uid FROM kh_created c CROSS JOIN json_each(c.uids) j CROSS JOIN kh_edges e ON e.org = c.org AND e.uid = j.value
         WHERE c.org = ? AND c.at >= ? AND c.at < ? AND c.what = 'edges_created'`,
    ).all(org, since, until, org, since, until, org, since, until) as {
      what: string;
      uid: string;
      from_uid: string | null;
      to_uid: string | null;
    }[];
  }

  /** Exceptions opened or resolved by events in [since, until), in time order (first openings from the exception rows). */
  transitions(org: string, since: number, until: number): { id: string; what: string }[] {
    return this.stmt(
      `SELECT id, what FROM (SELECT first_at AS at, 0 AS k, id, 'opened' AS what ${FIRST_OPENINGS}
       UNION ALL SELECT at, rowid AS k, id, what FROM kh_transitions INDEXED BY kh_transitions_window WHERE org = ? AND at >= ? AND at < ?) ORDER BY at, k`,
    ).all(org, since, until, org, since, until) as { id: string; what: string }[];
  }

  /** spaces(N) for every spaced node: the live Spaces its live InSpace edges reach (§13.1). */
  spaces(org: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of this.stmt(
      `SELECT e.from_uid AS uid, e.to_uid AS space FROM kh_edges e CROSS JOIN kh_nodes s ON s.org = e.org AND s.uid = e.to_uid
       WHERE e.org = ? AND e.edge_type = 'InSpace' AND e.live = 1 AND s.live = 1 AND s.node_type = 'Space' ORDER BY e.to_uid`,
    ).all(org) as { uid: string; space: string }[]) {
      const l = out.get(r.uid);
      if (l) {
        if (!l.includes(r.space)) l.push(r.space);
      } else out.set(r.uid, [r.space]);
    }
    return out;
  }

  /** Projects with a brief version: the current one. */
  briefs(org: string): { project_uid: string; version: number; created_at: number; source_fingerprint: string }[] {
    return this.stmt('SELECT project_uid, version, created_at, source_fingerprint FROM kh_briefs WHERE org = ? ORDER BY project_uid').all(org) as {
      project_uid: string;
      version: number;
      created_at: number;
      source_fingerprint: string;
    }[];
  }

  /** The traversal's reads (§12.1) over these tables: one definition of a Project's admitted sources, here too. */
  sourceReader(org: string): SourceRowReader<Row, ERow> {
    const edgeCols = 'uid, version, from_uid, to_uid, edge_type';
    return {
      edgesInto: async (targets, edgeType) =>
        targets.length
          ? (this.stmt(`SELECT ${edgeCols} FROM kh_edges WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND live = 1`).all(org, JSON.stringify(targets), edgeType) as ERow[])
          : [],
      liveNodes: async (uids) => {
        const out = new Map<string, Row>();
        if (!uids.length) return out;
        for (const r of this.stmt('SELECT uid, version, node_type FROM kh_nodes WHERE org = ? AND live = 1 AND uid IN (SELECT value FROM json_each(?))').all(org, JSON.stringify([...new Set(uids)])) as Row[])
          out.set(r.uid, r);
        return out;
      },
      edgesAmong: async (uids) => {
        if (!uids.length) return [];
        const set = new Set(uids);
        return (this.stmt(`SELECT ${edgeCols} FROM kh_edges WHERE org = ? AND live = 1 AND from_uid IN (SELECT value FROM json_each(?))`).all(org, JSON.stringify(uids)) as ERow[]).filter((e) => set.has(e.to_uid));
      },
    };
  }

  /** A briefing schedule as the projection knows it (for its exceptions' subject). */
  schedule(org: string, id: string): { project_uid: string; channel: string } | undefined {
    return this.stmt('SELECT project_uid, channel FROM kh_schedules WHERE org = ? AND id = ?').get(org, id) as { project_uid: string; channel: string } | undefined;
  }

  nodeRow(org: string, uid: string): KhNodeRow | undefined {
    return this.node(org, uid);
  }
}

