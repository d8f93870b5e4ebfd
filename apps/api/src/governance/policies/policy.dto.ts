import { POLICY_EFFECTS, POLICY_LIMITS, POLICY_STATUSES, PolicyEffect, PolicyStatus } from '@strata/domain/governance';
import { Field, FieldRule } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf, Text } from '../../platform/http/dto/field-rules';

/** `match` is validated by the handler against routes, types and the graph: a bad one is 422 invalid_policy. */
function MatchField(required: boolean): FieldRule<unknown> {
  return {
    required,
    check: () => null,
    openapi: {
      type: 'object',
      additionalProperties: true,
      description: 'conditions, all of which must hold: principals, routes, tools, node_types, layers, min_classification, spaces, projects',
      example: { routes: ['POST /node'], node_types: ['Claim'], min_classification: 'confidential' },
    },
  };
}

const Priority = Integer({ min: POLICY_LIMITS.priority[0], max: POLICY_LIMITS.priority[1], description: 'higher decides first; default 0' });

/** POST /v1/governance/policies */
export class CreatePolicyDto {
  @Field(Text({ required: true, max: POLICY_LIMITS.name })) name!: string;
  @Field(Text({ max: POLICY_LIMITS.description })) description?: string;
  @Field(OneOf(POLICY_EFFECTS, { required: true })) effect!: PolicyEffect;
  @Field(MatchField(true)) match!: unknown;
  @Field(Priority) priority?: number;
  @Field(OneOf(['draft', 'shadow', 'published'] as const, { description: 'default draft' })) status?: 'draft' | 'shadow' | 'published';
}

/** PATCH /v1/governance/policies/{policy_uid} */
export class PatchPolicyDto {
  @Field(OneOf(POLICY_STATUSES)) status?: PolicyStatus;
  @Field(Text({ max: POLICY_LIMITS.status_reason })) status_reason?: string;
  @Field(Text({ max: POLICY_LIMITS.name, blank: 'missing' })) name?: string;
  @Field(Text({ max: POLICY_LIMITS.description, blank: 'invalid' })) description?: string;
  @Field(OneOf(POLICY_EFFECTS)) effect?: PolicyEffect;
  @Field(MatchField(false)) match?: unknown;
  @Field(Priority) priority?: number;
  @Field(Integer({ min: 1, description: 'the version the change is based on (409 version_conflict otherwise)' })) expected_version?: number;
}
