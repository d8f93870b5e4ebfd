import { ApiProperty } from '@nestjs/swagger';
import { Bool, Int, Iso, Json, ListOf, Nested, NullableInt, NullableIso, NullableStr, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

const RUN_STATUSES = ['queued', 'running', 'requires_action', 'completed', 'failed', 'cancelled'] as const;

class Principal {
  @OneOf(['user', 'api_key', 'agent', 'schedule', 'system'])
  kind!: string;
  @Str()
  id!: string;
}

class RunTrigger {
  @OneOf(['message', 'schedule'])
  kind!: string;
  @Str()
  message_id!: string;
}

class TokenUsage {
  @Int()
  input_tokens!: number;
  @Int()
  output_tokens!: number;
}

class RunError {
  @Str()
  code!: string;
  @Str()
  message!: string;
}

/** A run of a session (REFERENCE §16.6) */
export class AgentRunRecord {
  @Str()
  id!: string;
  @Str()
  session_id!: string;
  @OneOf(RUN_STATUSES)
  status!: string;
  @Nested(() => RunTrigger)
  trigger!: RunTrigger;
  @Str()
  model!: string;
  @Int('model calls')
  steps!: number;
  @Int()
  tool_calls!: number;
  @Nested(() => TokenUsage)
  usage!: TokenUsage;
  @Int()
  credits!: number;
  @OneOf(['end_turn', 'max_tokens'], undefined, true)
  stop_reason!: string | null;
  @ApiProperty({ type: () => RunError, nullable: true })
  error!: RunError | null;
  @NullableStr('its Trace node, once started')
  trace_uid!: string | null;
  @Iso()
  queued_at!: string;
  @NullableIso()
  started_at!: string | null;
  @NullableIso()
  ended_at!: string | null;
}

/** A question the model asked through ask_user */
class InputRequest {
  @Str()
  request_id!: string;
  @Str()
  run_id!: string;
  @Str()
  prompt!: string;
  @ApiProperty({ type: [String], nullable: true })
  options!: string[] | null;
  @Iso()
  requested_at!: string;
  @Iso('24 h after the request')
  expires_at!: string;
}

class SessionUsage extends TokenUsage {
  @Int()
  credits!: number;
}

/** A session of a managed agent (REFERENCE §16.6) */
export class AgentSessionResponse {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  agent_id!: string;
  @NullableStr()
  title!: string | null;
  @OneOf(['idle', 'running', 'requires_action', 'archived'])
  status!: string;
  @Str('its Session node')
  node_uid!: string;
  @OneOf(['api', 'schedule'])
  source!: string;
  @NullableStr()
  schedule_id!: string | null;
  @Json('as given at creation', true)
  metadata!: Record<string, unknown> | null;
  @Nested(() => Principal)
  created_by!: Principal;
  @ApiProperty({ type: () => AgentRunRecord, nullable: true })
  current_run!: AgentRunRecord | null;
  @ApiProperty({ type: () => AgentRunRecord, nullable: true })
  last_run!: AgentRunRecord | null;
  @Int()
  queued_messages!: number;
  @Int()
  pending_approvals!: number;
  @ApiProperty({ type: () => InputRequest, nullable: true })
  pending_input!: InputRequest | null;
  @Nested(() => SessionUsage)
  usage!: SessionUsage;
  @Int()
  message_count!: number;
  @Int()
  last_seq!: number;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @Iso()
  last_activity_at!: string;
  @NullableIso()
  archived_at!: string | null;
}

/** `POST /v1/agents/sessions`: with a first message, its ids */
export class CreatedSessionResponse extends AgentSessionResponse {
  @ApiProperty({ type: String, required: false, description: 'with message' })
  message_id?: string;
  @ApiProperty({ type: String, required: false, description: 'with message' })
  run_id?: string;
}

export class AgentSessionPage extends OffsetPage {
  @ListOf(() => AgentSessionResponse)
  items!: AgentSessionResponse[];
}

/** 202: the message is queued */
export class MessageQueuedResponse {
  @Str()
  message_id!: string;
  @Str()
  session_id!: string;
  @Str()
  run_id!: string;
  @OneOf(RUN_STATUSES)
  run_status!: string;
  @Int('0: runs first')
  queue_position!: number;
}

/** 200 with wait, once the run ended */
export class MessageAnsweredResponse {
  @Str()
  message_id!: string;
  @Str()
  session_id!: string;
  @Str()
  run_id!: string;
  @Nested(() => AgentRunRecord)
  run!: AgentRunRecord;
  @NullableStr('the assistant’s last message')
  output!: string | null;
}

export class InterruptResponse {
  @Str()
  session_id!: string;
  @Bool('false when nothing was running')
  interrupted!: boolean;
  @NullableStr()
  run_id!: string | null;
  @Strings('queued messages discarded')
  discarded_message_ids!: string[];
}

export class PendingInputResponse {
  @Bool()
  pending!: boolean;
  @ApiProperty({ type: () => InputRequest, nullable: true })
  request!: InputRequest | null;
}

export class RespondResponse {
  @Str()
  request_id!: string;
  @Str()
  run_id!: string;
  @OneOf(RUN_STATUSES)
  run_status!: string;
}

/** A session event (REFERENCE §16.9) */
class SessionEventRecord {
  @Int('from 1, in log order')
  seq!: number;
  @Str()
  session_id!: string;
  @NullableStr()
  run_id!: string | null;
  @OneOf(['session.created', 'message.user', 'run.started', 'inference.completed', 'message.assistant', 'tool.call', 'approval.requested', 'approval.resolved', 'tool.result', 'input.requested', 'input.provided', 'run.completed', 'run.failed', 'run.cancelled', 'budget.exhausted', 'session.archived'])
  type!: string;
  @Iso()
  created_at!: string;
  @Json('by type')
  data!: Record<string, unknown>;
}

export class SessionEventPage extends OffsetPage {
  @ListOf(() => SessionEventRecord, 'seq ascending')
  items!: SessionEventRecord[];
}
