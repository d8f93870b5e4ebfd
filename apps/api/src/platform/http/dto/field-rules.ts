import { Errors } from '@strata/domain/errors';
import { characterCount, isWellFormedUid, parseIsoDateTime } from '@strata/domain/validation';
import { FieldRule } from './field.decorator';

/**
 * The field kinds of management request bodies. Each keeps the exact errors of the request
 * readers in libs/domain/src/validation, so a route moved onto a DTO answers as before.
 */

interface Doc {
  description?: string;
  example?: unknown;
}

/**
 * A string, trimmed; whitespace alone counts as omitted. `max` counts characters (code points).
 * `blank` refuses whitespace alone when the field is sent, where omitting it would silently keep
 * the old value (a PATCH): `missing` for a field the record requires (400 missing_field, as on
 * create), `invalid` for an optional one that has no blank form (400 invalid_field).
 */
export function Text(opts: Doc & { required?: boolean; max: number; trim?: boolean; format?: string; blank?: 'missing' | 'invalid' }): FieldRule<string | undefined> {
  const trim = opts.trim ?? true;
  return {
    required: !!opts.required,
    check: (v, f) => {
      if (typeof v !== 'string') return Errors.invalidField(f, `${f} must be a string`);
      const s = trim ? v.trim() : v;
      if (!s.trim()) {
        if (opts.required || opts.blank === 'missing') return Errors.missingField(f);
        return opts.blank === 'invalid' ? Errors.invalidField(f, `${f} must not be blank`) : null;
      }
      if (s.length > opts.max && characterCount(s) > opts.max) return Errors.invalidField(f, `${f} must be at most ${opts.max} characters`);
      return null;
    },
    parse: (v) => {
      const s = trim ? (v as string).trim() : (v as string);
      return s.trim() ? s : trim ? undefined : s;
    },
    openapi: { type: String, maxLength: opts.max, format: opts.format, description: opts.description, example: opts.example },
  };
}

/** One of a fixed list of strings; the error lists them in `allowed`. */
export function OneOf<T extends string>(allowed: readonly T[], opts: Doc & { required?: boolean } = {}): FieldRule<T | undefined> {
  const text = Text({ required: opts.required, max: 1000, trim: false });
  return {
    required: !!opts.required,
    check: (v, f) =>
      text.check(v, f) ??
      (typeof v === 'string' && v.trim() && !allowed.includes(v as T) ? Errors.invalidField(f, `${f} must be one of: ${allowed.join(', ')}`, { allowed: [...allowed] }) : null),
    parse: (v) => ((v as string).trim() ? (v as T) : undefined),
    openapi: { enum: [...allowed], description: opts.description, example: opts.example },
  };
}

/** An integer within bounds. */
export function Integer(opts: Doc & { required?: boolean; min?: number; max?: number }): FieldRule<number> {
  return {
    required: !!opts.required,
    check: (v, f) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return Errors.invalidField(f, `${f} must be a finite number`);
      if (!Number.isInteger(v)) return Errors.invalidField(f, `${f} must be an integer`);
      if (opts.min !== undefined && v < opts.min) return Errors.invalidField(f, `${f} must be at least ${opts.min}`);
      if (opts.max !== undefined && v > opts.max) return Errors.invalidField(f, `${f} must be at most ${opts.max}`);
      return null;
    },
    openapi: { type: 'integer', minimum: opts.min, maximum: opts.max, description: opts.description, example: opts.example },
  };
}

/** An array of strings, at most `max` entries; the entries' own rules are the DTO's to apply. */
export function StringList(opts: Doc & { required?: boolean; max: number; check?: (list: string[], field: string) => ReturnType<FieldRule['check']> }): FieldRule<string[]> {
  return {
    required: !!opts.required,
    check: (v, f) => {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return Errors.invalidField(f, `${f} must be an array of strings`);
      if (v.length > opts.max) return Errors.invalidField(f, `${f} takes at most ${opts.max} entries`);
      return opts.check ? opts.check(v as string[], f) : null;
    },
    openapi: { type: [String], maxItems: opts.max, description: opts.description, example: opts.example },
  };
}

/** An array of uids (REFERENCE §1.4), duplicates dropped in order; a bad one is named by index. */
export function UidList(opts: Doc & { required?: boolean; max: number }): FieldRule<string[]> {
  return {
    required: !!opts.required,
    check: (v, f) => {
      if (!Array.isArray(v)) return Errors.invalidField(f, `${f} must be an array of uids`);
      if (v.length > opts.max) return Errors.invalidField(f, `${f} takes at most ${opts.max} uids`);
      const bad = v.findIndex((u) => !isWellFormedUid(u));
      return bad >= 0 ? Errors.invalidUid(`${f}[${bad}]`) : null;
    },
    parse: (v) => [...new Set(v as string[])],
    openapi: { type: [String], maxItems: opts.max, description: opts.description, example: opts.example },
  };
}

/** An ISO 8601 date-time of a real calendar date, as Unix seconds (2031-02-31 is refused, not rolled over). */
export function IsoDateTime(opts: Doc & { required?: boolean } = {}): FieldRule<number | undefined> {
  const text = Text({ required: opts.required, max: 64 });
  return {
    required: !!opts.required,
    check: (v, f) => {
      const e = text.check(v, f);
      if (e || !(v as string).trim()) return e;
      return parseIsoDateTime((v as string).trim()) === null
        ? Errors.invalidField(f, `${f} must be an ISO 8601 date-time of a real calendar date (e.g. 2031-02-28T10:00:00Z)`)
        : null;
    },
    parse: (v) => {
      const s = (v as string).trim();
      return s ? parseIsoDateTime(s)! / 1000 : undefined;
    },
    openapi: { type: String, format: 'date-time', description: opts.description, example: opts.example },
  };
}
