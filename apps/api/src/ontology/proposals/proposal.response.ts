import { ApiProperty } from '@nestjs/swagger';
import { PROPOSAL_TYPES, REVIEW_STATUSES } from '@strata/domain/ontology';
import type { ProposalType, ReviewStatus, RiskLevel } from '@strata/domain/ontology';
import { Bool, Int, Iso, ListOf, Nested, NullableIso, NullableStr, Num, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

const RISK_LEVELS = ['low', 'medium', 'high'] as const;

/** What an object proposal would write: the object's authored content */
export class ProposedObjectResponse {
  @Str()
  canonical_name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'field values by name' })
  fields!: Record<string, unknown>;
  @Strings()
  aliases!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'identity field values by name' })
  identity!: Record<string, unknown>;
  @Num()
  confidence!: number;
}

/** A proposal's diff */
export class ProposalChangesResponse {
  // the domain record keeps adds untyped (unknown[]); every proposal the service writes adds ProposedObjects
  @ListOf(() => ProposedObjectResponse, 'objects to create or link')
  adds!: unknown[];
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'changes to existing objects' } as never)
  updates!: unknown[];
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } } as never)
  removes!: unknown[];
}

/** A proposal record (REFERENCE §11) */
export class ProposalResponse {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  schema_id!: string;
  @OneOf(PROPOSAL_TYPES)
  proposal_type!: ProposalType;
  @Str('object type name')
  object_type!: string;
  @NullableStr()
  extract_job_id!: string | null;
  @NullableStr()
  proposed_by_agent_id!: string | null;
  @Strings('Documents or Chunks the proposal was extracted from')
  source_uids!: string[];
  @Strings()
  source_scope_ids!: string[];
  @Nested(() => ProposalChangesResponse)
  changes_json!: ProposalChangesResponse;
  @NullableStr('the extraction’s reason, or the reviewer’s on rejection')
  rationale!: string | null;
  @Num()
  confidence!: number;
  @OneOf(RISK_LEVELS)
  risk_level!: RiskLevel;
  @OneOf(REVIEW_STATUSES)
  review_status!: ReviewStatus;
  @NullableStr('the Approval node of a high-risk proposal')
  approval_uid!: string | null;
  @NullableStr('the domain object once applied')
  proposed_node_uid!: string | null;
  @NullableStr()
  applied_job_id!: string | null;
  @NullableStr('why the last apply failed')
  applied_error!: string | null;
  @Int()
  apply_attempt_count!: number;
  @NullableStr()
  edited_by!: string | null;
  @NullableIso()
  edited_at!: string | null;
  @Nested(() => ProposalChangesResponse, 'changes_json before the first edit; null when never edited', true)
  original_snapshot!: ProposalChangesResponse | null;
  @Bool('an apply failed on validation: edit or reject it')
  requires_manual_resolution!: boolean;
  @Iso()
  created_at!: string;
  @NullableIso()
  resolved_at!: string | null;
  @NullableStr()
  resolved_by!: string | null;
}

/** `GET /v1/ontology/proposals`, created_at descending */
export class ProposalPage extends OffsetPage {
  @ListOf(() => ProposalResponse)
  items!: ProposalResponse[];
}

export class BatchItemError {
  @Str('REFERENCE error code (not_found, invalid_transition…)')
  code!: string;
  @Str()
  message!: string;
}

export class BatchItemResult {
  @Str()
  id!: string;
  @OneOf(REVIEW_STATUSES, 'the proposal’s status after the call; null when it was not found', true)
  review_status!: ReviewStatus | null;
  @ApiProperty({ type: () => BatchItemError, required: false, description: 'present when this proposal failed' })
  error?: BatchItemError;
}

/** `POST …/batch-approve`, `…/batch-reject`: each proposal on its own, in input order */
export class BatchReviewResponse {
  @ListOf(() => BatchItemResult)
  results!: BatchItemResult[];
  @Int()
  succeeded!: number;
  @Int()
  failed!: number;
}
