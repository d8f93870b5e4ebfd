import { Errors } from '../errors';

/** Credentials of a connection as a request gives them (REFERENCE §15.4). Secret values included. */
export type ConnectionAuthInput =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'headers'; headers: Record<string, string> }
  | { type: 'oauth'; client_id: string | null; client_secret: string | null; scopes: string[] };

export const AUTH_TYPES = ['none', 'bearer', 'headers', 'oauth'] as const;

/** Headers the transport owns: a connection may not set them. */
const TRANSPORT_HEADERS = new Set(['host', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'connection', 'transfer-encoding']);
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const MAX_HEADERS = 10;
const MAX_HEADER_VALUE = 8 * 1024;
const MAX_TOKEN = 8192;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads and checks `auth`; error messages never repeat a secret value. */
export function readConnectionAuth(raw: unknown, field = 'auth'): ConnectionAuthInput {
  if (raw === undefined || raw === null) return { type: 'none' };
  if (!isObject(raw)) throw Errors.invalidField(field, `${field} must be an object`);
  const type = raw.type;
  if (type === undefined) throw Errors.missingField(`${field}.type`);
  if (typeof type !== 'string' || !(AUTH_TYPES as readonly string[]).includes(type)) throw Errors.invalidField(`${field}.type`, `${field}.type must be one of ${AUTH_TYPES.join(', ')}`);
  switch (type) {
    case 'none':
      return { type: 'none' };
    case 'bearer': {
      const token = raw.token;
      if (token === undefined || token === null || token === '') throw Errors.missingField(`${field}.token`);
      if (typeof token !== 'string' || token.length > MAX_TOKEN || /[\r\n]/.test(token)) throw Errors.invalidField(`${field}.token`, `${field}.token must be a string of 1-${MAX_TOKEN} characters on one line`);
      return { type: 'bearer', token };
    }
    case 'headers': {
      const headers = raw.headers;
      if (headers === undefined || headers === null) throw Errors.missingField(`${field}.headers`);
      if (!isObject(headers)) throw Errors.invalidField(`${field}.headers`, `${field}.headers must be an object of header names to values`);
      const names = Object.keys(headers);
      if (names.length === 0 || names.length > MAX_HEADERS) throw Errors.invalidField(`${field}.headers`, `${field}.headers must hold 1-${MAX_HEADERS} headers`);
      const out: Record<string, string> = {};
      for (const name of names) {
        const lower = name.toLowerCase();
        if (!HEADER_NAME_RE.test(name)) throw Errors.invalidField(`${field}.headers`, `'${name}' is not a valid header name`);
        if (TRANSPORT_HEADERS.has(lower) || lower.startsWith('content-')) throw Errors.invalidField(`${field}.headers`, `${name} is a transport header and cannot be set`);
        const value = headers[name];
        if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value)) throw Errors.invalidField(`${field}.headers`, `the value of ${name} must be a string of at most 8 KiB on one line`);
        out[name] = value;
      }
      return { type: 'headers', headers: out };
    }
    default: {
      const str = (k: string, max: number): string | null => {
        const v = raw[k];
        if (v === undefined || v === null) return null;
        if (typeof v !== 'string' || v === '' || v.length > max) throw Errors.invalidField(`${field}.${k}`, `${field}.${k} must be a string of 1-${max} characters`);
        return v;
      };
      const scopes = raw.scopes ?? [];
      if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || s === '' || /\s/.test(s))) throw Errors.invalidField(`${field}.scopes`, `${field}.scopes must be a list of scope names`);
      return { type: 'oauth', client_id: str('client_id', 2048), client_secret: str('client_secret', 8192), scopes: scopes as string[] };
    }
  }
}

/** The headers a static credential sends; OAuth's come from its tokens. */
export function staticAuthHeaders(auth: ConnectionAuthInput): Record<string, string> {
  if (auth.type === 'bearer') return { authorization: `Bearer ${auth.token}` };
  if (auth.type === 'headers') return { ...auth.headers };
  return {};
}

/** Secret values shorter than this are not searched for: they would blank ordinary words. */
const REDACT_MIN = 4;

/**
 * The secret values to keep out of what a server's failure says: each one as sent, without
 * its `Bearer ` prefix, and in its JSON-escaped and URL-encoded forms.
 */
export function secretForms(values: readonly (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const bare = /^bearer\s+/i.test(v) ? v.replace(/^bearer\s+/i, '') : v;
    for (const s of [v, bare]) {
      if (s.length < REDACT_MIN) continue;
      out.add(s);
      out.add(JSON.stringify(s).slice(1, -1));
      out.add(encodeURIComponent(s));
    }
  }
  // longest first, so a value is never left half-redacted by a shorter one inside it
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every form of the secrets replaced by `[redacted]`. A server's error body may
 * echo the request it refused (a debug page listing the headers, a token endpoint repeating
 * the form): what Strata records or answers of it must not carry the credentials (§15.4).
 */
export function redactSecrets(text: string, values: readonly (string | null | undefined)[]): string {
  let out = text;
  for (const s of secretForms(values)) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
