import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { DomainError } from '@strata/domain/errors';
import { registerDecorator } from 'class-validator';

/**
 * One field of a management request body: how it is checked, what it becomes once valid, and
 * how OpenAPI describes it. `check` returns the REFERENCE §1.10 error naming the field
 * (`missing_field`, `invalid_field`, `invalid_uid`…) or null; `value` is never null here
 * (null counts as omitted, REFERENCE §1.1).
 */
export interface FieldRule<T = unknown> {
  required: boolean;
  check(value: unknown, field: string): DomainError | null;
  /** the typed value the handler receives; the raw one when absent */
  parse?(value: unknown): T;
  openapi: ApiPropertyOptions;
}

/** The constraint name under which every field rule is registered with class-validator. */
export const FIELD_CONSTRAINT = 'strataField';

const RULES = new WeakMap<object, Map<string, FieldRule>>();

/** The rules declared on a DTO class, in declaration order (inherited ones first). */
export function fieldRules(dto: Function): Map<string, FieldRule> {
  const out = new Map<string, FieldRule>();
  const chain: Function[] = [];
  for (let c: Function | null = dto; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  for (const c of chain) for (const [k, v] of RULES.get(c) ?? []) out.set(k, v);
  return out;
}

/** Declares a body field: a class-validator constraint plus its OpenAPI property. */
export function Field(rule: FieldRule): PropertyDecorator {
  const register: PropertyDecorator = (target, key) => {
    const field = String(key);
    const rules = RULES.get(target.constructor) ?? new Map<string, FieldRule>();
    rules.set(field, rule);
    RULES.set(target.constructor, rules);
    registerDecorator({
      name: FIELD_CONSTRAINT,
      target: target.constructor,
      propertyName: field,
      // the pipe rebuilds the error from the rule, so the message is only a fallback
      options: { context: { rule } },
      validator: {
        validate: (value: unknown) => (value === undefined ? !rule.required : rule.check(value, field) === null),
        defaultMessage: () => `${field} is invalid`,
      },
    });
  };
  return applyDecorators(register, ApiProperty({ ...rule.openapi, required: rule.required } as ApiPropertyOptions));
}
