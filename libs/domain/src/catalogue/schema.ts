import { DomainError, Errors } from '../errors/domain-error';
import { typeKey } from './names';
import { fieldDefault, PropField, PropKind } from './prop-field';

/** Anything with a name and a field table: a node or an edge type definition. */
export interface PropsSchemaDef {
  readonly name: string;
  readonly fields: readonly PropField[];
}

export type PropsMode = 'create' | 'patch';

export interface PropsValidationOptions {
  mode: PropsMode;
  /** Prefix for error `field` names, e.g. `claim.props`. Default `props`. */
  fieldPrefix?: string;
  /**
   * Keep client values of server-maintained fields instead of dropping them. For trusted
   * writers only: `/import` and the server's own maintenance writes.
   */
  keepServerMaintained?: boolean;
}

/** Per-type lookup structures, built once per definition. */
export interface CompiledSchema {
  readonly name: string;
  readonly byName: ReadonlyMap<string, PropField>;
  readonly validFields: readonly string[];
  readonly validList: string;
  readonly required: readonly PropField[];
  /** Server-maintained fields whose client values are dropped. */
  readonly dropped: ReadonlySet<string>;
  /** string and string[] fields, in table order (full-text body). */
  readonly textFields: readonly PropField[];
  /** Allowed values of closed-vocabulary fields, plus the field's own empty default. */
  readonly allowed: ReadonlyMap<string, ReadonlySet<unknown>>;
}

const compiled = new WeakMap<PropsSchemaDef, CompiledSchema>();

export function compileSchema(def: PropsSchemaDef): CompiledSchema {
  let c = compiled.get(def);
  if (c) return c;
  const byName = new Map<string, PropField>();
  const allowed = new Map<string, ReadonlySet<unknown>>();
  for (const f of def.fields) {
    byName.set(f.name, f);
    // The output default must round-trip (export → import), so it is accepted too.
    if (f.enum) allowed.set(f.name, new Set<unknown>([...f.enum, fieldDefault(f)]));
  }
  const validFields = Object.freeze(def.fields.map((f) => f.name));
  c = {
    name: def.name,
    byName,
    validFields,
    validList: validFields.length ? validFields.join(', ') : '(none)',
    required: def.fields.filter((f) => f.required),
    dropped: new Set(def.fields.filter((f) => f.serverMaintained && !f.guarded).map((f) => f.name)),
    textFields: def.fields.filter((f) => f.kind === 'string' || f.kind === 'string[]'),
    allowed,
  };
  compiled.set(def, c);
  return c;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Assigns an own property even for the key `__proto__` (free-form props come from JSON). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const KIND_TEXT: Record<PropKind, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  'string[]': 'an array of strings',
  object: 'an object',
};

function hasKind(kind: PropKind, v: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'string[]':
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
      return true;
    case 'object':
      return isPlainObject(v);
  }
}

export function unknownPropsFieldsError(typeName: string, unknown: string[], schema: CompiledSchema): DomainError {
  return new DomainError(
    422,
    'unknown_props_fields',
    `unknown fields for ${typeName}: ${unknown.join(', ')}. Valid fields: ${schema.validList}`,
    { unknown_fields: unknown, valid_fields: [...schema.validFields] },
  );
}

function checkValue(f: PropField, v: unknown, path: string, schema: CompiledSchema): void {
  if (!hasKind(f.kind, v)) {
    throw Errors.invalidProps(`${path} must be ${KIND_TEXT[f.kind]}${f.nullable ? ' or null' : ''}`, { field: path });
  }
  if (f.unit && ((v as number) < 0 || (v as number) > 1)) {
    throw Errors.invalidProps(`${path} must be between 0 and 1`, { field: path });
  }
  if (f.enum && !schema.allowed.get(f.name)!.has(v)) {
    throw Errors.invalidProps(`${path} must be one of: ${f.enum.join(', ')}`, { field: path, expected: [...f.enum] });
  }
}

function checkTag(typeName: string, tag: unknown, prefix: string, what: string): void {
  if (tag === undefined || tag === null) return;
  if (typeof tag !== 'string') throw Errors.invalidProps(`${prefix}._type must be a string`, { field: `${prefix}._type` });
  if (tag !== typeName && typeKey(tag) !== typeKey(typeName)) {
    throw Errors.invalidProps(`${prefix}._type '${tag}' contradicts ${what} type ${typeName}`, { field: `${prefix}._type` });
  }
}

/**
 * Validates props against a type (def null = custom, free-form) and returns the create-mode
 * output form (every field, tagged `_type`) or the validated patch (nulls kept, `_type` dropped).
 */
export function validatePropsAgainst(
  what: 'node' | 'edge',
  typeName: string,
  def: PropsSchemaDef | null,
  props: unknown,
  opts: PropsValidationOptions,
): Record<string, unknown> {
  const prefix = opts.fieldPrefix ?? 'props';
  let input: Record<string, unknown>;
  if (props === undefined || props === null) input = {};
  else if (isPlainObject(props)) input = props;
  else throw Errors.invalidProps(`${prefix} must be a JSON object`, { field: prefix });
  checkTag(typeName, input._type, prefix, what);
  const keys = Object.keys(input);

  if (!def) {
    const out: Record<string, unknown> = opts.mode === 'create' ? { _type: typeName } : {};
    for (const k of keys) if (k !== '_type') setOwn(out, k, input[k]);
    return out;
  }

  const schema = compileSchema(def);
  let unknown: string[] | undefined;
  for (const k of keys) if (k !== '_type' && !schema.byName.has(k)) (unknown ??= []).push(k);
  if (unknown) throw unknownPropsFieldsError(typeName, unknown, schema);

  const keepServer = opts.keepServerMaintained === true;
  const given: Record<string, unknown> = Object.create(null);
  for (const k of keys) {
    if (k === '_type') continue;
    const v = input[k];
    if (v === undefined) continue;
    if (!keepServer && schema.dropped.has(k)) continue;
    const f = schema.byName.get(k)!;
    if (v === null) {
      if (opts.mode === 'patch') {
        if (f.required) throw Errors.missingField(`${prefix}.${k}`);
        given[k] = null;
      }
      continue;
    }
    checkValue(f, v, `${prefix}.${k}`, schema);
    given[k] = v;
  }

  if (opts.mode === 'patch') return { ...given };
  for (const f of schema.required) if (given[f.name] === undefined) throw Errors.missingField(`${prefix}.${f.name}`);
  const out: Record<string, unknown> = { _type: typeName };
  for (const f of def.fields) out[f.name] = given[f.name] !== undefined ? given[f.name] : fieldDefault(f);
  return out;
}

/** The full default props of a type, tagged `_type`. */
export function defaultPropsOf(def: PropsSchemaDef): Record<string, unknown> & { _type: string } {
  const out: Record<string, unknown> & { _type: string } = { _type: def.name };
  for (const f of def.fields) out[f.name] = fieldDefault(f);
  return out;
}

/**
 * Shallow merge of a validated patch into current props (§2.6 Updates): arrays and objects
 * are replaced whole; null restores the field's default (custom types: removes the key).
 */
export function mergeProps(
  def: PropsSchemaDef | null,
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = def ? { ...defaultPropsOf(def), ...current } : { ...current };
  const schema = def ? compileSchema(def) : null;
  for (const k of Object.keys(patch)) {
    if (k === '_type') continue;
    const v = patch[k];
    if (v === undefined) continue;
    if (v === null) {
      const f = schema?.byName.get(k);
      if (f) out[k] = fieldDefault(f);
      else delete out[k];
    } else setOwn(out, k, v);
  }
  if (current._type !== undefined) out._type = current._type;
  else if (def) out._type = def.name;
  return out;
}
