import type { Database, Statement } from 'better-sqlite3';
import { RecordedEvent, isMcpEvent, McpEvent } from '@strata/domain/events';
import { PlannedProjection } from '../projection';
import { ConnectionRow, McpChange, mcpChangesOf } from './mcp-changes';
import { MCP_DDL, MCP_TABLES } from './mcp-schema';
import { prepared } from '../sqlite/prepared';

const JSON_COLUMNS = new Set(['server_info', 'auth', 'tool_approvals', 'last_error', 'def', 'changed_fields', 'previous', 'current', 'arguments', 'reasons', 'resolved_by']);
const CONNECTION_COLUMNS = new Set([
  'name', 'slug', 'url', 'status', 'protocol_version', 'server_info', 'instructions', 'auth', 'authorization_expires_at', 'approval_mode', 'tool_approvals',
  'approval_timeout_s', 'call_timeout_s', 'last_sync_at', 'last_sync_id', 'last_error', 'updated_at', 'disconnected_at', 'revision',
]);
const TOOL_COLUMNS = new Set(['def', 'hash', 'approved_hash', 'drift_state', 'status', 'affordance_uid', 'changed_at', 'last_seen_at']);

function encode(column: string, v: unknown): unknown {
  if (v === undefined) return null;
  return JSON_COLUMNS.has(column) && v !== null ? JSON.stringify(v) : v;
}

/**
 * The MCP read model on SQLite: connections, their tool registry and drift events. Small, so
 * servers mode runs the same projection in each replica's log mirror beside the accounts.
 * It only executes what `mcpChangesOf` says.
 */
export class McpProjection implements PlannedProjection {
  readonly name = 'mcp';
  readonly version = 2;
  /** nothing here reads node or edge streams (keep it so) */
  readonly replayPlanner = 'outsideGraphObjects';
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {
    db.exec(MCP_DDL);
  }

  private run(sql: string, ...params: unknown[]): void {
    prepared(this.stmts, this.db, sql).run(...params);
  }

  applyPlanned(): void {
    throw new Error('the mcp projection is only ever planned as whole events');
  }

  apply(e: RecordedEvent): void {
    if (!isMcpEvent(e)) return;
    for (const c of mcpChangesOf(e as RecordedEvent<McpEvent>)) this.execute(c);
  }

  private patch(table: string, allowed: Set<string>, where: Record<string, unknown>, set: Record<string, unknown>): void {
    const cols = Object.keys(set).filter((k) => allowed.has(k) && set[k] !== undefined);
    if (!cols.length) return;
    const wk = Object.keys(where);
    this.run(`UPDATE ${table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE ${wk.map((k) => `${k} = ?`).join(' AND ')}`, ...cols.map((c) => encode(c, set[c])), ...wk.map((k) => where[k]));
  }

  private execute(c: McpChange): void {
    switch (c.op) {
      case 'connection.insert': {
        const r = c.row as unknown as Record<string, unknown>;
        const cols = Object.keys(r);
        this.run(`INSERT OR REPLACE INTO mcp_connections (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, ...cols.map((k) => encode(k, r[k])));
        return;
      }
      case 'connection.patch':
        return this.patch('mcp_connections', CONNECTION_COLUMNS, { org_id: c.key.org_id, id: c.key.connection_id }, c.set as Record<string, unknown>);
      case 'connection.tokens': {
        const row = this.db.prepare('SELECT auth FROM mcp_connections WHERE org_id = ? AND id = ?').get(c.key.org_id, c.key.connection_id) as { auth: string } | undefined;
        if (!row) return;
        const auth = JSON.parse(row.auth) as ConnectionRow['auth'] & { oauth?: Record<string, unknown> | null };
        auth.credential_fingerprint = c.credential_fingerprint;
        if (auth.oauth) auth.oauth = { ...auth.oauth, token_expires_at: c.token_expires_at, has_refresh_token: c.has_refresh_token };
        this.run('UPDATE mcp_connections SET auth = ? WHERE org_id = ? AND id = ?', JSON.stringify(auth), c.key.org_id, c.key.connection_id);
        return;
      }
      case 'tool.put': {
        const r = c.row;
        this.run(
          `INSERT INTO mcp_tools (org_id, connection_id, name, def, hash, approved_hash, drift_state, status, affordance_uid, first_seen_at, changed_at, last_seen_at)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
           ON CONFLICT (org_id, connection_id, name) DO UPDATE SET def = excluded.def, hash = excluded.hash, approved_hash = excluded.approved_hash,
             drift_state = excluded.drift_state, status = excluded.status, affordance_uid = excluded.affordance_uid, changed_at = excluded.changed_at, last_seen_at = excluded.last_seen_at`,
          r.org_id, r.connection_id, r.name, JSON.stringify(r.def), r.hash, r.approved_hash, r.drift_state, r.status, r.affordance_uid, r.first_seen_at, r.changed_at, r.last_seen_at,
        );
        return;
      }
      case 'tool.patch':
        return this.patch('mcp_tools', TOOL_COLUMNS, { org_id: c.key.org_id, connection_id: c.key.connection_id, name: c.key.name }, c.set as Record<string, unknown>);
      case 'tools.seen':
        this.run("UPDATE mcp_tools SET last_seen_at = ? WHERE org_id = ? AND connection_id = ? AND status = 'active'", c.at, c.key.org_id, c.key.connection_id);
        return;
      case 'drift.insert': {
        const r = c.row as unknown as Record<string, unknown>;
        const cols = Object.keys(r);
        this.run(`INSERT OR REPLACE INTO mcp_drift (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, ...cols.map((k) => encode(k, r[k])));
        return;
      }
      case 'approval.insert': {
        const r = c.row as unknown as Record<string, unknown>;
        const cols = Object.keys(r).filter((k) => k !== 'arguments');
        // arguments are any JSON, null and strings included: always encoded
        this.run(`INSERT OR REPLACE INTO mcp_approvals (${[...cols, 'arguments'].join(', ')}) VALUES (${[...cols, 'arguments'].map(() => '?').join(', ')})`, ...cols.map((k) => encode(k, r[k])), JSON.stringify(r.arguments ?? null));
        return;
      }
      case 'approval.settle':
        this.run(
          "UPDATE mcp_approvals SET status = ?, resolved_at = ?, resolved_by = ?, resolution_reason = ?, scope = ? WHERE org_id = ? AND id = ? AND status = 'pending'",
          c.set.status, c.set.resolved_at, c.set.resolved_by ? JSON.stringify(c.set.resolved_by) : null, c.set.resolution_reason, c.set.scope, c.key.org_id, c.key.id,
        );
        return;
      case 'drift.acknowledge':
        for (const name of c.names)
          this.run('UPDATE mcp_drift SET acknowledged_at = ?, acknowledged_by = ? WHERE org_id = ? AND connection_id = ? AND tool_name = ? AND acknowledged_at IS NULL', c.at, c.by, c.key.org_id, c.key.connection_id, name);
        return;
    }
  }

  reset(): void {
    for (const t of MCP_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
