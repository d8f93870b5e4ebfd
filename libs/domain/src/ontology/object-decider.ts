import { isWellFormedUid, normaliseText } from '../catalogue/names';
import { Errors } from '../errors';
import { parseIsoDateTime } from '../validation/iso-time';
import { FieldDefinition, FieldType, ObjectTypeRecord } from './ontology-records';
import { ValidationProblem, assertNoProblems } from './ontology-errors';

/** A reference a domain object's fields make: must be a live domain object of `object_type`. */
export interface ObjectReference {
  path: string;
  uid: string;
  object_type: string;
}

/** The props of a domain object node (REFERENCE §11), `_type` being the object type's name. */
export interface DomainObjectProps {
  _type: string;
  schema_id: string;
  object_type_id: string;
  canonical_name: string;
  fields: Record<string, unknown>;
  aliases: string[];
  identity: Record<string, unknown>;
  review_status: string;
  proposal_id: string | null;
  source_uids: string[];
}

const DATE_RE = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkValue(def: FieldDefinition, type: FieldType, v: unknown, path: string, problems: ValidationProblem[], refs: ObjectReference[]): void {
  const bad = (message: string) => problems.push({ path, message });
  switch (type) {
    case 'string':
      if (typeof v !== 'string') bad('must be a string');
      return;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) bad('must be a number');
      return;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) bad('must be an integer');
      return;
    case 'boolean':
      if (typeof v !== 'boolean') bad('must be a boolean');
      return;
    case 'date':
      if (typeof v !== 'string' || !DATE_RE.test(v)) bad('must be an ISO 8601 date (YYYY, YYYY-MM or YYYY-MM-DD)');
      return;
    case 'datetime':
      if (typeof v !== 'string' || parseIsoDateTime(v) === null) bad('must be an ISO 8601 date-time');
      return;
    case 'enum':
      if (typeof v !== 'string' || !(def.enum ?? []).includes(v)) bad(`must be one of: ${(def.enum ?? []).join(', ')}`);
      return;
    case 'reference':
      if (!isWellFormedUid(v)) bad('must be the uid of a domain object');
      else refs.push({ path, uid: v, object_type: def.reference_object_type! });
      return;
    case 'array':
      if (!Array.isArray(v)) return void bad('must be an array');
      if (def.array_item_type) v.forEach((item, i) => checkValue(def, def.array_item_type!, item, `${path}[${i}]`, problems, refs));
      return;
    case 'object':
      if (!isObject(v)) bad('must be an object');
      return;
    case 'json':
      return;
  }
}

/** Problems of one value against its field definition (type, enum, uid shape of a reference). */
export function checkFieldValue(def: FieldDefinition, v: unknown, path: string, problems: ValidationProblem[]): void {
  checkValue(def, def.type, v, path, problems, []);
}

/** What validating an object against its type needs, worked out once per type version. */
interface CompiledType {
  defs: Map<string, FieldDefinition>;
  required: string[];
  defaults: [string, unknown][];
  fieldList: string;
}

/**
 * Read models hand out frozen, shared type records (one per stored content), so a frozen
 * record's compiled form can be kept beside it; a record that may still change is compiled
 * for the one call.
 */
const compiledTypes = new WeakMap<ObjectTypeRecord, CompiledType>();

function compiled(type: ObjectTypeRecord): CompiledType {
  let c = compiledTypes.get(type);
  if (c) return c;
  const defs = new Map(type.fields_json.map((d) => [d.name, d]));
  c = {
    defs,
    required: [...new Set([...type.required_fields, ...type.fields_json.filter((d) => d.required).map((d) => d.name)])],
    defaults: type.fields_json.filter((d) => d.default !== undefined).map((d) => [d.name, d.default]),
    fieldList: [...defs.keys()].join(', ') || 'none',
  };
  if (Object.isFrozen(type) && Object.isFrozen(type.fields_json) && Object.isFrozen(type.required_fields)) compiledTypes.set(type, c);
  return c;
}

/**
 * A reviewer's edit of a proposed object's fields, judged before it is kept: each field it
 * names must be one the type defines, a value must fit that field, and clearing (null) a
 * required field is refused. What the edit leaves alone is judged when the proposal applies.
 */
export function checkFieldEdits(type: ObjectTypeRecord, edits: Record<string, unknown>): void {
  const problems: ValidationProblem[] = [];
  const { defs, required, fieldList } = compiled(type);
  for (const [k, v] of Object.entries(edits)) {
    const def = defs.get(k);
    if (!def) problems.push({ path: `edits.fields.${k}`, message: `${type.name} defines no field ${k}; valid fields: ${fieldList}` });
    else if (v === null) {
      if (required.includes(k)) problems.push({ path: `edits.fields.${k}`, message: 'is required' });
    } else checkValue(def, def.type, v, `edits.fields.${k}`, problems, []);
  }
  assertNoProblems(problems);
}

export interface ValidatedFields {
  fields: Record<string, unknown>;
  references: ObjectReference[];
}

/**
 * A domain object's fields against its type (REFERENCE §11): unknown names, required,
 * type, enum; references are returned for the caller to check against the graph. On
 * create, absent fields take their default; on patch, `patch` is merged into `current`
 * (a key sent as null removes the value) and the result must still be complete.
 */
export function validateObjectFields(
  type: ObjectTypeRecord,
  given: Record<string, unknown>,
  current: Record<string, unknown> | null,
): ValidatedFields {
  const problems: ValidationProblem[] = [];
  const refs: ObjectReference[] = [];
  const { defs, required, defaults, fieldList } = compiled(type);
  const out: Record<string, unknown> = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(given)) {
    const def = defs.get(k);
    if (!def) {
      problems.push({ path: `fields.${k}`, message: `${type.name} defines no field ${k}; valid fields: ${fieldList}` });
      continue;
    }
    if (v === null) delete out[k];
    else out[k] = v;
  }
  if (!current) for (const [name, value] of defaults) if (out[name] === undefined) out[name] = value;
  for (const name of required) if (out[name] === undefined || out[name] === null || out[name] === '') problems.push({ path: `fields.${name}`, message: 'is required' });
  for (const [k, v] of Object.entries(out)) {
    const def = defs.get(k);
    if (def && (current === null || k in given)) checkValue(def, def.type, v, `fields.${k}`, problems, refs);
  }
  assertNoProblems(problems);
  return { fields: out, references: refs };
}

/**
 * The identity of an object: its type's identity fields, taken from `identity` when sent and
 * otherwise from `fields` (every one must have a value). Without identity fields the
 * normalised canonical name is the identity. `key` is what duplicates are found by.
 */
export function objectIdentity(
  type: ObjectTypeRecord,
  canonicalName: string,
  fields: Record<string, unknown>,
  sent: Record<string, unknown> | undefined,
): { identity: Record<string, unknown>; key: string } {
  if (!type.identity_fields.length) return { identity: {}, key: `name:${normaliseText(canonicalName)}` };
  const problems: ValidationProblem[] = [];
  const identity: Record<string, unknown> = {};
  for (const f of type.identity_fields) {
    const v = sent?.[f] ?? fields[f];
    if (v === undefined || v === null || v === '') problems.push({ path: `identity.${f}`, message: 'identity fields need a value' });
    else if (sent?.[f] !== undefined && fields[f] !== undefined && JSON.stringify(sent[f]) !== JSON.stringify(fields[f]))
      problems.push({ path: `identity.${f}`, message: `differs from fields.${f}` });
    identity[f] = v;
  }
  assertNoProblems(problems);
  return { identity, key: identityKey(identity) };
}

/** A stable key of identity values: fields in name order, exact JSON values. */
export function identityKey(identity: Record<string, unknown>): string {
  return `id:${JSON.stringify(Object.keys(identity).sort().map((k) => [k, identity[k]]))}`;
}

/** Identity fields never change once an object exists (422 `immutable_field`). */
export function assertIdentityUnchanged(type: ObjectTypeRecord, current: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const f of type.identity_fields) {
    if (!(f in patch)) continue;
    if (JSON.stringify(patch[f] ?? null) !== JSON.stringify(current[f] ?? null)) throw Errors.immutableField(`fields.${f}`);
  }
}

/** The node props of a domain object. */
export function domainObjectProps(
  type: ObjectTypeRecord,
  o: { canonical_name: string; fields: Record<string, unknown>; aliases: string[]; identity: Record<string, unknown>; proposal_id: string | null; source_uids: string[]; review_status?: string },
): DomainObjectProps {
  return {
    _type: type.name,
    schema_id: type.schema_id,
    object_type_id: type.id,
    canonical_name: o.canonical_name,
    fields: o.fields,
    aliases: o.aliases,
    identity: o.identity,
    review_status: o.review_status ?? 'approved',
    proposal_id: o.proposal_id,
    source_uids: o.source_uids,
  };
}

/** Whether a node's props are a domain object's (what the read model indexes). */
export function isDomainObjectProps(props: Record<string, unknown>): props is Record<string, unknown> & DomainObjectProps {
  return typeof props.schema_id === 'string' && typeof props.object_type_id === 'string' && typeof props.canonical_name === 'string';
}
