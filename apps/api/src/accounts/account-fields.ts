import { Errors } from '@strata/domain/errors';
import { KEY_SCOPES, KeyScope } from '@strata/domain/accounts';
import { MAX_EMAIL, MAX_PASSWORD, MIN_PASSWORD, emailProblem, newPasswordProblem } from '@strata/domain/accounts/account-input';
import { isWellFormedUid } from '@strata/domain/validation';
import { FieldRule } from '../platform/http/dto/field.decorator';
import { StringList, Text } from '../platform/http/dto/field-rules';

/** The accounts' own field kinds for their DTOs; the rules themselves are the domain's (account-input.ts). */

/** An e-mail address as typed (trimmed); `normaliseEmail` gives the key accounts are found by. */
export function Email(): FieldRule<string> {
  return {
    required: true,
    check: (v, f) => emailProblem(v, f),
    parse: (v) => (v as string).trim(),
    openapi: { type: String, format: 'email', maxLength: MAX_EMAIL, example: 'ada@example.com' },
  };
}

/** A new password: 10 to 1024 characters. No message ever echoes it. */
export const NewPassword: FieldRule<string> = {
  required: true,
  check: (v, f) => newPasswordProblem(v, f),
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
