import { Errors } from '@strata/domain/errors';
import { isWellFormedUid } from '@strata/domain/validation';

/** A uid taken from the path: malformed → 400 invalid_uid naming the parameter. */
export function pathUid(value: string, field = 'uid'): string {
  if (!isWellFormedUid(value)) throw Errors.invalidUid(field);
  return value;
}

/** A positive integer from the path (history versions). */
export function pathPositiveInt(value: string, field: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 1) throw Errors.invalidField(field, `${field} must be a positive integer`);
  return n;
}
