import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { EXCEPTION_KINDS, EXCEPTION_STATUSES, SEVERITIES } from '@strata/domain/knowledge-health';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { Bool, Int, Iso, Json, ListOf, Nested, NullableIso, NullableNum, NullableStr, Num, OneOf, Str, Strings } from '../platform/http/responses/response-fields';

const STATES = ['healthy', 'attention', 'critical'] as const;
const METRICS = ['evidence_completeness', 'high_severity_exceptions', 'exceptions', 'chunk_failure_rate'] as const;

class SummaryWindow {
  @Int()
  days!: number;
  @Iso('inclusive')
  since!: string;
  @Iso('exclusive: the time of the read')
  until!: string;
}

/** A metric that reaches `attention` (REFERENCE §14.1) */
class HealthReason {
  @OneOf(METRICS)
  metric!: string;
  @Num()
  value!: number;
  @Num('the threshold of the level reached')
  threshold!: number;
  @OneOf(['attention', 'critical'])
  level!: string;
}

class EvidenceCompleteness {
  @NullableNum('(evidenced + 0.5 × sourced_only) / claims, 4 decimals; null without Claims')
  value!: number | null;
  @Int('live Claims')
  claims!: number;
  @Int()
  evidenced!: number;
  @Int()
  sourced_only!: number;
  @Int()
  unsupported!: number;
}

/** live objects now */
class HealthCounts {
  @Int()
  nodes!: number;
  @Int()
  edges!: number;
  @Int()
  claims!: number;
  @Int()
  evidence!: number;
  @Int()
  documents!: number;
  @Int()
  chunks!: number;
  @Int()
  projects!: number;
  @Int()
  spaces!: number;
}

/** what happened in the window, by the events' times */
class HealthActivity {
  @Int()
  nodes_created!: number;
  @Int()
  edges_created!: number;
  @Int()
  documents_created!: number;
  @Int()
  chunks_completed!: number;
  @Int()
  chunks_failed!: number;
  @Int()
  exceptions_opened!: number;
  @Int()
  exceptions_resolved!: number;
}

class KindTotals {
  @OneOf(SEVERITIES)
  severity!: string;
  @Int()
  open!: number;
  @Int()
  acknowledged!: number;
}

@ApiExtraModels(KindTotals)
class ExceptionTotals {
  @Int()
  open!: number;
  @Int()
  acknowledged!: number;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(KindTotals) }, description: 'every exception kind' } as ApiPropertyOptions)
  by_kind!: Record<string, KindTotals>;
}

/** `GET /v1/knowledge-health/summary` (REFERENCE §14.1) */
export class HealthSummaryResponse {
  @Iso()
  generated_at!: string;
  @Nested(() => SummaryWindow)
  window!: SummaryWindow;
  @OneOf(STATES, 'the worst level any metric reaches')
  state!: string;
  @ListOf(() => HealthReason)
  reasons!: HealthReason[];
  @Nested(() => EvidenceCompleteness)
  evidence_completeness!: EvidenceCompleteness;
  @Nested(() => HealthCounts)
  counts!: HealthCounts;
  @Nested(() => HealthActivity)
  activity!: HealthActivity;
  @Nested(() => ExceptionTotals)
  exceptions!: ExceptionTotals;
}

class ExceptionSubject {
  @Str()
  uid!: string;
  @OneOf(['node', 'edge', 'schedule'])
  type!: string;
  @NullableStr()
  node_type!: string | null;
  @NullableStr()
  edge_type!: string | null;
  @NullableStr()
  label!: string | null;
}

/** A Knowledge Health exception (REFERENCE §14.2) */
export class HealthExceptionResponse {
  @Str('deterministic: the same kind and subject give the same id')
  id!: string;
  @OneOf(EXCEPTION_KINDS)
  kind!: string;
  @OneOf(SEVERITIES)
  severity!: string;
  @OneOf(EXCEPTION_STATUSES)
  status!: string;
  @Nested(() => ExceptionSubject)
  subject!: ExceptionSubject;
  @Json('by kind: {from_uid, to_uid, similarity?}, {requested_at, deadline_at}, {stale_premises}, {document_uid}, {processing_status}, {current_version}, {last_errors}, or {}')
  detail!: Record<string, unknown>;
  @Strings('Projects whose admitted set holds the subject')
  project_uids!: string[];
  @Strings('spaces(subject)')
  space_uids!: string[];
  @Strings('the acknowledging Tasks')
  task_uids!: string[];
  @Iso()
  first_detected_at!: string;
  @Iso()
  last_changed_at!: string;
  @NullableIso()
  acknowledged_at!: string | null;
  @NullableStr('the principal that created the earliest acknowledging Task')
  acknowledged_by!: string | null;
  @NullableIso()
  resolved_at!: string | null;
  @OneOf(['condition_cleared', 'subject_removed'], undefined, true)
  resolution!: string | null;
  @Int()
  reopen_count!: number;
}

class ExceptionGroup {
  @OneOf(EXCEPTION_KINDS)
  kind!: string;
  @OneOf(SEVERITIES)
  severity!: string;
  @Int()
  open!: number;
  @Int()
  acknowledged!: number;
  @Int()
  resolved!: number;
}

/** `GET /v1/knowledge-health/exceptions` (REFERENCE §14.3) */
export class HealthExceptionPage {
  @ListOf(() => HealthExceptionResponse)
  items!: HealthExceptionResponse[];
  @Bool()
  has_more!: boolean;
  @Int()
  limit!: number;
  @NullableStr('opaque, bound to the filters; null on the last page')
  next_cursor!: string | null;
  @ListOf(() => ExceptionGroup, 'per kind with a non-zero count, under every filter except kind and status')
  groups!: ExceptionGroup[];
}
