import { ApiProperty } from '@nestjs/swagger';
import { APPROVAL_MODES, AUTH_TYPES } from '@strata/domain/mcp';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { Bool, Int, Iso, Json, ListOf, Nested, NullableIso, NullableStr, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

const STATUSES = ['active', 'pending_auth', 'error', 'disconnected'] as const;
const TOOL_FIELDS = ['title', 'description', 'input_schema', 'output_schema', 'annotations'] as const;

class ServerInfo {
  @Str()
  name!: string;
  @ApiProperty({ type: String, required: false })
  title?: string;
  @Str()
  version!: string;
}

class OAuthState {
  @Str()
  authorization_server!: string;
  @Str()
  client_id!: string;
  @OneOf(['preregistered', 'client_metadata_document', 'dynamic'])
  registration!: string;
  @Strings()
  scopes!: string[];
  @NullableIso()
  token_expires_at!: string | null;
  @Bool()
  has_refresh_token!: boolean;
}

class ConnectionAuth {
  @OneOf(AUTH_TYPES)
  type!: string;
  @Bool('credentials are stored')
  configured!: boolean;
  @NullableStr('"…" + the last 4 characters of a bearer token of 16 or more')
  hint!: string | null;
  @Strings('headers auth: the header names, never their values')
  header_names!: string[];
  @ApiProperty({ type: () => OAuthState, nullable: true })
  oauth!: OAuthState | null;
}

class PendingAuthorization {
  @Str('where to send the user')
  url!: string;
  @Iso()
  expires_at!: string;
}

class ConnectionError {
  @Str()
  code!: string;
  @Str()
  message!: string;
  @Iso()
  at!: string;
}

/** An MCP connection (REFERENCE §15.2): never a secret */
export class McpConnectionRecord {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  name!: string;
  @Str('fixed at creation')
  slug!: string;
  @Str()
  url!: string;
  @OneOf(['streamable_http'])
  transport!: string;
  @OneOf(STATUSES)
  status!: string;
  @NullableStr()
  protocol_version!: string | null;
  @ApiProperty({ type: () => ServerInfo, nullable: true })
  server_info!: ServerInfo | null;
  @NullableStr()
  instructions!: string | null;
  @Nested(() => ConnectionAuth)
  auth!: ConnectionAuth;
  @ApiProperty({ type: () => PendingAuthorization, nullable: true, description: 'only while an OAuth authorization is pending' })
  authorization!: PendingAuthorization | null;
  @OneOf(APPROVAL_MODES)
  approval_mode!: string;
  @ApiProperty({ type: 'object', additionalProperties: { enum: ['always', 'never'] }, description: 'per_tool: {tool: always|never}' } as ApiPropertyOptions)
  tool_approvals!: Record<string, 'always' | 'never'>;
  @Int()
  approval_timeout_s!: number;
  @Int()
  call_timeout_s!: number;
  @Int()
  tools_count!: number;
  @Int()
  unacknowledged_drift_count!: number;
  @NullableIso()
  last_sync_at!: string | null;
  @NullableStr()
  last_sync_id!: string | null;
  @ApiProperty({ type: () => ConnectionError, nullable: true })
  last_error!: ConnectionError | null;
  @Str('user id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @NullableIso()
  disconnected_at!: string | null;
}

export class McpConnectionPage extends OffsetPage {
  @ListOf(() => McpConnectionRecord)
  items!: McpConnectionRecord[];
}

/** A tool's hashed members as a sync saw them */
export class McpToolFields {
  @NullableStr()
  title!: string | null;
  @NullableStr()
  description!: string | null;
  @Json('JSON Schema', true)
  input_schema!: Record<string, unknown> | null;
  @Json('JSON Schema', true)
  output_schema!: Record<string, unknown> | null;
  @Json('MCP tool annotations', true)
  annotations!: Record<string, unknown> | null;
}

/** A tool added, changed or removed between syncs (REFERENCE §15.8) */
export class McpDriftEvent {
  @Str()
  id!: string;
  @Str()
  connection_id!: string;
  @Str()
  tool_name!: string;
  @OneOf(['added', 'changed', 'removed'])
  kind!: string;
  @ApiProperty({ enum: [...TOOL_FIELDS], isArray: true, description: 'changed: which members differ' })
  changed_fields!: string[];
  @NullableStr()
  previous_hash!: string | null;
  @NullableStr('null when removed')
  hash!: string | null;
  @ApiProperty({ type: () => McpToolFields, nullable: true })
  previous!: McpToolFields | null;
  @ApiProperty({ type: () => McpToolFields, nullable: true })
  current!: McpToolFields | null;
  @Str()
  sync_id!: string;
  @Iso()
  detected_at!: string;
  @NullableIso()
  acknowledged_at!: string | null;
  @NullableStr('user id')
  acknowledged_by!: string | null;
}

class SyncRecord {
  @Str()
  id!: string;
  @Iso()
  started_at!: string;
  @Iso()
  completed_at!: string;
  @Int()
  tools_count!: number;
  @Strings('tool names')
  added!: string[];
  @Strings()
  changed!: string[];
  @Strings()
  removed!: string[];
  @ListOf(() => McpDriftEvent)
  drift_events!: McpDriftEvent[];
}

/** `POST …/{id}/sync` */
export class McpSyncResponse {
  @Nested(() => McpConnectionRecord)
  connection!: McpConnectionRecord;
  @Nested(() => SyncRecord)
  sync!: SyncRecord;
}

export class McpConnectionDisconnected {
  @Str()
  id!: string;
  @OneOf(['disconnected'])
  status!: string;
  @Iso()
  disconnected_at!: string;
}
