import { ApiProperty } from '@nestjs/swagger';
import { Bool, Iso, ListOf, NullableStr, OneOf, Str } from '../../platform/http/responses/response-fields';
import { McpDriftEvent, McpToolFields } from '../connections/connection.response';

/** A tool of a connection (REFERENCE §15.8) */
class RegistryTool extends McpToolFields {
  @Str()
  connection_id!: string;
  @Str()
  connection_name!: string;
  @Str()
  name!: string;
  @Str('mcp__<slug>__<name>')
  model_name!: string;
  @Str()
  hash!: string;
  @NullableStr('the hash last acknowledged; null for a tool added since, until acknowledged')
  approved_hash!: string | null;
  @OneOf(['clean', 'unacknowledged'])
  drift_state!: string;
  @OneOf(['active', 'removed'])
  status!: string;
  @OneOf(['always', 'never'], 'per_tool setting', true)
  approval!: string | null;
  @Bool('the approval mode’s verdict now, before policies')
  requires_approval!: boolean;
  @ApiProperty({ enum: ['hidden_instructions', 'invisible_characters', 'long_description', 'name_collision', 'schema_too_large', 'invalid_name'], isArray: true, description: 'screening warning codes' })
  warnings!: string[];
  @Str()
  affordance_uid!: string;
  @Iso()
  first_seen_at!: string;
  @Iso()
  changed_at!: string;
  @Iso()
  last_seen_at!: string;
}

/** `GET /v1/mcp/registry` */
export class RegistryResponse {
  @ListOf(() => RegistryTool, 'by connection name, then tool name')
  tools!: RegistryTool[];
  @ListOf(() => McpDriftEvent, 'newest first')
  drift_events!: McpDriftEvent[];
  @Bool()
  drift_has_more!: boolean;
}
