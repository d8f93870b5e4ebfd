import { Api, ApiError, Session, buildUrl } from './api';

/** The session's storage and the network, as the browser would give them. */
function browserLike(responses: (req: { url: string; init: RequestInit }) => Response) {
  const store = new Map<string, string>();
  (globalThis as any).localStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  };
  const calls: { url: string; init: RequestInit }[] = [];
  (globalThis as any).fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return responses({ url, init });
  };
  return { store, calls };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const auth = (init: RequestInit) => (init.headers as Record<string, string>).authorization;

describe('the dashboard API client', () => {
  afterEach(() => {
    delete (globalThis as any).localStorage;
  });
  const realFetch = globalThis.fetch;
  afterAll(() => (globalThis.fetch = realFetch));

  it('refreshes once for concurrent 401s, stores the rotated refresh token, and retries with the new access token', async () => {
    let refreshes = 0;
    const net = browserLike(({ url, init }) => {
      if (url === '/v1/auth/refresh') {
        refreshes++;
        return json(200, { access_token: 'new-access', refresh_token: 'rotated', expires_in: 900 });
      }
      return auth(init) === 'Bearer new-access' ? json(200, { ok: url }) : json(401, { error: 'token expired', code: 'token_expired' });
    });
    const session = new Session();
    session.store({ access_token: 'old-access', refresh_token: 'first', expires_in: 900 });
    session.orgId = 'org-2';
    const api = new Api(session);
    const [a, b] = await Promise.all([api.get<{ ok: string }>('/stats'), api.get<{ ok: string }>('/jobs')]);
    expect([a.ok, b.ok]).toEqual(['/stats', '/jobs']);
    expect(refreshes).toBe(1);
    expect(net.store.get('strata.refresh_token')).toBe('rotated');
    const refresh = net.calls.find((c) => c.url === '/v1/auth/refresh')!;
    expect(JSON.parse(String(refresh.init.body))).toEqual({ refresh_token: 'first' });
    expect(auth(refresh.init)).toBeUndefined();
    // the organization goes with every authenticated call
    expect(net.calls.filter((c) => c.url !== '/v1/auth/refresh').every((c) => (c.init.headers as Record<string, string>)['x-org-id'] === 'org-2')).toBe(true);
  });

  it('a refused refresh signs out: tokens forgotten, the caller told', async () => {
    const net = browserLike(({ url }) => (url === '/v1/auth/refresh' ? json(401, { error: 'refresh token revoked', code: 'invalid_token' }) : json(401, { error: 'token expired', code: 'token_expired' })));
    const session = new Session();
    session.store({ access_token: 'a', refresh_token: 'r', expires_in: 900 });
    let signedOut = 0;
    session.onSignedOut = () => signedOut++;
    const err = await new Api(session).get<never>('/stats').catch((e: ApiError) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.message]).toEqual([401, 'token expired']);
    expect(signedOut).toBe(1);
    expect(net.store.size).toBe(0);
    expect(session.signedIn).toBe(false);
  });

  it('throws the server’s own message and code', async () => {
    browserLike(() => json(403, { error: 'owner or admin role required', code: 'insufficient_role' }));
    const session = new Session();
    session.store({ access_token: 'a', refresh_token: 'r', expires_in: 900 });
    const err = await new Api(session).post<never, '/v1/api-keys'>('/v1/api-keys', { name: 'k', scopes: ['read'] }).catch((e: ApiError) => e);
    expect([err.status, err.code, err.message]).toEqual([403, 'insufficient_role', 'owner or admin role required']);
  });

  it('builds paths and queries, encoding each value and leaving empty ones out', () => {
    expect(buildUrl('/node/{uid}/history/{version}', { uid: 'a/b c', version: 2 })).toBe('/node/a%2Fb%20c/history/2');
    expect(buildUrl('/jobs', {}, { status: 'failed', kind: '', limit: 10, x: undefined })).toBe('/jobs?status=failed&limit=10');
    expect(() => buildUrl('/node/{uid}')).toThrow('missing path parameter uid');
  });
});
