import type { Database, Statement } from 'better-sqlite3';
import {
  ACTIVITY_RETENTION_S,
  AgentRecord,
  AgentScheduleRecord,
  RunRecord,
  SESSION_APPROVAL_EVENT_TYPES,
  ScheduleEvent,
  SessionEvent,
  SessionRecord,
  activityOf,
  agentNameKey,
  foldRun,
  foldSchedule,
  foldSession,
  newRun,
  newSession,
  sessionWireEvent,
  utcDay,
} from '@strata/domain/agents';
import { DomainEvent, RecordedEvent, isAgentEvent, unhandled } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { AGENT_TABLES, AGENTS_DDL, dropOutdatedAgentTables } from './agents-schema';
import { prepared } from '../sqlite/prepared';

/** records, names and counters kept from one unit of work to the next, at most */
const WRITTEN_KEPT = 1024;

/** Sets `key` in one of those maps: a full one starts over, and what is not kept is read again. */
function keep<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= WRITTEN_KEPT && !map.has(key)) map.clear();
  map.set(key, value);
}

/**
 * The managed agents' read model (REFERENCE §16): agents, sessions, runs, each session's
 * numbered event list, and the agent credits per day. Sessions and runs are folded from
 * their events by the pure functions of `@strata/domain/agents` (the only place that says
 * what an event changes); this class only stores the results. Deterministic: event data and
 * positions only, so a rebuild gives the same rows.
 */
export class AgentsProjection implements EmbeddedProjection {
  readonly name = 'agents';
  readonly version = 5;
  private readonly stmts = new Map<string, Statement>();
  /**
   * Sessions and runs folded since the last `flush`, written once there: a unit of work holds
   * several events of one session (a run's start is three, its answer three more), each of
   * which read and rewrote both records.
   */
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly runs = new Map<string, RunRecord>();
  /** the log position of the last event folded into them */
  private heldUpTo = 0;
  /**
   * What this projection last wrote and has not seen undone (no rollback, no reset, no
   * position applied twice since): the next unit folds from it instead of reading and
   * parsing the rows again. A run's message and its answer are two units of one session.
   */
  private readonly writtenSessions = new Map<string, SessionRecord>();
  private readonly writtenRuns = new Map<string, RunRecord>();
  /** each organization's newest activity seq, and agent names, as written */
  private readonly activitySeq = new Map<string, number>();
  private readonly agentNames = new Map<string, string | null>();

  constructor(readonly db: Database) {
    dropOutdatedAgentTables(db);
    db.exec(AGENTS_DDL);
  }

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  private run(sql: string, ...params: unknown[]): void {
    this.stmt(sql).run(...params);
  }

  apply(e: RecordedEvent): void {
    // an event at or before what is held: the unit that held it was not committed (whoever
    // applies it again starts over), so what it folded is dropped, not written
    if (e.position > 0 && e.position <= this.heldUpTo) this.forget();
    this.heldUpTo = Math.max(e.position, 0);
    try {
      this.fold(e);
    } catch (err) {
      // the caller's transaction will not commit this event: nothing folded from it may be written later
      this.forget();
      throw err;
    }
  }

  private fold(e: RecordedEvent): void {
    this.applyActivity(e);
    if (e.type === 'CreditsConsumed') {
      const d = e.data;
      if (d.meter !== 'agent' || !d.agent_id) return;
      this.run(
        `INSERT INTO agt_credits(org_id, agent_id, day, credits, input_tokens, output_tokens) VALUES (?,?,?,?,?,?)
         ON CONFLICT(org_id, agent_id, day) DO UPDATE SET credits = credits + excluded.credits,
           input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens`,
        d.org_id, d.agent_id, utcDay(d.at), d.amount, d.input_tokens ?? 0, d.output_tokens ?? 0,
      );
      return;
    }
    if (SESSION_APPROVAL_EVENT_TYPES.has(e.type)) {
      // a tool-call approval of one of the sessions' runs (REFERENCE §16.5, §16.9)
      this.applySession(e as unknown as SessionEvent, e.position);
      return;
    }
    if (!isAgentEvent(e)) return;
    switch (e.type) {
      case 'AgentCreated':
      case 'AgentUpdated':
      case 'AgentPaused':
      case 'AgentResumed':
      case 'AgentArchived':
        this.putAgent(e.data.agent);
        return;
      case 'AgentNameClaimed':
      case 'AgentPlanClaimed':
        return; // a lock for concurrent replicas: the agents follow their own events
      case 'AgentSessionCreated':
      case 'AgentSessionArchived':
      case 'AgentMessageReceived':
      case 'AgentRunQueued':
      case 'AgentRunStarted':
      case 'AgentInferenceCompleted':
      case 'AgentMessageProduced':
      case 'AgentToolCallRequested':
      case 'AgentToolCallCompleted':
      case 'AgentInputRequested':
      case 'AgentInputProvided':
      case 'AgentRunCompleted':
      case 'AgentRunFailed':
      case 'AgentRunCancelled':
      case 'AgentBudgetExhausted':
        this.applySession(e, e.position);
        return;
      case 'AgentScheduleCreated':
      case 'AgentScheduleUpdated':
      case 'AgentScheduleDeleted':
      case 'AgentScheduleFired':
      case 'AgentScheduleSkipped':
        this.applySchedule(e);
        return;
      default:
        return unhandled(e);
    }
  }

  private putAgent(a: AgentRecord): void {
    this.run(
      `INSERT INTO agt_agents(id, org_id, name_key, status, created_at, record) VALUES (?,?,?,?,?,?)
       ON CONFLICT(id) DO UPDATE SET name_key = excluded.name_key, status = excluded.status, record = excluded.record`,
      a.id, a.org_id, agentNameKey(a.name), a.status, a.created_at, JSON.stringify(a),
    );
    keep(this.agentNames, a.id, a.name);
  }

  private session(id: string): SessionRecord | null {
    const held = this.sessions.get(id) ?? this.writtenSessions.get(id);
    if (held) return held;
    const row = this.stmt('SELECT record FROM agt_sessions WHERE id = ?').get(id) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as SessionRecord) : null;
  }

  private runRecord(id: string): RunRecord | null {
    const held = this.runs.get(id) ?? this.writtenRuns.get(id);
    if (held) return held;
    const row = this.stmt('SELECT record FROM agt_runs WHERE id = ?').get(id) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as RunRecord) : null;
  }

  private putRun(r: RunRecord): void {
    this.runs.set(r.id, r);
  }

  /** Writes the sessions and runs folded since the last flush (before the commit). */
  flush(): void {
    try {
      this.write();
    } finally {
      this.drop();
    }
  }

  private write(): void {
    for (const r of this.runs.values()) {
      this.run(
        `INSERT INTO agt_runs(id, org_id, agent_id, session_id, status, queued_at, started_at, ended_at, record) VALUES (?,?,?,?,?,?,?,?,?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, started_at = excluded.started_at, ended_at = excluded.ended_at, record = excluded.record`,
        r.id, r.org_id, r.agent_id, r.session_id, r.status, r.queued_at, r.started_at, r.ended_at, JSON.stringify(r),
      );
      keep(this.writtenRuns, r.id, r);
    }
    for (const s of this.sessions.values()) {
      this.run(
        `INSERT INTO agt_sessions(id, org_id, agent_id, status, created_at, record) VALUES (?,?,?,?,?,?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, record = excluded.record`,
        s.id, s.org_id, s.agent_id, s.status, s.created_at, JSON.stringify(s),
      );
      keep(this.writtenSessions, s.id, s);
    }
  }

  /** the transaction was rolled back: what was folded since the last flush never happened */
  rolledBack(): void {
    this.forget();
  }

  private drop(): void {
    this.sessions.clear();
    this.runs.clear();
  }

  /** what was folded or written since an unknown point may not be in the database: read it again */
  private forget(): void {
    this.drop();
    this.writtenSessions.clear();
    this.writtenRuns.clear();
    this.activitySeq.clear();
    this.agentNames.clear();
  }

  private applySession(e: SessionEvent, position: number): void {
    const d = e.data;
    let session = e.type === 'AgentSessionCreated' ? newSession(e.data) : this.session(d.session_id);
    if (!session) return;
    let run: RunRecord | null = null;
    if (e.type === 'AgentRunQueued') run = newRun(e.data);
    else if (d.run_id) {
      const before = this.runRecord(d.run_id);
      if (before) run = foldRun(before, e);
    }
    if (run) this.putRun(run);
    if (e.type === 'AgentRunCancelled') {
      // queued messages discarded with the interrupt: their runs never start
      const discarded = new Set(e.data.discarded_message_ids);
      for (const q of session.queued_runs) {
        if (!discarded.has(q.message_id)) continue;
        const r = this.runRecord(q.run_id);
        if (r) this.putRun({ ...r, status: 'cancelled', ended_at: d.at, running_since: null });
      }
    }
    if (e.type === 'AgentBudgetExhausted') this.run('INSERT OR IGNORE INTO agt_notices(org_id, agent_id, day) VALUES (?,?,?)', d.org_id, d.agent_id, e.data.day);
    const wire = sessionWireEvent(e);
    const seq = wire ? session.last_seq + 1 : session.last_seq;
    if (wire)
      this.run(
        'INSERT INTO agt_events(session_id, seq, org_id, run_id, type, created_at, position, data) VALUES (?,?,?,?,?,?,?,?)',
        d.session_id, seq, d.org_id, d.run_id, wire.type, d.at, position, JSON.stringify(wire.data),
      );
    session = foldSession(session, e, seq, run, (id) => this.runRecord(id));
    this.sessions.set(session.id, session);
  }

  private agentName(id: string): string | null {
    if (this.agentNames.has(id)) return this.agentNames.get(id)!;
    // the name alone, not the whole record parsed (instructions, tools): items of every run ask it
    const row = this.stmt("SELECT json_extract(record, '$.name') AS name FROM agt_agents WHERE id = ?").get(id) as { name: string | null } | undefined;
    if (!row) return null;
    keep(this.agentNames, id, row.name);
    return row.name;
  }

  private applySchedule(e: ScheduleEvent): void {
    const id = e.type === 'AgentScheduleCreated' || e.type === 'AgentScheduleUpdated' ? e.data.schedule.id : e.data.schedule_id;
    const row = this.stmt('SELECT record FROM agt_schedules WHERE id = ?').get(id) as { record: string } | undefined;
    const after = foldSchedule(row ? (JSON.parse(row.record) as AgentScheduleRecord) : null, e);
    if (!after) return;
    this.run(
      `INSERT INTO agt_schedules(id, org_id, agent_id, deleted, created_at, record) VALUES (?,?,?,?,?,?)
       ON CONFLICT(id) DO UPDATE SET deleted = excluded.deleted, record = excluded.record`,
      after.id, after.org_id, after.agent_id, after.deleted_at === null ? 0 : 1, after.created_at, JSON.stringify(after),
    );
  }

  /**
   * The activity feed: each item an event makes, numbered per organization in log order; items
   * older than the retention are dropped as the log moves on (their age measured on the
   * events, so a rebuild drops the same ones).
   */
  private applyActivity(e: RecordedEvent): void {
    for (const item of activityOf(e as unknown as DomainEvent)) {
      // the organization's newest item is never dropped (the retention keeps what is younger than it), so its seq is the counter
      const seq = (this.activitySeq.get(item.org_id) ?? ((this.stmt('SELECT MAX(seq) FROM agt_activity WHERE org_id = ?').pluck().get(item.org_id) as number | null) ?? 0)) + 1;
      keep(this.activitySeq, item.org_id, seq);
      const agentName = item.agent_name ?? (item.agent_id ? this.agentName(item.agent_id) : null);
      this.run(
        `INSERT INTO agt_activity(org_id, seq, type, agent_id, agent_name, session_id, run_id, schedule_id, approval_id, connection_id, summary, data, created_at, position)
         VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
        item.org_id, seq, item.type, item.agent_id, agentName, item.session_id, item.run_id, item.schedule_id, item.approval_id, item.connection_id, item.summary, JSON.stringify(item.data), item.at, e.position,
      );
      if (seq % 256 === 0) this.run('DELETE FROM agt_activity WHERE org_id = ? AND created_at < ?', item.org_id, item.at - ACTIVITY_RETENTION_S);
    }
  }

  reset(): void {
    this.forget();
    this.heldUpTo = 0;
    for (const t of AGENT_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
