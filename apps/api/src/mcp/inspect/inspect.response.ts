import { ApiProperty } from '@nestjs/swagger';
import { Bool, Int, Json, ListOf, Nested, NullableStr, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';
import { McpToolFields } from '../connections/connection.response';

const WARNING_CODES = ['hidden_instructions', 'invisible_characters', 'long_description', 'name_collision', 'schema_too_large', 'invalid_name'] as const;

/** What auth_discovery found, whatever credentials were sent */
class InspectAuth {
  @Bool()
  required!: boolean;
  @OneOf(['none', 'bearer', 'oauth'])
  type!: string;
  @ApiProperty({ type: Boolean, nullable: true, description: 'null when no credentials were tried' })
  credentials_accepted!: boolean | null;
  @NullableStr()
  resource_metadata_url!: string | null;
  @NullableStr()
  resource!: string | null;
  @Strings()
  authorization_servers!: string[];
  @Strings()
  scopes_supported!: string[];
  @Strings('the registration methods possible')
  registration!: string[];
  @ApiProperty({ type: Boolean, nullable: true })
  pkce_s256!: boolean | null;
}

/** A tool as inspect read it: the members a sync hashes, with its name, hash and warnings */
class InspectedTool extends McpToolFields {
  @Str()
  name!: string;
  @Str('"sha256:" + hex of the JCS canonical tool')
  hash!: string;
  @ApiProperty({ enum: [...WARNING_CODES], isArray: true })
  warnings!: string[];
}

class InspectCheck {
  @OneOf(['reachable', 'auth_discovery', 'protocol', 'tools'])
  name!: string;
  @OneOf(['pass', 'warn', 'fail', 'skip'])
  status!: string;
  @Str()
  detail!: string;
}

export class ToolWarningRecord {
  @OneOf(WARNING_CODES)
  code!: string;
  @Str()
  tool!: string;
  @Str()
  message!: string;
}

/** `POST /v1/mcp/inspect` (REFERENCE §15.6): 200 also when checks fail */
export class InspectResponse {
  @Bool('no check failed')
  ok!: boolean;
  @Str()
  url!: string;
  @Int()
  duration_ms!: number;
  @NullableStr()
  protocol_version!: string | null;
  @Json('{name, title?, version}', true)
  server_info!: Record<string, unknown> | null;
  @Json('as the server declared them', true)
  capabilities!: Record<string, unknown> | null;
  @NullableStr()
  instructions!: string | null;
  @Nested(() => InspectAuth)
  auth!: InspectAuth;
  @ListOf(() => InspectedTool)
  tools!: InspectedTool[];
  @ListOf(() => InspectCheck)
  checks!: InspectCheck[];
  @ListOf(() => ToolWarningRecord)
  warnings!: ToolWarningRecord[];
}
