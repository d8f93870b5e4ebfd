import type { Database, Statement } from 'better-sqlite3';
import { ActivityDraft, AgentRecord, AgentScheduleRecord, RunRecord, SessionRecord, SessionWireEvent } from '@strata/domain/agents';
import { prepared } from '../sqlite/prepared';

/** One item of the activity feed (REFERENCE §16.12) as numbered: the draft `activityOf` made, its seq and log position; times in Unix seconds. */
export type ActivityRow = Omit<ActivityDraft, 'type' | 'at'> & {
  seq: number;
  type: string;
  created_at: number;
  position: number;
};

export interface ActivityQuery {
  /** only these agents' items (an agent-bound key: its own) */
  agent_ids?: readonly string[];
  types?: readonly string[];
  after?: number;
  /** Unix seconds */
  since?: number;
  /** items older than this are not shown (the retention) */
  notBefore: number;
  limit: number;
  offset: number;
}

/** One entry of a session's event list (REFERENCE §16.9), times in Unix seconds. */
/** A session event as listed: its place, and the wire event (`type` tells its `data`). */
export type SessionEventRow = SessionWireEvent & {
  seq: number;
  session_id: string;
  run_id: string | null;
  created_at: number;
};

interface StoredEventRow {
  seq: number;
  session_id: string;
  run_id: string | null;
  type: string;
  created_at: number;
  /** JSON of the data `sessionWireEvent` made for this type when the event was applied */
  data: string;
}

export interface AgentUsage {
  runs: number;
  credits: number;
  input_tokens: number;
  output_tokens: number;
}

/** Queries over the agents projection's tables (synchronous: the embedded read model). */
export class AgentsReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  private q(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  agent(org: string, id: string): AgentRecord | null {
    const row = this.q('SELECT record FROM agt_agents WHERE id = ? AND org_id = ?').get(id, org) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as AgentRecord) : null;
  }

  /** newest first; archived ones only when asked */
  agents(org: string, opts: { status?: string; includeArchived: boolean; limit: number; offset: number }): AgentRecord[] {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    if (opts.status) {
      where.push('status = ?');
      params.push(opts.status);
    } else if (!opts.includeArchived) where.push("status != 'archived'");
    const rows = this
      .q(`SELECT record FROM agt_agents WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`)
      .all(...params, opts.limit, opts.offset) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as AgentRecord);
  }

  /** name keys of the non-archived agents, but `except` */
  takenNames(org: string, except: string | null): Set<string> {
    const rows = this.q("SELECT id, name_key FROM agt_agents WHERE org_id = ? AND status != 'archived'").all(org) as { id: string; name_key: string }[];
    return new Set(rows.filter((r) => r.id !== except).map((r) => r.name_key));
  }

  liveAgentCount(org: string): number {
    return (this.q("SELECT COUNT(*) AS n FROM agt_agents WHERE org_id = ? AND status != 'archived'").get(org) as { n: number }).n;
  }

  session(org: string, id: string): SessionRecord | null {
    const row = this.q('SELECT record FROM agt_sessions WHERE id = ? AND org_id = ?').get(id, org) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as SessionRecord) : null;
  }

  sessions(org: string, opts: { agent_id?: string; status?: string; limit: number; offset: number }): SessionRecord[] {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    if (opts.agent_id) {
      where.push('agent_id = ?');
      params.push(opts.agent_id);
    }
    if (opts.status) {
      where.push('status = ?');
      params.push(opts.status);
    }
    const rows = this
      .q(`SELECT record FROM agt_sessions WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`)
      .all(...params, opts.limit, opts.offset) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as SessionRecord);
  }

  /** the agent's sessions that are not archived and not idle */
  activeSessions(org: string, agentId: string): SessionRecord[] {
    const rows = this.q("SELECT record FROM agt_sessions WHERE org_id = ? AND agent_id = ? AND status IN ('running', 'requires_action') ORDER BY created_at").all(org, agentId) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as SessionRecord);
  }

  /** sessions not archived (an agent's archive or pause reaches each) */
  openSessions(org: string, agentId: string): SessionRecord[] {
    const rows = this.q("SELECT record FROM agt_sessions WHERE org_id = ? AND agent_id = ? AND status != 'archived'").all(org, agentId) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as SessionRecord);
  }

  run(org: string, id: string): RunRecord | null {
    const row = this.q('SELECT record FROM agt_runs WHERE id = ? AND org_id = ?').get(id, org) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as RunRecord) : null;
  }

  /** the run's status alone (the column kept with its record): a waiter checks it after every commit */
  runStatus(org: string, id: string): RunRecord['status'] | null {
    return (this.q('SELECT status FROM agt_runs WHERE id = ? AND org_id = ?').pluck().get(id, org) as RunRecord['status'] | undefined) ?? null;
  }

  /** runs of the organization holding a run slot (`running` or `requires_action`) */
  runningCount(org: string): number {
    return (this.q("SELECT COUNT(*) AS n FROM agt_runs WHERE org_id = ? AND status IN ('running', 'requires_action')").get(org) as { n: number }).n;
  }

  queuedCount(org: string): number {
    return (this.q("SELECT COUNT(*) AS n FROM agt_runs WHERE org_id = ? AND status = 'queued'").get(org) as { n: number }).n;
  }

  /** runs queued at or after `since` (the usage period) */
  runsSince(org: string, since: number): number {
    return (this.q('SELECT COUNT(*) AS n FROM agt_runs WHERE org_id = ? AND queued_at >= ?').get(org, since) as { n: number }).n;
  }

  /** every run not yet ended, any organization (a restarted process resumes them) */
  unfinishedRuns(): RunRecord[] {
    const rows = this.q("SELECT record FROM agt_runs WHERE status IN ('queued', 'running', 'requires_action') ORDER BY queued_at").all() as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as RunRecord);
  }

  events(sessionId: string, opts: { after: number; types?: string[]; run_id?: string; limit: number; offset: number }): SessionEventRow[] {
    const where = ['session_id = ?', 'seq > ?'];
    const params: unknown[] = [sessionId, opts.after];
    if (opts.types?.length) {
      where.push(`type IN (${opts.types.map(() => '?').join(',')})`);
      params.push(...opts.types);
    }
    if (opts.run_id) {
      where.push('run_id = ?');
      params.push(opts.run_id);
    }
    const rows = this
      .q(`SELECT seq, session_id, run_id, type, created_at, data FROM agt_events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ? OFFSET ?`)
      .all(...params, opts.limit, opts.offset) as StoredEventRow[];
    // written by this projection from `sessionWireEvent`: the stored type and data belong together
    return rows.map((r): SessionEventRow => ({ ...r, data: JSON.parse(r.data) }) as SessionEventRow);
  }

  /**
   * Every listed event of the session after `after`, in `seq` order: what the runtime reads at
   * each step. Without LIMIT and OFFSET the same plan (the primary key's range) ran in about half
   * the time of `events`' statement (measured on a bench's data).
   */
  eventsAfter(sessionId: string, after: number): SessionEventRow[] {
    const rows = this.q('SELECT seq, session_id, run_id, type, created_at, data FROM agt_events WHERE session_id = ? AND seq > ? ORDER BY seq').all(sessionId, after) as StoredEventRow[];
    return rows.map((r): SessionEventRow => ({ ...r, data: JSON.parse(r.data) }) as SessionEventRow);
  }

  /** the seq the session's event list gave the event at this log position (live streams number what they send) */
  seqAt(sessionId: string, position: number): number | null {
    const row = this.q('SELECT seq FROM agt_events WHERE session_id = ? AND position = ?').get(sessionId, position) as { seq: number } | undefined;
    return row?.seq ?? null;
  }

  /**
   * The log position a client's last seen `seq` stands for (a stream resumes after it): the
   * position of that event, or, for 0, just before the session's first event.
   */
  positionOfSeq(sessionId: string, seq: number): number {
    const row = this.q('SELECT position FROM agt_events WHERE session_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(sessionId, seq) as { position: number } | undefined;
    if (row) return row.position;
    const first = this.q('SELECT MIN(position) AS p FROM agt_events WHERE session_id = ?').get(sessionId) as { p: number | null };
    return Math.max(0, (first.p ?? 1) - 1);
  }

  creditsOnDay(org: string, agentId: string, day: string): number {
    return (this.q('SELECT COALESCE(SUM(credits), 0) AS n FROM agt_credits WHERE org_id = ? AND agent_id = ? AND day = ?').get(org, agentId, day) as { n: number }).n;
  }

  /** the organization's agent credits in a month (`YYYY-MM`) */
  creditsInMonth(org: string, month: string): number {
    return (this.q("SELECT COALESCE(SUM(credits), 0) AS n FROM agt_credits WHERE org_id = ? AND substr(day, 1, 7) = ?").get(org, month) as { n: number }).n;
  }

  creditsOnOrgDay(org: string, day: string): number {
    return (this.q('SELECT COALESCE(SUM(credits), 0) AS n FROM agt_credits WHERE org_id = ? AND day = ?').get(org, day) as { n: number }).n;
  }

  usage(org: string, agentId: string): AgentUsage {
    const c = this.q('SELECT COALESCE(SUM(credits), 0) AS credits, COALESCE(SUM(input_tokens), 0) AS i, COALESCE(SUM(output_tokens), 0) AS o FROM agt_credits WHERE org_id = ? AND agent_id = ?').get(org, agentId) as { credits: number; i: number; o: number };
    const runs = (this.q('SELECT COUNT(*) AS n FROM agt_runs WHERE org_id = ? AND agent_id = ?').get(org, agentId) as { n: number }).n;
    return { runs, credits: c.credits, input_tokens: c.i, output_tokens: c.o };
  }

  lastRunAt(org: string, agentId: string): number | null {
    const row = this.q('SELECT MAX(started_at) AS t FROM agt_runs WHERE org_id = ? AND agent_id = ?').get(org, agentId) as { t: number | null };
    return row.t;
  }

  schedule(org: string, id: string): AgentScheduleRecord | null {
    const row = this.q('SELECT record FROM agt_schedules WHERE id = ? AND org_id = ?').get(id, org) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as AgentScheduleRecord) : null;
  }

  /** live (not deleted) schedules, newest first */
  schedules(org: string, opts: { agent_id?: string; limit: number; offset: number }): AgentScheduleRecord[] {
    const rows = (
      opts.agent_id
        ? this.q('SELECT record FROM agt_schedules WHERE org_id = ? AND agent_id = ? AND deleted = 0 ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?').all(org, opts.agent_id, opts.limit, opts.offset)
        : this.q('SELECT record FROM agt_schedules WHERE org_id = ? AND deleted = 0 ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?').all(org, opts.limit, opts.offset)
    ) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record) as AgentScheduleRecord);
  }

  liveScheduleCount(org: string): number {
    return (this.q('SELECT COUNT(*) AS n FROM agt_schedules WHERE org_id = ? AND deleted = 0').get(org) as { n: number }).n;
  }

  /** every live schedule, any organization (the scheduler's slots are checked against them at start) */
  allLiveSchedules(): AgentScheduleRecord[] {
    return (this.q('SELECT record FROM agt_schedules WHERE deleted = 0').all() as { record: string }[]).map((r) => JSON.parse(r.record) as AgentScheduleRecord);
  }

  private activityRow(r: Omit<ActivityRow, 'data'> & { data: string }): ActivityRow {
    return { ...r, data: JSON.parse(r.data) as Record<string, unknown> };
  }

  /** the feed, newest first */
  activity(org: string, q: ActivityQuery): ActivityRow[] {
    const where = ['org_id = ?', 'created_at >= ?'];
    const params: unknown[] = [org, q.notBefore];
    if (q.agent_ids) {
      if (!q.agent_ids.length) return [];
      where.push(`agent_id IN (${q.agent_ids.map(() => '?').join(',')})`);
      params.push(...q.agent_ids);
    }
    if (q.types?.length) {
      where.push(`type IN (${q.types.map(() => '?').join(',')})`);
      params.push(...q.types);
    }
    if (q.after !== undefined) {
      where.push('seq > ?');
      params.push(q.after);
    }
    if (q.since !== undefined) {
      where.push('created_at >= ?');
      params.push(q.since);
    }
    const rows = this
      .q(`SELECT * FROM agt_activity WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...params, q.limit, q.offset) as (Omit<ActivityRow, 'data'> & { data: string })[];
    return rows.map((r) => this.activityRow(r));
  }

  /** the items an event at this log position made (the live socket sends them) */
  activityAt(position: number): ActivityRow[] {
    return (this.q('SELECT * FROM agt_activity WHERE position = ? ORDER BY seq').all(position) as (Omit<ActivityRow, 'data'> & { data: string })[]).map((r) => this.activityRow(r));
  }

  /** the organization's latest item number (0: none yet) */
  lastActivitySeq(org: string): number {
    return (this.q('SELECT MAX(seq) FROM agt_activity WHERE org_id = ?').pluck().get(org) as number | null) ?? 0;
  }

  /** the log position a client's last seen item `seq` stands for (a socket replays after it) */
  activityPositionOfSeq(org: string, seq: number): number {
    const row = this.q('SELECT position FROM agt_activity WHERE org_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(org, seq) as { position: number } | undefined;
    if (row) return row.position;
    const first = this.q('SELECT MIN(position) AS p FROM agt_activity WHERE org_id = ?').get(org) as { p: number | null };
    return Math.max(0, (first.p ?? 1) - 1);
  }

  budgetNoticeSent(org: string, agentId: string, day: string): boolean {
    return this.q('SELECT 1 FROM agt_notices WHERE org_id = ? AND agent_id = ? AND day = ?').get(org, agentId, day) !== undefined;
  }
}
