import { DomainError, Errors } from '@strata/domain/errors';
import { KEY_SCOPES, KeyScope, normaliseEmail } from '@strata/domain/accounts';
import { isWellFormedUid } from '@strata/domain/validation';
import { FieldRule } from '../platform/http/dto/field.decorator';
import { StringList, Text } from '../platform/http/dto/field-rules';

/** The accounts' own field kinds (REFERENCE §1.10 errors), used by their DTOs and by `strata admin create-owner`. */

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD = 10;
const MAX_PASSWORD = 1024;

/** An e-mail address as typed (trimmed); `normaliseEmail` gives the key accounts are found by. */
export function Email(opts: { required?: boolean } = { required: true }): FieldRule<string | undefined> {
  const text = Text({ required: opts.required, max: 254 });
  return {
    ...text,
    check: (v, f) => text.check(v, f) ?? (typeof v === 'string' && v.trim() && !EMAIL_RE.test(v.trim()) ? Errors.invalidField(f, `${f} must be an e-mail address`) : null),
    openapi: { type: String, format: 'email', maxLength: 254, example: 'ada@example.com' },
  };
}

/** A new password: 10 to 1024 characters. No message ever echoes it. */
export const NewPassword: FieldRule<string> = {
  required: true,
  check: (v, f) => {
    if (v === '') return Errors.missingField(f);
    if (typeof v !== 'string') return Errors.invalidField(f, `${f} must be a string`);
    if (v.length < MIN_PASSWORD) return Errors.invalidField(f, `${f} must be at least ${MIN_PASSWORD} characters`);
    if (v.length > MAX_PASSWORD) return Errors.invalidField(f, `${f} must be at most ${MAX_PASSWORD} characters`);
    return null;
  },
  openapi: { type: String, format: 'password', minLength: MIN_PASSWORD, maxLength: MAX_PASSWORD },
};

/** The password of a sign-in: any string up to 1024 characters (its rules are checked where it was set). */
export const LoginPassword: FieldRule<string> = {
  required: true,
  check: (v, f) => (v === '' ? Errors.missingField(f) : typeof v !== 'string' || v.length > MAX_PASSWORD ? Errors.invalidField(f, `${f} must be a string`) : null),
  openapi: { type: String, format: 'password', maxLength: MAX_PASSWORD },
};

/** Key scopes: non-empty, known; write implies read (a key that may write may read what it wrote). */
export const Scopes: FieldRule<KeyScope[]> = {
  ...StringList({
    required: true,
    max: 10,
    check: (list, f) => {
      if (!list.length) return Errors.invalidField(f, `${f} must not be empty; valid scopes: ${KEY_SCOPES.join(', ')}`);
      const unknown = list.find((s) => !KEY_SCOPES.includes(s as KeyScope));
      return unknown === undefined ? null : Errors.invalidField(f, `unknown scope '${unknown}'; valid scopes: ${KEY_SCOPES.join(', ')}`, { allowed: [...KEY_SCOPES] });
    },
  }),
  parse: (v) => {
    const set = new Set(v as KeyScope[]);
    if (set.has('write')) set.add('read');
    return KEY_SCOPES.filter((s) => set.has(s));
  },
  openapi: { type: [String], enum: [...KEY_SCOPES], example: ['read', 'write'], description: '`write` implies `read`' },
};

/** The agent a key is bound to (REFERENCE §1.5: at most 128 characters). */
export const AgentId: FieldRule<string | undefined> = (() => {
  const text = Text({ max: 128 });
  return {
    ...text,
    check: (v, f) =>
      text.check(v, f) ??
      (typeof v === 'string' && v.trim() && !isWellFormedUid(v.trim())
        ? Errors.invalidField(f, `${f} must be 1 to 128 characters from A-Z, a-z, 0-9, ".", "_", ":" and "-"`)
        : null),
    openapi: { type: String, maxLength: 128, description: 'binds the key to this agent: its writes are attributed to it' },
  };
})();

/** Checks one value against a field kind outside a request body (the CLI's create-owner). */
export function checkField<T>(rule: FieldRule<T>, field: string, value: unknown): T {
  if (value === undefined || value === null) {
    if (rule.required) throw Errors.missingField(field);
    return undefined as T;
  }
  const e = rule.check(value, field);
  if (e) throw e;
  return (rule.parse ? rule.parse(value) : value) as T;
}

export function readEmail(body: { email?: unknown }, field = 'email'): { email: string; email_norm: string } {
  const email = checkField(Email(), field, body.email)!;
  return { email, email_norm: normaliseEmail(email) };
}

export function readNewPassword(body: { password?: unknown }): string {
  return checkField(NewPassword, 'password', body.password);
}

export function duplicateEmail(): DomainError {
  return new DomainError(409, 'duplicate', 'an account with this e-mail already exists', { field: 'email' });
}
