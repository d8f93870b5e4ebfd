import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { assertObjectBody } from '@strata/domain/validation';
import { ValidationError, getMetadataStorage, validateSync } from 'class-validator';
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
  transform(raw: unknown, meta: ArgumentMetadata): unknown {
    if (meta.type !== 'body' || !meta.metatype) return raw;
    const rules = rulesOf(meta.metatype);
    if (!rules.size) return raw;
    return toDto(meta.metatype as new () => object, rules, raw);
  }
}

/** What the pipe hands a handler whose body parameter is typed `dto`: for routes on the fast lane. */
export function dtoBody<T extends object>(dto: new () => T, raw: unknown): T {
  const rules = rulesOf(dto);
  return rules.size ? toDto(dto, rules, raw) : (raw as T);
}

export function toDto<T extends object>(dto: new () => T, rules: Map<string, FieldRule>, raw: unknown): T {
  const body = assertObjectBody(raw);
  const candidate = Object.create(dto.prototype) as Record<string, unknown>;
  // null counts as omitted (REFERENCE §1.1)
  for (const field of rules.keys()) if (body[field] !== undefined && body[field] !== null) candidate[field] = body[field];
  if (onlyFieldRules(dto)) {
    // what class-validator would run, in declaration order: the first failure is the answer
    for (const [field, rule] of rules) {
      const v = candidate[field];
      if (v === undefined) {
        if (rule.required) throw new DomainError(400, 'missing_field', `${field} is required`, { field });
        continue;
      }
      const e = rule.check(v, field);
      if (e) throw e;
    }
  } else {
    const errors = validateSync(candidate, { whitelist: true, forbidUnknownValues: false, validationError: { target: false } });
    if (errors.length) throw firstError(errors, [...rules.keys()], candidate);
  }
  const out = new dto() as Record<string, unknown>;
  for (const [field, rule] of rules) {
    const v = candidate[field];
    out[field] = v === undefined ? undefined : rule.parse ? rule.parse(v) : v;
  }
  return out as T;
}

/** A DTO class's field rules, read once: declarations are done by the first request. */
const RULES_OF = new WeakMap<Function, Map<string, FieldRule>>();
function rulesOf(dto: Function): Map<string, FieldRule> {
  let r = RULES_OF.get(dto);
  if (!r) RULES_OF.set(dto, (r = fieldRules(dto)));
  return r;
}

/**
 * Whether every class-validator constraint of the DTO is a `@Field` rule: then the rules are
 * checked directly, without class-validator's per-call metadata walk (a good part of a small
 * write's CPU); a plain class-validator decorator anywhere keeps the whole DTO on validateSync.
 */
const FIELD_RULES_ONLY = new WeakMap<Function, boolean>();
function onlyFieldRules(dto: Function): boolean {
  let only = FIELD_RULES_ONLY.get(dto);
  if (only === undefined) {
    const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    only = metas.every((m) => m.name === FIELD_CONSTRAINT);
    FIELD_RULES_ONLY.set(dto, only);
  }
  return only;
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
