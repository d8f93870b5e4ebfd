import { randomBytes } from 'node:crypto';

/** A response as tests see it: status, parsed JSON body (or null), headers, raw text. */
export interface HttpResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  /** Bearer token (JWT or API key) */
  token?: string;
  /** JSON body (sent with Content-Type: application/json) */
  body?: unknown;
  /** raw body sent as is (with `contentType`, default application/json) */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** X-Org-Id header */
  org?: string;
}

/** One HTTP request against the service. Never throws on 4xx/5xx. */
export async function request<T = any>(base: string, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.org) headers['x-org-id'] = opts.org;
  let body: string | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] = opts.contentType ?? 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/** A tiny client bound to a base URL and (optionally) a token: `api(url, key).get('/nodes')`. */
export function api(base: string, token?: string, defaults: Omit<RequestOptions, 'body' | 'token'> = {}) {
  const o = (extra: RequestOptions = {}): RequestOptions => ({ ...defaults, token, ...extra });
  return {
    get: <T = any>(path: string, extra?: RequestOptions) => request<T>(base, 'GET', path, o(extra)),
    post: <T = any>(path: string, body?: unknown, extra?: RequestOptions) => request<T>(base, 'POST', path, o({ body, ...extra })),
    put: <T = any>(path: string, body?: unknown, extra?: RequestOptions) => request<T>(base, 'PUT', path, o({ body, ...extra })),
    patch: <T = any>(path: string, body?: unknown, extra?: RequestOptions) => request<T>(base, 'PATCH', path, o({ body, ...extra })),
    delete: <T = any>(path: string, extra?: RequestOptions) => request<T>(base, 'DELETE', path, o(extra)),
    /** same client with another token */
    as: (other?: string) => api(base, other, defaults),
  };
}
export type Api = ReturnType<typeof api>;

function expectStatus(res: HttpResponse, expected: number, what: string): void {
  if (res.status !== expected) throw new Error(`${what}: expected ${expected}, got ${res.status}: ${res.text}`);
}

export interface SignedUp {
  access_token: string;
  refresh_token: string;
  org_id: string;
  user_id: string;
  email: string;
  password: string;
  /** the full 201 body */
  body: any;
}

let counter = 0;
/** A unique e-mail address for a test user. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${process.pid.toString(36)}-${(counter++).toString(36)}-${randomBytes(4).toString('hex')}@example.test`;
}

/** Signs a new user up (a new organization comes with it, the user its owner). */
export async function signUp(
  url: string,
  opts: { email?: string; password?: string; name?: string; org?: string } = {},
): Promise<SignedUp> {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? `pw-${randomBytes(9).toString('base64url')}`;
  const res = await request(url, 'POST', '/v1/auth/signup', {
    body: { email, password, name: opts.name, organization_name: opts.org },
  });
  expectStatus(res, 201, 'signUp');
  return {
    access_token: res.body.access_token,
    refresh_token: res.body.refresh_token,
    org_id: res.body.organization.id,
    user_id: res.body.user.id,
    email,
    password,
    body: res.body,
  };
}

/** Signs in: `{access_token, refresh_token, token_type, expires_in}`. */
export async function login(url: string, email: string, password: string): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const res = await request(url, 'POST', '/v1/auth/login', { body: { email, password } });
  expectStatus(res, 200, 'login');
  return res.body;
}

export interface CreatedKey {
  id: string;
  /** the secret (`strata_…`), shown once */
  key: string;
  prefix: string;
  scopes: string[];
  expires_at: string | null;
  body: any;
}

/** Creates an API key with an owner/admin JWT (`org` picks the organization via X-Org-Id). */
export async function createApiKey(
  url: string,
  token: string,
  opts: {
    scopes?: ('read' | 'write')[];
    name?: string;
    expires_at?: string;
    space_uids?: string[];
    project_uids?: string[];
    agent_id?: string;
    org?: string;
  } = {},
): Promise<CreatedKey> {
  const { org, ...rest } = opts;
  const res = await request(url, 'POST', '/v1/api-keys', {
    token,
    org,
    body: { name: rest.name ?? 'test key', scopes: rest.scopes ?? ['read', 'write'], ...rest },
  });
  expectStatus(res, 201, 'createApiKey');
  return { id: res.body.id, key: res.body.key, prefix: res.body.prefix, scopes: res.body.scopes, expires_at: res.body.expires_at, body: res.body };
}

/** Sign up and create a read+write key in one go: the common set-up of graph e2e tests. */
export async function signUpWithKey(url: string, opts: { scopes?: ('read' | 'write')[] } = {}): Promise<SignedUp & { key: string; key_id: string }> {
  const s = await signUp(url);
  const k = await createApiKey(url, s.access_token, { scopes: opts.scopes ?? ['read', 'write'] });
  return { ...s, key: k.key, key_id: k.id };
}
