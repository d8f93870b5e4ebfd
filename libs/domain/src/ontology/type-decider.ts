import { canonicalCustomName, EDGE_TYPE_NAME_RE, NODE_TYPE_NAME_RE, typeKey } from '../catalogue/names';
import { findNodeTypeBySpelling } from '../catalogue/node-types';
import { findEdgeTypeBySpelling } from '../catalogue/edge-types';
import { Errors } from '../errors';
import {
  CARDINALITIES,
  Cardinality,
  ObjectTypeRecord,
  OntologySchemaRecord,
  REVIEW_POLICIES,
  RelationTypeRecord,
  ReviewPolicy,
  TypeStatus,
} from './ontology-records';
import { OntologyErrors, ValidationProblem, assertNoProblems } from './ontology-errors';
import { OntologyObjectTypeChangedData, OntologyRelationTypeChangedData } from './ontology-events';
import { checkBacking, checkNamedFields, readFieldDefinitions } from './field-definitions';
import { schemaAfterTypeChange } from './schema-decider';

/** The types a schema holds, archived ones included (they keep their names out of the way of nobody). */
export interface SchemaTypes {
  objects: readonly ObjectTypeRecord[];
  relations: readonly RelationTypeRecord[];
}

/**
 * An object or relation type as sent (REFERENCE §11 input shape: `fields`, `examples`).
 * Top-level JSON types are the DTO's to check; what they mean is checked here (422).
 */
export interface TypeInput {
  name?: string;
  display_name?: string;
  description?: string;
  fields?: unknown[];
  extraction_hints?: unknown;
  review_policy?: string;
  semantic_match?: Record<string, unknown>;
  backing?: Record<string, unknown>;
  status?: string;
}
export interface ObjectTypeInput extends TypeInput {
  required_fields?: string[];
  identity_fields?: string[];
  aliases?: string[];
  examples?: unknown[];
  default_confidence?: number;
}
export interface RelationTypeInput extends TypeInput {
  source_type?: string;
  target_type?: string;
  cardinality?: string;
  symmetric?: boolean;
  transitive?: boolean;
  inverse_relation_type?: string;
}

const PATCHABLE_TYPE_STATUSES: readonly TypeStatus[] = ['active', 'deprecated'];

const liveObjects = (types: SchemaTypes) => types.objects.filter((t) => t.status !== 'archived');

/** The canonical name of a live object type of the schema spelled `name`, or null. */
export function objectTypeNamed(types: SchemaTypes, name: string): ObjectTypeRecord | null {
  const k = typeKey(name);
  return liveObjects(types).find((t) => typeKey(t.name) === k) ?? null;
}

function checkName(kind: 'object' | 'relation', raw: string, selfId: string | null, types: SchemaTypes, problems: ValidationProblem[]): string | null {
  const re = kind === 'object' ? NODE_TYPE_NAME_RE : EDGE_TYPE_NAME_RE;
  if (!re.test(raw)) {
    problems.push({ path: 'name', message: `must match ${re.source}` });
    return null;
  }
  const builtin = kind === 'object' ? findNodeTypeBySpelling(raw) : findEdgeTypeBySpelling(raw);
  if (builtin) {
    const hint = kind === 'object' ? `, such as Client${builtin.name}` : '';
    problems.push({ path: 'name', message: `${raw} is the built-in ${kind === 'object' ? 'node' : 'edge'} type ${builtin.name}; choose a distinct name${hint}` });
    return null;
  }
  const name = canonicalCustomName(raw);
  // one namespace for both kinds: a relation type may not take an object type's name, nor the reverse
  const pool: readonly { id: string; name: string; status: TypeStatus }[] = [...types.objects, ...types.relations];
  const clash = pool.find((t) => t.status !== 'archived' && t.id !== selfId && typeKey(t.name) === typeKey(name));
  if (clash) throw OntologyErrors.duplicateType(name, clash.id);
  return name;
}

function checkCommon(input: TypeInput, problems: ValidationProblem[]): void {
  if (input.review_policy !== undefined && !REVIEW_POLICIES.includes(input.review_policy as ReviewPolicy))
    problems.push({ path: 'review_policy', message: `must be one of: ${REVIEW_POLICIES.join(', ')}` });
  if (input.status !== undefined && !PATCHABLE_TYPE_STATUSES.includes(input.status as TypeStatus))
    problems.push({ path: 'status', message: `must be one of: ${PATCHABLE_TYPE_STATUSES.join(', ')} (DELETE archives)` });
}

function assertSameName(current: { name: string }, sent: string | undefined): void {
  // a type's name is its objects' node_type or its relations' edge_type, which never change
  if (sent !== undefined && typeKey(sent) !== typeKey(current.name)) throw Errors.immutableField('name');
}

function buildObjectType(
  base: ObjectTypeRecord | null,
  input: ObjectTypeInput,
  types: SchemaTypes,
  ids: { id: string; schema: OntologySchemaRecord },
  now: number,
): ObjectTypeRecord {
  const problems: ValidationProblem[] = [];
  let name = base?.name ?? null;
  if (!base) {
    if (input.name === undefined) throw Errors.missingField('name');
    name = checkName('object', input.name, null, types, problems);
  } else assertSameName(base, input.name);
  checkCommon(input, problems);
  // a field may refer to this very type (a Client's parent Client)
  const known = (n: string) => objectTypeNamed(types, n)?.name ?? (name && typeKey(n) === typeKey(name) ? name : null);
  const fields = input.fields !== undefined ? readFieldDefinitions(input.fields, 'fields', known, problems) : (base?.fields_json ?? []);
  const required = input.required_fields ?? base?.required_fields ?? [];
  const identity = input.identity_fields ?? base?.identity_fields ?? [];
  checkNamedFields(required, fields, 'required_fields', problems);
  checkNamedFields(identity, fields, 'identity_fields', problems);
  if (input.default_confidence !== undefined && !(input.default_confidence >= 0 && input.default_confidence <= 1))
    problems.push({ path: 'default_confidence', message: 'must be between 0 and 1' });
  const backing = input.backing !== undefined ? checkBacking(input.backing, 'object', problems) : (base?.backing ?? null);
  assertNoProblems(problems);
  return {
    id: ids.id,
    schema_id: ids.schema.id,
    org_id: ids.schema.org_id,
    name: name!,
    display_name: input.display_name ?? base?.display_name ?? null,
    description: input.description ?? base?.description ?? null,
    fields_json: fields,
    required_fields: [...new Set(required)],
    identity_fields: [...new Set(identity)],
    aliases: input.aliases ?? base?.aliases ?? [],
    examples_json: input.examples ?? base?.examples_json ?? [],
    extraction_hints: input.extraction_hints ?? base?.extraction_hints ?? null,
    default_confidence: input.default_confidence ?? base?.default_confidence ?? 0.8,
    review_policy: (input.review_policy as ReviewPolicy | undefined) ?? base?.review_policy ?? 'always',
    semantic_match: input.semantic_match ?? base?.semantic_match ?? null,
    backing,
    status: (input.status as TypeStatus | undefined) ?? base?.status ?? 'active',
    version: base ? base.version + 1 : 1,
    created_at: base?.created_at ?? now,
    updated_at: now,
  };
}

export function decideAddObjectType(
  schema: OntologySchemaRecord,
  types: SchemaTypes,
  input: ObjectTypeInput,
  id: string,
  by: string,
  now: number,
): OntologyObjectTypeChangedData {
  const next = schemaAfterTypeChange(schema, by, now);
  return { schema: next, object_type: buildObjectType(null, input, types, { id, schema }, now) };
}

export function decideUpdateObjectType(
  schema: OntologySchemaRecord,
  types: SchemaTypes,
  current: ObjectTypeRecord,
  input: ObjectTypeInput,
  by: string,
  now: number,
): OntologyObjectTypeChangedData {
  const next = schemaAfterTypeChange(schema, by, now);
  if (current.status === 'archived') throw Errors.invalidTransition(`object type ${current.name} is archived`, 'archived', []);
  return { schema: next, object_type: buildObjectType(current, input, types, { id: current.id, schema }, now) };
}

/** DELETE archives the type and returns it; archiving an archived type changes nothing (null). */
export function decideArchiveObjectType(schema: OntologySchemaRecord, current: ObjectTypeRecord, by: string, now: number): OntologyObjectTypeChangedData | null {
  const next = schemaAfterTypeChange(schema, by, now);
  if (current.status === 'archived') return null;
  return { schema: next, object_type: { ...current, status: 'archived', version: current.version + 1, updated_at: now } };
}

function buildRelationType(
  base: RelationTypeRecord | null,
  input: RelationTypeInput,
  types: SchemaTypes,
  ids: { id: string; schema: OntologySchemaRecord },
  now: number,
): RelationTypeRecord {
  const problems: ValidationProblem[] = [];
  let name = base?.name ?? null;
  if (!base) {
    if (input.name === undefined) throw Errors.missingField('name');
    if (input.source_type === undefined) throw Errors.missingField('source_type');
    if (input.target_type === undefined) throw Errors.missingField('target_type');
    name = checkName('relation', input.name, null, types, problems);
  } else assertSameName(base, input.name);
  checkCommon(input, problems);
  const endpoint = (field: 'source_type' | 'target_type'): string => {
    const sent = input[field];
    if (sent === undefined) return base![field];
    const t = objectTypeNamed(types, sent);
    if (!t) problems.push({ path: field, message: `${sent} is not an object type of this schema` });
    return t?.name ?? sent;
  };
  const source_type = endpoint('source_type');
  const target_type = endpoint('target_type');
  if (input.cardinality !== undefined && !CARDINALITIES.includes(input.cardinality as Cardinality))
    problems.push({ path: 'cardinality', message: `must be one of: ${CARDINALITIES.join(', ')}` });
  const fields = input.fields !== undefined ? readFieldDefinitions(input.fields, 'fields', (n) => objectTypeNamed(types, n)?.name ?? null, problems) : (base?.fields_json ?? []);
  const backing = input.backing !== undefined ? checkBacking(input.backing, 'relation', problems) : (base?.backing ?? null);
  assertNoProblems(problems);
  return {
    id: ids.id,
    schema_id: ids.schema.id,
    org_id: ids.schema.org_id,
    name: name!,
    display_name: input.display_name ?? base?.display_name ?? null,
    description: input.description ?? base?.description ?? null,
    source_type,
    target_type,
    cardinality: (input.cardinality as Cardinality | undefined) ?? base?.cardinality ?? null,
    symmetric: input.symmetric ?? base?.symmetric ?? false,
    transitive: input.transitive ?? base?.transitive ?? false,
    inverse_relation_type: input.inverse_relation_type ?? base?.inverse_relation_type ?? null,
    fields_json: fields,
    extraction_hints: input.extraction_hints ?? base?.extraction_hints ?? null,
    review_policy: (input.review_policy as ReviewPolicy | undefined) ?? base?.review_policy ?? 'always',
    semantic_match: input.semantic_match ?? base?.semantic_match ?? null,
    backing,
    status: (input.status as TypeStatus | undefined) ?? base?.status ?? 'active',
    version: base ? base.version + 1 : 1,
    created_at: base?.created_at ?? now,
    updated_at: now,
  };
}

export function decideAddRelationType(
  schema: OntologySchemaRecord,
  types: SchemaTypes,
  input: RelationTypeInput,
  id: string,
  by: string,
  now: number,
): OntologyRelationTypeChangedData {
  const next = schemaAfterTypeChange(schema, by, now);
  return { schema: next, relation_type: buildRelationType(null, input, types, { id, schema }, now) };
}

export function decideUpdateRelationType(
  schema: OntologySchemaRecord,
  types: SchemaTypes,
  current: RelationTypeRecord,
  input: RelationTypeInput,
  by: string,
  now: number,
): OntologyRelationTypeChangedData {
  const next = schemaAfterTypeChange(schema, by, now);
  if (current.status === 'archived') throw Errors.invalidTransition(`relation type ${current.name} is archived`, 'archived', []);
  return { schema: next, relation_type: buildRelationType(current, input, types, { id: current.id, schema }, now) };
}

export function decideArchiveRelationType(schema: OntologySchemaRecord, current: RelationTypeRecord, by: string, now: number): OntologyRelationTypeChangedData | null {
  const next = schemaAfterTypeChange(schema, by, now);
  if (current.status === 'archived') return null;
  return { schema: next, relation_type: { ...current, status: 'archived', version: current.version + 1, updated_at: now } };
}
