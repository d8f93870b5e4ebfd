import { isWellFormedUid } from '../catalogue/names';
import { DomainError, Errors } from '../errors';

/**
 * Readers for request fields. Each returns the typed value or throws the REFERENCE §1.10
 * error naming the field. `null` counts as omitted (§1.1).
 */
export type Body = Record<string, unknown>;

// the uid rule of REFERENCE §1.4 lives with the other name rules in the catalogue
export { isWellFormedUid };

export function present(body: Body, field: string): boolean {
  return body[field] !== undefined && body[field] !== null;
}

/**
 * Characters as REFERENCE counts them (§1.5: a label of 1–1000 characters): code points, so
 * an emoji is one character, not the two UTF-16 units of `length`.
 */
export function characterCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // a high surrogate followed by a low one is one code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function readString(
  body: Body,
  field: string,
  opts: { required?: boolean; max?: number; trim?: boolean; allowEmpty?: boolean; label?: string } = {},
): string | undefined {
  const name = opts.label ?? field;
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (typeof v !== 'string') throw Errors.invalidField(name, `${name} must be a string`);
  const s = opts.trim ? v.trim() : v;
  if (!s.trim() && !opts.allowEmpty) {
    if (opts.required) throw Errors.missingField(name);
    return opts.trim ? undefined : s;
  }
  if (opts.max !== undefined && s.length > opts.max && characterCount(s) > opts.max)
    throw Errors.invalidField(name, `${name} must be at most ${opts.max} characters`);
  return s;
}

export function readNumber(
  body: Body,
  field: string,
  opts: { required?: boolean; min?: number; max?: number; integer?: boolean; exclusiveMin?: boolean; label?: string } = {},
): number | undefined {
  const name = opts.label ?? field;
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw Errors.invalidField(name, `${name} must be a finite number`);
  if (opts.integer && !Number.isInteger(v)) throw Errors.invalidField(name, `${name} must be an integer`);
  if (opts.min !== undefined && (opts.exclusiveMin ? v <= opts.min : v < opts.min))
    throw Errors.invalidField(name, `${name} must be ${opts.exclusiveMin ? 'greater than' : 'at least'} ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) throw Errors.invalidField(name, `${name} must be at most ${opts.max}`);
  return v;
}

export function readUnit(body: Body, field: string, label?: string): number | undefined {
  return readNumber(body, field, { min: 0, max: 1, label });
}

export function readBoolean(body: Body, field: string, opts: { required?: boolean; label?: string } = {}): boolean | undefined {
  const name = opts.label ?? field;
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (typeof v !== 'boolean') throw Errors.invalidField(name, `${name} must be a boolean`);
  return v;
}

export function readEnum<T extends string>(
  body: Body,
  field: string,
  allowed: readonly T[],
  opts: { required?: boolean; label?: string } = {},
): T | undefined {
  const s = readString(body, field, opts);
  if (s === undefined) return undefined;
  if (!allowed.includes(s as T)) throw Errors.invalidField(opts.label ?? field, `${opts.label ?? field} must be one of: ${allowed.join(', ')}`, { allowed: [...allowed] });
  return s as T;
}

export function readUid(body: Body, field: string, opts: { required?: boolean; label?: string } = {}): string | undefined {
  const name = opts.label ?? field;
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (!isWellFormedUid(v)) throw Errors.invalidUid(name);
  return v;
}

/** A `*_uids` array, or (with `single`) a `str|[]` field. Duplicates are removed, order kept. */
export function readUids(
  body: Body,
  field: string,
  opts: { required?: boolean; max?: number; single?: boolean; nonEmpty?: boolean; label?: string } = {},
): string[] | undefined {
  const name = opts.label ?? field;
  let v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (opts.single && typeof v === 'string') v = [v];
  if (!Array.isArray(v)) throw Errors.invalidField(name, `${name} must be an array of uids`);
  if (opts.max !== undefined && v.length > opts.max) throw Errors.invalidField(name, `${name} takes at most ${opts.max} uids`);
  if (opts.nonEmpty && v.length === 0) throw Errors.missingField(name, `${name} must not be empty`);
  const seen = new Set<string>();
  const out: string[] = [];
  v.forEach((u, i) => {
    if (!isWellFormedUid(u)) throw Errors.invalidUid(`${name}[${i}]`);
    if (!seen.has(u)) {
      seen.add(u);
      out.push(u);
    }
  });
  return out;
}

export function readStringArray(body: Body, field: string, opts: { required?: boolean; max?: number; single?: boolean; label?: string } = {}): string[] | undefined {
  const name = opts.label ?? field;
  let v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (opts.single && typeof v === 'string') v = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw Errors.invalidField(name, `${name} must be an array of strings`);
  if (opts.max !== undefined && v.length > opts.max) throw Errors.invalidField(name, `${name} takes at most ${opts.max} entries`);
  return v as string[];
}

export function readObject(body: Body, field: string, opts: { required?: boolean; label?: string; code?: 'invalid_field' | 'invalid_props' } = {}): Body | undefined {
  const name = opts.label ?? field;
  const v = body[field];
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField(name);
    return undefined;
  }
  if (typeof v !== 'object' || Array.isArray(v)) {
    if (opts.code === 'invalid_props') throw Errors.invalidProps(`${name} must be an object`, { field: name });
    throw Errors.invalidField(name, `${name} must be an object`);
  }
  return v as Body;
}

/**
 * The largest offset applied. Any list ends long before it; beyond it, an offset would reach
 * the stores as a number they cannot take as an integer (SQLite refuses 2^63 and up).
 */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** limit/offset per REFERENCE §1.9: clamped to max (offset to MAX_OFFSET), negative or non-integer → 400. */
export function readPage(body: Body, defaults: { limit: number; max: number }): { limit: number; offset: number } {
  const limit = readNumber(body, 'limit', { integer: true, min: 0 }) ?? defaults.limit;
  const offset = readNumber(body, 'offset', { integer: true, min: 0 }) ?? 0;
  return { limit: Math.min(limit, defaults.max), offset: Math.min(offset, MAX_OFFSET) };
}

/**
 * Query strings arrive as strings: coerce the named numeric/boolean fields so the same readers
 * work for GET and POST. Invalid text is left as is and then rejected by the reader.
 */
export function coerceQuery(q: Record<string, unknown>, numeric: string[] = [], booleans: string[] = []): Body {
  const out: Body = { ...q };
  for (const k of numeric) {
    const v = out[k];
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) out[k] = Number(v);
  }
  for (const k of booleans) {
    const v = out[k];
    if (v === 'true' || v === '1') out[k] = true;
    else if (v === 'false' || v === '0') out[k] = false;
  }
  return out;
}

export function assertObjectBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new DomainError(400, 'invalid_json', 'request body must be a JSON object');
  return body as Body;
}

/** The bodies the JSON parser read from empty text: {} to every route, told apart by the ones that need a body. */
const EMPTY_BODIES = new WeakSet<object>();

/** What the JSON parser hands on for an empty body (REFERENCE §1.1: routes without a required field read it as {}). */
export function emptyJsonBody(): Body {
  const body: Body = {};
  EMPTY_BODIES.add(body);
  return body;
}

/** Whether `body` is the {} the JSON parser made from empty text, or no body was sent at all. */
export function isEmptyJsonBody(body: unknown): boolean {
  return body === undefined || body === null || (typeof body === 'object' && EMPTY_BODIES.has(body));
}
