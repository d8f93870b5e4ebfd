import type { paths } from '../../../packages/client/src/schema';

/**
 * The dashboard's one way to call the service: same origin, the signed-in user's JWT, the
 * chosen organization in X-Org-Id. Paths and request bodies are typed from the service's
 * OpenAPI document (the generated `packages/client/src/schema.d.ts`); an expired access token
 * is refreshed once (the refresh token rotates on every use) and the call retried. Failures
 * throw ApiError carrying the server's own message and code.
 */
export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
export type PathWith<M extends Method> = { [P in keyof paths]: [NonNullable<paths[P][M]>] extends [never] ? never : P }[keyof paths];
type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type BodyOf<M extends Method, P extends keyof paths> = JsonBody<NonNullable<paths[P][M]>>;
type Query = Record<string, string | number | boolean | undefined | null>;

export interface CallOptions<B> {
  /** values for `{name}` in the path */
  path?: Record<string, string | number>;
  query?: Query;
  body?: B;
  /** no Authorization header (sign-up, sign-in, refresh) */
  anonymous?: boolean;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

const REFRESH_KEY = 'strata.refresh_token';
const ORG_KEY = 'strata.org_id';

/**
 * Where the session lives: the access token in memory only; the refresh token in
 * localStorage so a reload keeps the person signed in (docs/dashboard.md says why).
 */
export class Session {
  access: string | null = null;
  private refreshing: Promise<boolean> | null = null;
  onSignedOut: () => void = () => undefined;

  get refreshToken(): string | null {
    return localStorage.getItem(REFRESH_KEY);
  }
  get orgId(): string | null {
    return localStorage.getItem(ORG_KEY);
  }
  set orgId(id: string | null) {
    if (id) localStorage.setItem(ORG_KEY, id);
    else localStorage.removeItem(ORG_KEY);
  }
  get signedIn(): boolean {
    return this.access !== null || this.refreshToken !== null;
  }

  store(t: Tokens): void {
    this.access = t.access_token;
    localStorage.setItem(REFRESH_KEY, t.refresh_token);
  }

  clear(): void {
    this.access = null;
    localStorage.removeItem(REFRESH_KEY);
    localStorage.removeItem(ORG_KEY);
  }

  /**
   * One refresh at a time: concurrent 401s wait for the same exchange. Across tabs too: the
   * refresh token rotates on every use and a reused one revokes the whole session, so tabs take
   * turns (Web Locks) and each reads the token only once it holds the lock, after any other
   * tab's rotation.
   */
  refresh(api: Api): Promise<boolean> {
    if (!this.refreshing) {
      const exchange = async () => {
        const token = this.refreshToken;
        if (!token) return false;
        try {
          const t = await api.call<Tokens>('post', '/v1/auth/refresh', { body: { refresh_token: token }, anonymous: true });
          this.store(t);
          return true;
        } catch (err) {
          if (err instanceof ApiError && err.status === 401) {
            this.clear();
            this.onSignedOut();
          }
          return false;
        }
      };
      const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
      const running: Promise<boolean> = locks ? locks.request('strata.refresh', exchange).then(async (ok) => await ok) : exchange();
      this.refreshing = running.finally(() => (this.refreshing = null));
    }
    return this.refreshing!;
  }
}

export class Api {
  constructor(readonly session: Session) {}

  get<R>(path: PathWith<'get'>, opts: CallOptions<never> = {}): Promise<R> {
    return this.call<R>('get', path, opts);
  }
  post<R, P extends PathWith<'post'> = PathWith<'post'>>(path: P, body?: BodyOf<'post', P>, opts: CallOptions<never> = {}): Promise<R> {
    return this.call<R>('post', path, { ...opts, body });
  }
  patch<R, P extends PathWith<'patch'> = PathWith<'patch'>>(path: P, body: BodyOf<'patch', P>, opts: CallOptions<never> = {}): Promise<R> {
    return this.call<R>('patch', path, { ...opts, body });
  }
  delete<R>(path: PathWith<'delete'>, opts: CallOptions<never> = {}): Promise<R> {
    return this.call<R>('delete', path, opts);
  }

  async call<R>(method: Method, template: keyof paths, opts: CallOptions<unknown> = {}, retried = false): Promise<R> {
    const url = buildUrl(template, opts.path, opts.query);
    if (!opts.anonymous && !this.session.access && !retried && this.session.refreshToken) await this.session.refresh(this);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (!opts.anonymous && this.session.access) headers.authorization = `Bearer ${this.session.access}`;
    if (!opts.anonymous && this.session.orgId) headers['x-org-id'] = this.session.orgId;
    let res: Response;
    try {
      res = await fetch(url, { method: method.toUpperCase(), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    } catch {
      throw new ApiError(0, 'network_error', 'The service could not be reached. Check the connection and try again.', null);
    }
    if (res.status === 401 && !opts.anonymous && !retried) {
      this.session.access = null;
      if (await this.session.refresh(this)) return this.call<R>(method, template, opts, true);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    if (!res.ok) {
      const b = (body ?? {}) as { error?: unknown; code?: unknown };
      const message = typeof b.error === 'string' ? b.error : `${res.status} ${res.statusText}`;
      throw new ApiError(res.status, typeof b.code === 'string' ? b.code : `http_${res.status}`, message, body);
    }
    return body as R;
  }
}

/**
 * Opens a streaming GET (an event stream) with the same credentials and the same one refresh
 * on a 401 as `call`: EventSource cannot send an Authorization header, so streams are read
 * through fetch. Resolves with the open response; a refusal throws ApiError with the server's message.
 */
export async function openStream(api: Api, template: PathWith<'get'>, opts: CallOptions<never>, signal: AbortSignal, retried = false): Promise<Response> {
  const session = api.session;
  if (!session.access && !retried && session.refreshToken) await session.refresh(api);
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (session.access) headers.authorization = `Bearer ${session.access}`;
  if (session.orgId) headers['x-org-id'] = session.orgId;
  let res: Response;
  try {
    res = await fetch(buildUrl(template, opts.path, opts.query), { headers, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check the connection and try again.', null);
  }
  if (res.status === 401 && !retried) {
    session.access = null;
    if (await session.refresh(api)) return openStream(api, template, opts, signal, true);
  }
  if (!res.ok) {
    const text = await res.text();
    let body: { error?: unknown; code?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      /* not JSON: the status says it */
    }
    throw new ApiError(res.status, typeof body.code === 'string' ? body.code : `http_${res.status}`, typeof body.error === 'string' ? body.error : `${res.status} ${res.statusText}`, body);
  }
  return res;
}

export function buildUrl(template: string, params: Record<string, string | number> = {}, query: Query = {}): string {
  const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(v));
  });
  const qs = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return qs ? `${path}?${qs}` : path;
}
