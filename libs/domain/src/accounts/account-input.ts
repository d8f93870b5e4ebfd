import { DomainError, Errors } from '../errors';
import { KEY_SCOPES, KeyScope, PLAN_IDS, PlanId, ROLES, Role, normaliseEmail } from './account-events';
import { Body, isWellFormedUid, parseIsoDateTime, readEnum, readNumber, readString, readStringArray, readUids } from '../validation';

/** Request readers for the accounts routes; errors are `{error, code, field}` (REFERENCE §1.10). */

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD = 10;
const MAX_PASSWORD = 1024;

export function readEmail(body: Body, field = 'email'): { email: string; email_norm: string } {
  const raw = readString(body, field, { required: true, trim: true, max: 254 })!;
  if (!EMAIL_RE.test(raw)) throw Errors.invalidField(field, `${field} must be an e-mail address`);
  return { email: raw, email_norm: normaliseEmail(raw) };
}

/** A new password: 10 to 1024 characters. The message never echoes it. */
export function readNewPassword(body: Body): string {
  const v = body.password;
  if (v === undefined || v === null || v === '') throw Errors.missingField('password');
  if (typeof v !== 'string') throw Errors.invalidField('password', 'password must be a string');
  if (v.length < MIN_PASSWORD) throw Errors.invalidField('password', `password must be at least ${MIN_PASSWORD} characters`);
  if (v.length > MAX_PASSWORD) throw Errors.invalidField('password', `password must be at most ${MAX_PASSWORD} characters`);
  return v;
}

export function readLoginPassword(body: Body): string {
  const v = body.password;
  if (v === undefined || v === null || v === '') throw Errors.missingField('password');
  if (typeof v !== 'string' || v.length > MAX_PASSWORD) throw Errors.invalidField('password', 'password must be a string');
  return v;
}

export interface SignupInput {
  email: string;
  email_norm: string;
  password: string;
  name: string | null;
  organization_name: string | null;
}

export function readSignup(body: Body): SignupInput {
  const { email, email_norm } = readEmail(body);
  const password = readNewPassword(body);
  const name = readString(body, 'name', { trim: true, max: 200 }) ?? null;
  const organization_name = readString(body, 'organization_name', { trim: true, max: 200 }) ?? null;
  return { email, email_norm, password, name, organization_name };
}

export function readRole(body: Body, def: Role): Role {
  return readEnum(body, 'role', ROLES) ?? def;
}

export function readPlan(body: Body): PlanId {
  return readEnum(body, 'plan', PLAN_IDS, { required: true })!;
}

/** An ISO 8601 date-time in the future, as Unix seconds. */
export function readFutureTime(body: Body, field: string, now: number): number | undefined {
  const s = readString(body, field, { trim: true, max: 64 });
  if (s === undefined) return undefined;
  const ms = parseIsoDateTime(s); // strict: an impossible date such as 2031-02-31 is refused, not rolled over
  if (ms === null) throw Errors.invalidField(field, `${field} must be an ISO 8601 date-time of a real calendar date (e.g. 2031-02-28T10:00:00Z)`);
  if (ms / 1000 <= now) throw Errors.invalidField(field, `${field} must be in the future`);
  return ms / 1000;
}

export interface ApiKeyInput {
  name: string;
  scopes: KeyScope[];
  expires_at: number | null;
  space_uids: string[] | null;
  project_uids: string[] | null;
  agent_id: string | null;
}

export function readScopes(body: Body): KeyScope[] {
  const raw = readStringArray(body, 'scopes', { required: true, max: 10 })!;
  if (!raw.length) throw Errors.invalidField('scopes', `scopes must not be empty; valid scopes: ${KEY_SCOPES.join(', ')}`);
  for (const s of raw)
    if (!KEY_SCOPES.includes(s as KeyScope)) throw Errors.invalidField('scopes', `unknown scope '${s}'; valid scopes: ${KEY_SCOPES.join(', ')}`, { allowed: [...KEY_SCOPES] });
  // write implies read: a key that may write may also read what it wrote
  const set = new Set(raw as KeyScope[]);
  if (set.has('write')) set.add('read');
  return KEY_SCOPES.filter((s) => set.has(s));
}

export function readApiKey(body: Body, now: number): ApiKeyInput {
  return {
    name: readString(body, 'name', { required: true, trim: true, max: 200 })!,
    scopes: readScopes(body),
    expires_at: readFutureTime(body, 'expires_at', now) ?? null,
    space_uids: readUids(body, 'space_uids', { max: 1000 }) ?? null,
    project_uids: readUids(body, 'project_uids', { max: 1000 }) ?? null,
    agent_id: readAgentId(body),
  };
}

/** The agent a key is bound to (REFERENCE §1.5: at most 128 characters; 400 invalid_field). */
export function readAgentId(body: Body): string | null {
  const v = readString(body, 'agent_id', { trim: true, max: 128 });
  if (v === undefined) return null;
  if (!isWellFormedUid(v)) throw Errors.invalidField('agent_id', 'agent_id must be 1 to 128 characters from A-Z, a-z, 0-9, ".", "_", ":" and "-"');
  return v;
}

export function readOverlap(body: Body, def: number): number {
  return readNumber(body, 'overlap_seconds', { integer: true, min: 0 }) ?? def;
}

export function duplicateEmail(): DomainError {
  return new DomainError(409, 'duplicate', 'an account with this e-mail already exists', { field: 'email' });
}
