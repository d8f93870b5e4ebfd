import { AgentInput, AgentScope, TEMPLATE_TYPES, TemplateType } from '@strata/domain/agents';
import { Field } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf, StringList, Text } from '../../platform/http/dto/field-rules';
import { Bool, ScopeField } from '../agent-fields';

/** The create fields of an agent (REFERENCE §16.3); PATCH takes the same, all optional. */
class AgentFieldsDto {
  @Field(OneOf(TEMPLATE_TYPES, { description: 'a template (GET /v1/agents/templates); default custom' })) template_type?: TemplateType;
  @Field(Text({ max: 32_000, trim: false, description: 'the agent’s instructions; default the template’s' })) instructions?: string;
  @Field(Text({ max: 32_000, trim: false, description: 'alias of instructions' })) custom_instructions?: string;
  @Field(Text({ max: 1000 })) description?: string;
  @Field(Text({ max: 200, description: 'one of STRATA_LLM_MODELS; default STRATA_LLM_MODEL' })) model?: string;
  @Field(Integer({ min: 1, max: 100_000, description: 'credits per UTC day (default 100)' })) daily_credit_budget?: number;
  @Field(Integer({ min: 1, max: 100, description: 'model calls per run (default 25)' })) max_steps?: number;
  @Field(StringList({ max: 100, description: 'built-in tool names; default the template’s' })) tools?: string[];
  @Field(ScopeField) scope?: AgentScope;
  @Field(Bool()) paused?: boolean;
}

export class CreateAgentDto extends AgentFieldsDto {
  @Field(Text({ required: true, max: 100, example: 'Weekly researcher' })) name!: string;
}

/** A PATCH: a blank name or description is refused, since omitting either keeps the old value. */
export class UpdateAgentDto extends AgentFieldsDto {
  @Field(Text({ max: 100, blank: 'missing' })) name?: string;
  @Field(Text({ max: 1000, blank: 'invalid' })) override description?: string = undefined;
}

export function agentInput(dto: CreateAgentDto | UpdateAgentDto): AgentInput {
  const out: AgentInput = {};
  if (dto.name !== undefined) out.name = dto.name;
  if (dto.template_type !== undefined) out.template_type = dto.template_type;
  const instructions = dto.instructions ?? dto.custom_instructions;
  if (instructions !== undefined) out.instructions = instructions;
  if (dto.description !== undefined) out.description = dto.description;
  if (dto.model !== undefined) out.model = dto.model;
  if (dto.daily_credit_budget !== undefined) out.daily_credit_budget = dto.daily_credit_budget;
  if (dto.max_steps !== undefined) out.max_steps = dto.max_steps;
  if (dto.tools !== undefined) out.tools = dto.tools;
  if (dto.scope !== undefined) out.scope = dto.scope;
  if (dto.paused !== undefined) out.paused = dto.paused;
  return out;
}
