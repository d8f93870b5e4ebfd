import type { Database, Statement } from 'better-sqlite3';
import { ConnectionRow, DriftRow, ToolRow } from './mcp-changes';

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
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
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
}
