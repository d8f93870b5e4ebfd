import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { assertObjectBody } from '@strata/domain/validation';
import { ValidationError, validateSync } from 'class-validator';
import { FIELD_CONSTRAINT, FieldRule, fieldRules } from './field.decorator';

/**
 * Validates a body parameter typed as a DTO class (one declaring `@Field`s) with
 * class-validator and hands the handler a typed instance: parsed values, omitted fields
 * undefined, unknown fields dropped. The first failing field, in declaration order, answers
 * its REFERENCE §1.10 error (`{error, code, field}`); a body that is not a JSON object is 400
 * `invalid_json`. Parameters of any other type pass through untouched.
 */
@Injectable()
export class DtoBodyPipe implements PipeTransform {
  /** per parameter type: its rules are declared when its class is defined, before any request */
  private readonly rules = new Map<Function, Map<string, FieldRule>>();

  transform(raw: unknown, meta: ArgumentMetadata): unknown {
    if (meta.type !== 'body' || !meta.metatype) return raw;
    let rules = this.rules.get(meta.metatype);
    if (rules === undefined) this.rules.set(meta.metatype, (rules = fieldRules(meta.metatype)));
    if (!rules.size) return raw;
    return toDto(meta.metatype as new () => object, rules, raw);
  }
}

export function toDto<T extends object>(dto: new () => T, rules: Map<string, FieldRule>, raw: unknown): T {
  const body = assertObjectBody(raw);
  const candidate = Object.create(dto.prototype) as Record<string, unknown>;
  // null counts as omitted (REFERENCE §1.1)
  for (const field of rules.keys()) if (body[field] !== undefined && body[field] !== null) candidate[field] = body[field];
  const errors = validateSync(candidate, { whitelist: true, forbidUnknownValues: false, validationError: { target: false } });
  if (errors.length) throw firstError(errors, [...rules.keys()], candidate);
  const out = new dto() as Record<string, unknown>;
  for (const [field, rule] of rules) {
    const v = candidate[field];
    out[field] = v === undefined ? undefined : rule.parse ? rule.parse(v) : v;
  }
  return out as T;
}

function firstError(errors: ValidationError[], order: string[], candidate: Record<string, unknown>): DomainError {
  const first = [...errors].sort((a, b) => order.indexOf(a.property) - order.indexOf(b.property))[0];
  const rule = (first.contexts?.[FIELD_CONSTRAINT] as { rule?: FieldRule } | undefined)?.rule;
  const value = candidate[first.property];
  if (rule) {
    if (value === undefined) return new DomainError(400, 'missing_field', `${first.property} is required`, { field: first.property });
    const e = rule.check(value, first.property);
    if (e) return e;
  }
  // a constraint declared with a plain class-validator decorator
  return new DomainError(400, 'invalid_field', Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`, { field: first.property });
}
