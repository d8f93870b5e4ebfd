import { DomainError, Errors } from '../errors';
import { normaliseEmail } from './account-events';

/**
 * The rules of account fields (REFERENCE §1.10 errors), one place for the /v1 DTOs and for
 * `strata admin create-owner`.
 */

export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_EMAIL = 254;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 1024;

/** Why a new password is refused, or null. No message ever echoes it. */
export function newPasswordProblem(v: unknown, field = 'password'): DomainError | null {
  if (v === undefined || v === null || v === '') return Errors.missingField(field);
  if (typeof v !== 'string') return Errors.invalidField(field, `${field} must be a string`);
  if (v.length < MIN_PASSWORD) return Errors.invalidField(field, `${field} must be at least ${MIN_PASSWORD} characters`);
  if (v.length > MAX_PASSWORD) return Errors.invalidField(field, `${field} must be at most ${MAX_PASSWORD} characters`);
  return null;
}

/** Why an e-mail address (as typed) is refused, or null. */
export function emailProblem(v: unknown, field = 'email'): DomainError | null {
  if (v === undefined || v === null) return Errors.missingField(field);
  if (typeof v !== 'string') return Errors.invalidField(field, `${field} must be a string`);
  const s = v.trim();
  if (!s) return Errors.missingField(field);
  if (s.length > MAX_EMAIL) return Errors.invalidField(field, `${field} must be at most ${MAX_EMAIL} characters`);
  return EMAIL_RE.test(s) ? null : Errors.invalidField(field, `${field} must be an e-mail address`);
}

export function readEmail(body: { email?: unknown }, field = 'email'): { email: string; email_norm: string } {
  const e = emailProblem(body.email, field);
  if (e) throw e;
  const email = (body.email as string).trim();
  return { email, email_norm: normaliseEmail(email) };
}

export function readNewPassword(body: { password?: unknown }): string {
  const e = newPasswordProblem(body.password);
  if (e) throw e;
  return body.password as string;
}

export function duplicateEmail(): DomainError {
  return new DomainError(409, 'duplicate', 'an account with this e-mail already exists', { field: 'email' });
}
