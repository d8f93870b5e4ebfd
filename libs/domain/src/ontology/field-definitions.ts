import { FIELD_TYPES, FieldDefinition, FieldType } from './ontology-records';
import { ValidationProblem } from './ontology-errors';
import { checkFieldValue } from './object-decider';

const FIELD_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * FieldDefinitions as sent (`fields` on input, REFERENCE §11), shape-checked: each problem is
 * collected with its path. `objectTypeKnown` says whether a `reference_object_type` names an
 * object type of the same schema.
 */
export function readFieldDefinitions(
  raw: unknown,
  path: string,
  objectTypeKnown: (name: string) => string | null,
  problems: ValidationProblem[],
): FieldDefinition[] {
  if (!Array.isArray(raw)) {
    problems.push({ path, message: 'must be an array of field definitions' });
    return [];
  }
  const out: FieldDefinition[] = [];
  const seen = new Set<string>();
  raw.forEach((f, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(f)) return problems.push({ path: at, message: 'must be an object' });
    const before = problems.length;
    if (typeof f.name !== 'string' || !FIELD_NAME_RE.test(f.name)) problems.push({ path: `${at}.name`, message: `must match ${FIELD_NAME_RE.source}` });
    else if (seen.has(f.name)) problems.push({ path: `${at}.name`, message: `field ${f.name} is defined twice` });
    else seen.add(f.name);
    if (typeof f.type !== 'string' || !FIELD_TYPES.includes(f.type as FieldType))
      problems.push({ path: `${at}.type`, message: `must be one of: ${FIELD_TYPES.join(', ')}` });
    for (const k of ['required'] as const) if (f[k] !== undefined && f[k] !== null && typeof f[k] !== 'boolean') problems.push({ path: `${at}.${k}`, message: 'must be a boolean' });
    for (const k of ['description', 'extraction_hint'] as const)
      if (f[k] !== undefined && f[k] !== null && typeof f[k] !== 'string') problems.push({ path: `${at}.${k}`, message: 'must be a string' });
    let reference: string | undefined;
    if (f.type === 'enum' || f.enum !== undefined) {
      if (!Array.isArray(f.enum) || !f.enum.length || f.enum.some((v) => typeof v !== 'string'))
        problems.push({ path: `${at}.enum`, message: 'an enum field needs a non-empty array of strings' });
    }
    const itemType = f.array_item_type;
    if (itemType !== undefined && itemType !== null && (typeof itemType !== 'string' || !FIELD_TYPES.includes(itemType as FieldType) || itemType === 'array'))
      problems.push({ path: `${at}.array_item_type`, message: 'must be a field type other than array' });
    if (f.type === 'reference' || (f.type === 'array' && itemType === 'reference') || f.reference_object_type !== undefined) {
      if (typeof f.reference_object_type !== 'string' || !f.reference_object_type.trim())
        problems.push({ path: `${at}.reference_object_type`, message: 'a reference field names the object type it refers to' });
      else {
        const resolved = objectTypeKnown(f.reference_object_type);
        if (!resolved) problems.push({ path: `${at}.reference_object_type`, message: `${f.reference_object_type} is not an object type of this schema` });
        else reference = resolved;
      }
    }
    if (problems.length > before) return;
    const def: FieldDefinition = { name: f.name as string, type: f.type as FieldType };
    if (f.required !== undefined && f.required !== null) def.required = f.required as boolean;
    if (typeof f.description === 'string') def.description = f.description;
    if (f.default !== undefined && f.default !== null) def.default = f.default;
    if (Array.isArray(f.enum)) def.enum = [...(f.enum as string[])];
    if (reference) def.reference_object_type = reference;
    if (typeof itemType === 'string') def.array_item_type = itemType as FieldType;
    if (typeof f.extraction_hint === 'string') def.extraction_hint = f.extraction_hint;
    // a default fills every create that omits the field: one its own type refuses would refuse them all
    if (def.default !== undefined) checkFieldValue(def, def.default, `${at}.default`, problems);
    if (problems.length > before) return;
    out.push(def);
  });
  return out;
}

/** Names each listed field must be defined (`required_fields`, `identity_fields`). */
export function checkNamedFields(names: readonly string[], defs: readonly FieldDefinition[], path: string, problems: ValidationProblem[]): void {
  const defined = new Set(defs.map((d) => d.name));
  names.forEach((n, i) => {
    if (!defined.has(n)) problems.push({ path: `${path}[${i}]`, message: `${n} is not a defined field` });
  });
}

const str = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/**
 * `backing` binds a type to an external SQL source; stored as given, validated for shape only
 * (REFERENCE §11). Object types: `kind:"sql"`, `sources[{connection_ref, table, key, filter?,
 * field_map}]`, `primary_key`, `title_field?`, `sync?`. Relation types: `kind` `sql_fk` or
 * `sql_join_table` with a `connection_ref` and a `table`.
 */
export function checkBacking(raw: unknown, kind: 'object' | 'relation', problems: ValidationProblem[]): Record<string, unknown> | null {
  if (raw === undefined || raw === null) return null;
  const before = problems.length;
  if (!isObject(raw)) {
    problems.push({ path: 'backing', message: 'must be an object' });
    return null;
  }
  if (kind === 'object') {
    if (raw.kind !== 'sql') problems.push({ path: 'backing.kind', message: 'must be "sql"' });
    if (!Array.isArray(raw.sources) || !raw.sources.length) problems.push({ path: 'backing.sources', message: 'must be a non-empty array' });
    else
      raw.sources.forEach((s, i) => {
        const at = `backing.sources[${i}]`;
        if (!isObject(s)) return problems.push({ path: at, message: 'must be an object' });
        for (const k of ['connection_ref', 'table', 'key']) if (!str(s[k])) problems.push({ path: `${at}.${k}`, message: 'must be a non-empty string' });
        if (s.filter !== undefined && s.filter !== null && typeof s.filter !== 'string') problems.push({ path: `${at}.filter`, message: 'must be a string' });
        if (!isObject(s.field_map) || Object.values(s.field_map).some((v) => typeof v !== 'string'))
          problems.push({ path: `${at}.field_map`, message: 'must be an object of column names' });
      });
    if (!str(raw.primary_key)) problems.push({ path: 'backing.primary_key', message: 'must be a non-empty string' });
    if (raw.title_field !== undefined && raw.title_field !== null && typeof raw.title_field !== 'string')
      problems.push({ path: 'backing.title_field', message: 'must be a string' });
    if (raw.sync !== undefined && raw.sync !== null && !isObject(raw.sync)) problems.push({ path: 'backing.sync', message: 'must be an object' });
  } else {
    if (raw.kind !== 'sql_fk' && raw.kind !== 'sql_join_table') problems.push({ path: 'backing.kind', message: 'must be "sql_fk" or "sql_join_table"' });
    for (const k of ['connection_ref', 'table']) if (!str(raw[k])) problems.push({ path: `backing.${k}`, message: 'must be a non-empty string' });
  }
  return problems.length > before ? null : raw;
}
