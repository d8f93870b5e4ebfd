import { Errors } from '@strata/domain/errors';
import { FieldRule } from '../platform/http/dto/field.decorator';

/** The ontology's own field kinds for its DTOs; what the values mean is the domain's to check (422). */

interface Doc {
  description?: string;
  example?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON array of at most `max` entries (FieldDefinitions, examples, proposal ids). */
export function JsonArray(opts: Doc & { required?: boolean; max: number }): FieldRule<unknown[]> {
  return {
    required: !!opts.required,
    check: (v, f) => (!Array.isArray(v) ? Errors.invalidField(f, `${f} must be an array`) : v.length > opts.max ? Errors.invalidField(f, `${f} takes at most ${opts.max} entries`) : null),
    openapi: { type: 'array', items: { type: 'object' }, maxItems: opts.max, description: opts.description, example: opts.example },
  };
}

/** A JSON object (fields of a domain object, identity, backing, semantic_match). */
export function JsonObject(opts: Doc & { required?: boolean } = {}): FieldRule<Record<string, unknown>> {
  return {
    required: !!opts.required,
    check: (v, f) => (isObject(v) ? null : Errors.invalidField(f, `${f} must be an object`)),
    openapi: { type: 'object', additionalProperties: true, description: opts.description, example: opts.example },
  };
}

/** Any JSON value (extraction hints). */
export function AnyJson(opts: Doc = {}): FieldRule<unknown> {
  return { required: false, check: () => null, openapi: { description: opts.description, example: opts.example } };
}

export function Bool(opts: Doc & { required?: boolean } = {}): FieldRule<boolean> {
  return {
    required: !!opts.required,
    check: (v, f) => (typeof v === 'boolean' ? null : Errors.invalidField(f, `${f} must be a boolean`)),
    openapi: { type: Boolean, description: opts.description, example: opts.example },
  };
}

/** A number from 0 to 1 (confidence). */
export function Unit(opts: Doc = {}): FieldRule<number> {
  return {
    required: false,
    check: (v, f) => (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1 ? Errors.invalidField(f, `${f} must be a number from 0 to 1`) : null),
    openapi: { type: Number, minimum: 0, maximum: 1, description: opts.description, example: opts.example },
  };
}

/** A /v1 resource id taken from the path; any other shape cannot name one (404 rather than 400). */
export function pathId(value: string): string {
  return value;
}
