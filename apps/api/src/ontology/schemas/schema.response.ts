import { ApiProperty } from '@nestjs/swagger';
import { SCHEMA_STATUSES, SEMANTIC_VALIDATION_MODES } from '@strata/domain/ontology';
import type { ProposeStatus, SchemaStatus, SemanticValidationMode } from '@strata/domain/ontology';
import { Int, Iso, ListOf, Nested, NullableIso, NullableStr, Num, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';
import { ObjectTypeResponse, RelationTypeResponse } from '../types/type.response';

const PROPOSE_STATUSES = ['pending', 'running', 'ready', 'failed'] as const;

/** A schema record (REFERENCE §11) */
export class OntologySchemaResponse {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  name!: string;
  @NullableStr()
  description!: string | null;
  @OneOf(SCHEMA_STATUSES)
  status!: SchemaStatus;
  @Int()
  version!: number;
  @OneOf(PROPOSE_STATUSES, 'state of the propose-schema job that fills a proposed draft; null for a schema created by hand', true)
  propose_status!: ProposeStatus | null;
  @NullableStr()
  propose_job_id!: string | null;
  @NullableStr()
  propose_error!: string | null;
  @OneOf(SEMANTIC_VALIDATION_MODES, '"off" unless set')
  semantic_validation_mode!: SemanticValidationMode;
  @Str('principal id; "system" for the propose-schema job')
  created_by!: string;
  @Str('principal id; "system" for the propose-schema job')
  updated_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @NullableIso()
  activated_at!: string | null;
  @NullableIso()
  archived_at!: string | null;
}

/** `GET /v1/ontology/schemas/{id}`: the schema with its types */
export class OntologySchemaDetailResponse extends OntologySchemaResponse {
  @ListOf(() => ObjectTypeResponse, 'archived types included')
  object_types!: ObjectTypeResponse[];
  @ListOf(() => RelationTypeResponse, 'archived types included')
  relation_types!: RelationTypeResponse[];
}

/** `GET /v1/ontology/schemas`, updated_at descending */
export class OntologySchemaPage extends OffsetPage {
  @ListOf(() => OntologySchemaResponse)
  items!: OntologySchemaResponse[];
}

/** The built-in type a workspace type most resembles; a candidate only */
export class SemanticCandidateResponse {
  @OneOf(['candidate'])
  status!: 'candidate';
  @Str('built-in node or edge type name')
  builtin_type!: string;
  @OneOf(['node_type', 'edge_type'])
  kind!: 'node_type' | 'edge_type';
  @Num('0.7 × name_similarity + 0.3 × field_overlap')
  score!: number;
  @Num()
  name_similarity!: number;
  @Num()
  field_overlap!: number;
  @OneOf(['name_and_fields'])
  method!: 'name_and_fields';
}

export class SemanticClassificationResponse {
  @Str()
  type_id!: string;
  @OneOf(['object', 'relation'])
  type_kind!: 'object' | 'relation';
  @Str()
  type_name!: string;
  // not in REFERENCE's table: the version the candidate was computed for, so a reviewer sees a stale one
  @Int('the type version the candidate was computed for')
  type_version!: number;
  @Nested(() => SemanticCandidateResponse)
  semantic_match!: SemanticCandidateResponse;
}

/** `POST …/{schema_id}/semantic-guidance/analyze`: nothing is applied */
export class SemanticGuidanceResponse {
  @Str()
  schema_id!: string;
  @ListOf(() => SemanticClassificationResponse, 'one per current (not archived) type')
  classifications!: SemanticClassificationResponse[];
  @ApiProperty({ type: Boolean, enum: [true] })
  review_required!: boolean;
}

export class IdentityCollisionResponse {
  @Str()
  object_type!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'the shared identity values, by field name' })
  identity!: Record<string, unknown>;
  @Strings('the colliding objects')
  uids!: string[];
  @Int()
  count!: number;
}

/** `POST …/{schema_id}/duplicates/audit`: read-only */
export class DuplicatesAuditResponse {
  @Str()
  schema_id!: string;
  @Iso()
  audited_at!: string;
  @Int()
  object_types_checked!: number;
  @Int()
  total_collisions!: number;
  @ListOf(() => IdentityCollisionResponse)
  collisions!: IdentityCollisionResponse[];
}

