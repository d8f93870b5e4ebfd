import { Field } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf, Text } from '../../platform/http/dto/field-rules';
import { Bool, Content, JsonObject } from '../agent-fields';

const METADATA_BYTES = 16 * 1024;

/** POST /v1/agents/sessions */
export class CreateSessionDto {
  @Field(Text({ required: true, max: 128, description: 'the agent the session talks to' })) agent_id!: string;
  @Field(Text({ max: 200 })) title?: string;
  @Field(JsonObject({ maxBytes: METADATA_BYTES, description: 'at most 16 KiB of JSON' })) metadata?: Record<string, unknown>;
  @Field(Content({ max: 100_000, description: 'a first message: starts a run at once' })) message?: string;
}

/** POST /v1/agents/sessions/{sid}/message */
export class SendMessageDto {
  @Field(Content({ required: true, max: 100_000 })) content!: string;
  @Field(JsonObject({ maxBytes: METADATA_BYTES })) metadata?: Record<string, unknown>;
  @Field(Bool({ description: 'answer once the run ended (200) or wait_timeout_s passed (202)' })) wait?: boolean;
  @Field(Integer({ min: 1, max: 300, description: 'default 60' })) wait_timeout_s?: number;
}

/** POST /v1/agents/sessions/{sid}/respond */
export class RespondDto {
  @Field(Content({ required: true, max: 100_000 })) response!: string;
  @Field(Text({ max: 128 })) request_id?: string;
}

export const SESSION_STATUSES = ['idle', 'running', 'requires_action', 'archived'] as const;
export const SessionStatusField = OneOf(SESSION_STATUSES);
