/**
 * The operational ontology's management records (REFERENCE §11) as the events carry them:
 * times are Unix seconds (fractional) like every event; the /v1 routes present them as
 * ISO 8601. Domain objects are graph nodes and have no record of their own here.
 */

export type SchemaStatus = 'draft' | 'active' | 'deprecated' | 'archived';
export const SCHEMA_STATUSES: readonly SchemaStatus[] = ['draft', 'active', 'deprecated', 'archived'];

export type SemanticValidationMode = 'off' | 'advisory' | 'review' | 'strict';
export const SEMANTIC_VALIDATION_MODES: readonly SemanticValidationMode[] = ['off', 'advisory', 'review', 'strict'];
/** the modes a PATCH may set; `review` and `strict` are not yet writable by clients */
export const PATCHABLE_SEMANTIC_MODES: readonly SemanticValidationMode[] = ['off', 'advisory'];

export type ProposeStatus = 'pending' | 'running' | 'ready' | 'failed';

export interface OntologySchemaRecord {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  status: SchemaStatus;
  version: number;
  propose_status: ProposeStatus | null;
  propose_job_id: string | null;
  propose_error: string | null;
  semantic_validation_mode: SemanticValidationMode;
  created_by: string;
  updated_by: string;
  created_at: number;
  updated_at: number;
  activated_at: number | null;
  archived_at: number | null;
}

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'enum' | 'reference' | 'array' | 'object' | 'json';
export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'integer', 'boolean', 'date', 'datetime', 'enum', 'reference', 'array', 'object', 'json'];

export interface FieldDefinition {
  name: string;
  type: FieldType;
  required?: boolean;
  description?: string;
  default?: unknown;
  enum?: string[];
  reference_object_type?: string;
  array_item_type?: FieldType;
  extraction_hint?: string;
}

export type ReviewPolicy = 'always' | 'low_confidence' | 'never';
export const REVIEW_POLICIES: readonly ReviewPolicy[] = ['always', 'low_confidence', 'never'];

export type TypeStatus = 'active' | 'deprecated' | 'archived';

export type Cardinality = 'one_to_one' | 'one_to_many' | 'many_to_many';
export const CARDINALITIES: readonly Cardinality[] = ['one_to_one', 'one_to_many', 'many_to_many'];

/** Fields common to object and relation types. */
interface TypeRecordBase {
  id: string;
  schema_id: string;
  org_id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  fields_json: FieldDefinition[];
  extraction_hints: unknown;
  review_policy: ReviewPolicy;
  semantic_match: Record<string, unknown> | null;
  backing: Record<string, unknown> | null;
  status: TypeStatus;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface ObjectTypeRecord extends TypeRecordBase {
  required_fields: string[];
  identity_fields: string[];
  aliases: string[];
  examples_json: unknown[];
  default_confidence: number;
}

export interface RelationTypeRecord extends TypeRecordBase {
  source_type: string;
  target_type: string;
  cardinality: Cardinality | null;
  symmetric: boolean;
  transitive: boolean;
  inverse_relation_type: string | null;
}

export type TypeKind = 'object' | 'relation';
