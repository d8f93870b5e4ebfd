import { McpApprovalMode, McpAuthView, modeRequiresApproval, modelToolName } from '@strata/domain/mcp';
import { ConnectionView } from '@strata/projections/mcp/mcp-read-model';
import { DriftRow, ToolRow } from '@strata/projections/mcp/mcp-changes';
import type { SyncSummary } from '@strata/mcp/connections/connection-sync.service';

/** Unix seconds as ISO 8601 (REFERENCE §15: `/v1/mcp/*` records use ISO times). */
export function iso(s: number | null | undefined): string | null {
  return s === null || s === undefined ? null : new Date(Math.round(s * 1000)).toISOString();
}

/**
 * The §15.2 record: the auth view without its fingerprint, never a secret. `authorization`
 * only while the authorization is pending: from its `expires_at` (`now`, the injected clock's
 * seconds) the callback refuses it, so it is shown no more.
 */
export function presentConnection(c: ConnectionView, authorizationUrl: string | null, now: number) {
  const auth = c.auth as unknown as McpAuthView;
  const oauth = auth.oauth ? { ...auth.oauth, token_expires_at: iso(auth.oauth.token_expires_at) } : null;
  return {
    id: c.id,
    org_id: c.org_id,
    name: c.name,
    slug: c.slug,
    url: c.url,
    transport: 'streamable_http',
    status: c.status,
    protocol_version: c.protocol_version,
    server_info: c.server_info,
    instructions: c.instructions,
    auth: { type: auth.type, configured: auth.configured, hint: auth.hint, header_names: auth.header_names, oauth },
    authorization: c.status !== 'disconnected' && c.authorization_expires_at !== null && now < c.authorization_expires_at && authorizationUrl ? { url: authorizationUrl, expires_at: iso(c.authorization_expires_at) } : null,
    approval_mode: c.approval_mode,
    tool_approvals: c.tool_approvals,
    approval_timeout_s: c.approval_timeout_s,
    call_timeout_s: c.call_timeout_s,
    tools_count: c.tools_count,
    unacknowledged_drift_count: c.unacknowledged_drift_count,
    last_sync_at: iso(c.last_sync_at),
    last_sync_id: c.last_sync_id,
    last_error: c.last_error ? { code: c.last_error.code, message: c.last_error.message, at: iso(c.last_error.at) } : null,
    created_by: c.created_by,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    disconnected_at: iso(c.disconnected_at),
  };
}

export function presentDrift(d: Pick<DriftRow, 'id' | 'connection_id' | 'tool_name' | 'kind' | 'changed_fields' | 'previous_hash' | 'hash' | 'previous' | 'current' | 'sync_id' | 'detected_at'> & { acknowledged_at?: number | null; acknowledged_by?: string | null }) {
  return {
    id: d.id,
    connection_id: d.connection_id,
    tool_name: d.tool_name,
    kind: d.kind,
    changed_fields: d.changed_fields,
    previous_hash: d.previous_hash,
    hash: d.hash,
    previous: d.previous,
    current: d.current,
    sync_id: d.sync_id,
    detected_at: iso(d.detected_at),
    acknowledged_at: iso(d.acknowledged_at ?? null),
    acknowledged_by: d.acknowledged_by ?? null,
  };
}

export function presentSync(s: SyncSummary) {
  return {
    id: s.id,
    started_at: iso(s.started_at),
    completed_at: iso(s.completed_at),
    tools_count: s.tools_count,
    added: s.added,
    changed: s.changed,
    removed: s.removed,
    drift_events: s.drift_events.map((d) => presentDrift(d)),
  };
}

/** A RegistryTool (§15.8). */
export function presentRegistryTool(c: ConnectionView, t: ToolRow) {
  const approvals = c.tool_approvals as Record<string, 'always' | 'never'>;
  return {
    connection_id: c.id,
    connection_name: c.name,
    name: t.name,
    model_name: modelToolName(c.slug, t.name),
    title: t.def.title,
    description: t.def.description,
    input_schema: t.def.input_schema,
    output_schema: t.def.output_schema,
    annotations: t.def.annotations,
    hash: t.hash,
    approved_hash: t.approved_hash,
    drift_state: t.drift_state,
    status: t.status,
    approval: approvals[t.name] ?? null,
    requires_approval: modeRequiresApproval(c.approval_mode as McpApprovalMode, approvals, t),
    warnings: t.def.warnings,
    affordance_uid: t.affordance_uid,
    first_seen_at: iso(t.first_seen_at),
    changed_at: iso(t.changed_at),
    last_seen_at: iso(t.last_seen_at),
  };
}
