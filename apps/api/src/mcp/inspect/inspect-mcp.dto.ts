import type { ConnectionAuthInput } from '@strata/domain/mcp';
import { Field } from '../../platform/http/dto/field.decorator';
import { McpAuth, McpUrl } from '../mcp-fields';

/** POST /v1/mcp/inspect: a server to try before saving it. */
export class InspectMcpDto {
  @Field(McpUrl) url!: string;
  @Field(McpAuth(false)) auth?: ConnectionAuthInput;
}
