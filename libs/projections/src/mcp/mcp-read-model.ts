import type { Database, Statement } from 'better-sqlite3';
import type { ToolApprovalRecord } from '@strata/domain/mcp';
import { ConnectionRow, DriftRow, ToolRow } from './mcp-changes';
import { prepared } from '../sqlite/prepared';

const CONNECTION_JSON = ['server_info', 'auth', 'tool_approvals', 'last_error'] as const;

function parseConnection(r: Record<string, unknown>): ConnectionRow {
  const out = { ...r } as Record<string, unknown>;
  for (const k of CONNECTION_JSON) out[k] = r[k] === null || r[k] === undefined ? null : JSON.parse(r[k] as string);
  return out as unknown as ConnectionRow;
}

function parseTool(r: Record<string, unknown>): ToolRow {
  return { ...(r as unknown as ToolRow), def: JSON.parse(r.def as string) };
}

function parseDrift(r: Record<string, unknown>): DriftRow {
  return {
    ...(r as unknown as DriftRow),
    changed_fields: JSON.parse(r.changed_fields as string),
    previous: r.previous === null ? null : JSON.parse(r.previous as string),
    current: r.current === null ? null : JSON.parse(r.current as string),
  };
}

function parseApproval(r: Record<string, unknown>): ToolApprovalRecord {
  return {
    ...(r as unknown as ToolApprovalRecord),
    arguments: r.arguments === null ? null : JSON.parse(r.arguments as string),
    reasons: JSON.parse(r.reasons as string),
    resolved_by: r.resolved_by === null ? null : JSON.parse(r.resolved_by as string),
  };
}

/** Filters of the approvals list (REFERENCE §15.10). */
export interface ApprovalFilter {
  status?: string;
  agent_id?: string;
  session_id?: string;
  connection_id?: string;
  /** `mcp_tool` (default) or every kind */
  kind: 'mcp_tool' | 'all';
  limit: number;
  offset: number;
}

/** A connection with the counts its record shows. */
export interface ConnectionView extends ConnectionRow {
  tools_count: number;
  unacknowledged_drift_count: number;
}

/**
 * Reads of the MCP projection. Synchronous (SQLite, in-process on both storage modes): the
 * registry is read every time an agent run offers its tools.
 */
export class McpReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  private withCounts(row: ConnectionRow): ConnectionView {
    const t = this.stmt("SELECT count(*) AS n FROM mcp_tools WHERE org_id = ? AND connection_id = ? AND status = 'active'").get(row.org_id, row.id) as { n: number };
    const d = this.stmt('SELECT count(*) AS n FROM mcp_drift WHERE org_id = ? AND connection_id = ? AND acknowledged_at IS NULL').get(row.org_id, row.id) as { n: number };
    return { ...row, tools_count: t.n, unacknowledged_drift_count: d.n };
  }

  connection(org: string, id: string): ConnectionView | null {
    const r = this.stmt('SELECT * FROM mcp_connections WHERE org_id = ? AND id = ?').get(org, id) as Record<string, unknown> | undefined;
    return r ? this.withCounts(parseConnection(r)) : null;
  }

  /** `created_at` desc, then id. */
  connections(org: string, opts: { status?: string; includeDisconnected: boolean; limit: number; offset: number }): { items: ConnectionView[]; has_more: boolean } {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    if (opts.status) where.push('status = ?'), params.push(opts.status);
    else if (!opts.includeDisconnected) where.push("status <> 'disconnected'");
    const rows = this.db.prepare(`SELECT * FROM mcp_connections WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id ASC LIMIT ? OFFSET ?`).all(...params, opts.limit + 1, opts.offset) as Record<string, unknown>[];
    const has_more = rows.length > opts.limit;
    if (has_more) rows.pop();
    return { items: rows.map((r) => this.withCounts(parseConnection(r))), has_more };
  }

  /** Connections not disconnected: names and slugs are unique among them. */
  liveConnections(org: string): ConnectionRow[] {
    return (this.stmt("SELECT * FROM mcp_connections WHERE org_id = ? AND status <> 'disconnected' ORDER BY name, id").all(org) as Record<string, unknown>[]).map(parseConnection);
  }

  /** The connection and tool an Affordance mirrors, or null when the node mirrors no MCP tool. */
  mirroredTool(org: string, affordanceUid: string): { connection_id: string; name: string } | null {
    const r = this.stmt('SELECT connection_id, name FROM mcp_tools WHERE org_id = ? AND affordance_uid = ? LIMIT 1').get(org, affordanceUid) as { connection_id: string; name: string } | undefined;
    return r ?? null;
  }

  /** Whether any connection, in any organization, waits for an automatic re-sync (in `error`, not `auth_failed`). */
  hasResyncable(): boolean {
    return !!this.stmt("SELECT 1 FROM mcp_connections WHERE status = 'error' AND coalesce(json_extract(last_error, '$.code'), '') <> 'auth_failed' LIMIT 1").get();
  }

  /** Connections in `error`, every organization (the automatic re-sync, REFERENCE §15.3). */
  erroredConnections(): ConnectionRow[] {
    return (this.stmt("SELECT * FROM mcp_connections WHERE status = 'error' ORDER BY org_id, id").all() as Record<string, unknown>[]).map(parseConnection);
  }

  /** Connections not disconnected: what the plan's `mcp_connections` limit counts. */
  liveConnectionCount(org: string): number {
    return (this.stmt("SELECT count(*) AS n FROM mcp_connections WHERE org_id = ? AND status <> 'disconnected'").get(org) as { n: number }).n;
  }

  /** Slugs ever used in the organization (fixed once given). */
  slugs(org: string): Set<string> {
    return new Set((this.stmt('SELECT slug FROM mcp_connections WHERE org_id = ?').all(org) as { slug: string }[]).map((r) => r.slug));
  }

  tools(org: string, connectionId: string): ToolRow[] {
    return (this.stmt('SELECT * FROM mcp_tools WHERE org_id = ? AND connection_id = ? ORDER BY name').all(org, connectionId) as Record<string, unknown>[]).map(parseTool);
  }

  tool(org: string, connectionId: string, name: string): ToolRow | null {
    const r = this.stmt('SELECT * FROM mcp_tools WHERE org_id = ? AND connection_id = ? AND name = ?').get(org, connectionId, name) as Record<string, unknown> | undefined;
    return r ? parseTool(r) : null;
  }

  /** Names of tools with an unacknowledged drift event. */
  openDriftTools(org: string, connectionId: string): Set<string> {
    return new Set((this.stmt('SELECT DISTINCT tool_name FROM mcp_drift WHERE org_id = ? AND connection_id = ? AND acknowledged_at IS NULL').all(org, connectionId) as { tool_name: string }[]).map((r) => r.tool_name));
  }

  driftOfSync(org: string, connectionId: string, syncId: string): DriftRow[] {
    return (this.stmt('SELECT * FROM mcp_drift WHERE org_id = ? AND connection_id = ? AND sync_id = ? ORDER BY position, id').all(org, connectionId, syncId) as Record<string, unknown>[]).map(parseDrift);
  }

  /** Newest first; `since`: detected at or after (Unix seconds). */
  drift(org: string, opts: { connectionIds: string[] | null; since: number | null; limit: number }): { items: DriftRow[]; has_more: boolean } {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    if (opts.connectionIds) {
      if (!opts.connectionIds.length) return { items: [], has_more: false };
      where.push(`connection_id IN (${opts.connectionIds.map(() => '?').join(',')})`);
      params.push(...opts.connectionIds);
    }
    if (opts.since !== null) where.push('detected_at >= ?'), params.push(opts.since);
    const rows = this.db.prepare(`SELECT * FROM mcp_drift WHERE ${where.join(' AND ')} ORDER BY position DESC, id ASC LIMIT ?`).all(...params, opts.limit + 1) as Record<string, unknown>[];
    const has_more = rows.length > opts.limit;
    if (has_more) rows.pop();
    return { items: rows.map(parseDrift), has_more };
  }

  approval(org: string, id: string): ToolApprovalRecord | null {
    const r = this.stmt('SELECT * FROM mcp_approvals WHERE org_id = ? AND id = ?').get(org, id) as Record<string, unknown> | undefined;
    return r ? parseApproval(r) : null;
  }

  /**
   * `requested_at` desc, then id. `now`: the status filter counts a pending approval whose
   * `expires_at` has come as expired (its expiry event may not be written yet); the records
   * themselves come as stored.
   */
  approvals(org: string, f: ApprovalFilter, now: number): { items: ToolApprovalRecord[]; has_more: boolean } {
    const where = ['org_id = ?'];
    const params: unknown[] = [org];
    for (const k of ['agent_id', 'session_id', 'connection_id'] as const) if (f[k] !== undefined) where.push(`${k} = ?`), params.push(f[k]);
    if (f.status === 'pending') where.push("status = 'pending' AND expires_at > ?"), params.push(now);
    else if (f.status === 'expired') where.push("(status = 'expired' OR (status = 'pending' AND expires_at <= ?))"), params.push(now);
    else if (f.status !== undefined) where.push('status = ?'), params.push(f.status);
    if (f.kind === 'mcp_tool') where.push("kind = 'mcp_tool'");
    const rows = this.db.prepare(`SELECT * FROM mcp_approvals WHERE ${where.join(' AND ')} ORDER BY requested_at DESC, id ASC LIMIT ? OFFSET ?`).all(...params, f.limit + 1, f.offset) as Record<string, unknown>[];
    const has_more = rows.length > f.limit;
    if (has_more) rows.pop();
    return { items: rows.map(parseApproval), has_more };
  }

  /** A run's approvals, oldest first. */
  approvalsOfRun(runId: string): ToolApprovalRecord[] {
    return (this.stmt('SELECT * FROM mcp_approvals WHERE run_id = ? ORDER BY requested_at, id').all(runId) as Record<string, unknown>[]).map(parseApproval);
  }

  /** Pending approvals of an agent, or of a connection, whose `expires_at` is after `now`; oldest first. */
  pendingApprovals(org: string, by: { agent_id?: string; connection_id?: string }, now: number): ToolApprovalRecord[] {
    const [col, val] = by.agent_id !== undefined ? ['agent_id', by.agent_id] : ['connection_id', by.connection_id];
    return (this.stmt(`SELECT * FROM mcp_approvals WHERE org_id = ? AND ${col} = ? AND status = 'pending' AND expires_at > ? ORDER BY requested_at, id`).all(org, val, now) as Record<string, unknown>[]).map(parseApproval);
  }

  /** Pending approvals past their `expires_at`, every organization (the expiry sweep). */
  dueApprovals(now: number, limit: number): ToolApprovalRecord[] {
    return (this.stmt("SELECT * FROM mcp_approvals WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at, id LIMIT ?").all(now, limit) as Record<string, unknown>[]).map(parseApproval);
  }

  /** Whether an approval with `scope:"session"` lets this tool run in this session without a mode-based approval. */
  sessionApproved(sessionId: string, connectionId: string | null, toolName: string): boolean {
    const r = this.stmt("SELECT 1 FROM mcp_approvals WHERE session_id = ? AND coalesce(connection_id, '') = ? AND tool_name = ? AND status = 'approved' AND scope = 'session' LIMIT 1").get(sessionId, connectionId ?? '', toolName);
    return !!r;
  }
}
