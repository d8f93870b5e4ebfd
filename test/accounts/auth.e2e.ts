import * as fs from 'node:fs';
import * as path from 'node:path';
import { TestApp, startTestApp } from '../support/test-app';
import { api, login, request, signUp, uniqueEmail } from '../support/http';
import { FixedClock } from '@strata/domain/time';


describe('sign-up, sign-in and refresh', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('signs up: 201 with user, organization (owner), tokens; ISO times; never the password', async () => {
    const email = uniqueEmail('ada');
    const res = await request(t.url, 'POST', '/v1/auth/signup', {
      body: { email, password: 'correct horse battery', name: 'Ada', organization_name: 'Analytical Engines' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user: { email, name: 'Ada' },
      organization: { name: 'Analytical Engines', role: 'owner', plan: 'free' },
      token_type: 'Bearer',
      expires_in: 900,
    });
    expect(res.body.user.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body.organization.created_at).toMatch(/Z$/);
    expect(typeof res.body.access_token).toBe('string');
    expect(typeof res.body.refresh_token).toBe('string');
    expect(res.text).not.toContain('correct horse battery');
    expect(res.text).not.toContain('argon2');
  });

  it('names a default organization when none is given', async () => {
    const s = await signUp(t.url, { name: 'Grace' });
    expect(s.body.organization.name).toBe("Grace's organization");
  });

  it('refuses a duplicate e-mail (409, case-insensitive)', async () => {
    const email = uniqueEmail('dup');
    await signUp(t.url, { email });
    const res = await request(t.url, 'POST', '/v1/auth/signup', { body: { email: email.toUpperCase(), password: 'another password' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'duplicate', field: 'email' });
  });

  it('validates sign-up input with {error, code, field}', async () => {
    const cases: [unknown, number, string, string][] = [
      [{ password: 'long enough pw' }, 400, 'missing_field', 'email'],
      [{ email: 'not-an-email', password: 'long enough pw' }, 400, 'invalid_field', 'email'],
      [{ email: uniqueEmail(), password: 'short' }, 400, 'invalid_field', 'password'],
      [{ email: uniqueEmail() }, 400, 'missing_field', 'password'],
      [{ email: uniqueEmail(), password: 12345678901 }, 400, 'invalid_field', 'password'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await request(t.url, 'POST', '/v1/auth/signup', { body });
      expect([res.status, res.body.code, res.body.field]).toEqual([status, code, field]);
    }
    const bad = await request(t.url, 'POST', '/v1/auth/signup', { raw: '{nope' });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_json']);
    const short = await request(t.url, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail(), password: 'tooshort' } });
    expect(short.text).not.toContain('tooshort');
  });

  it('signs in; the access token works; wrong e-mail and wrong password look the same', async () => {
    const s = await signUp(t.url);
    const tokens = await login(t.url, s.email, s.password);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    const me = await api(t.url, tokens.access_token).get('/v1/account');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(s.user_id);

    const wrongPw = await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email, password: 'wrong password!' } });
    const wrongEmail = await request(t.url, 'POST', '/v1/auth/login', { body: { email: uniqueEmail('nobody'), password: s.password } });
    // a public route never answers 401 (REFERENCE §1.11): bad credentials are a bad field value
    expect(wrongPw.status).toBe(400);
    expect(wrongEmail.status).toBe(400);
    expect(wrongPw.body).toEqual(wrongEmail.body);
    expect(wrongPw.body).toEqual({ error: 'invalid email or password', code: 'invalid_field' });
    expect(wrongPw.headers.get('www-authenticate')).toBeNull();
    // e-mail is case-insensitive
    expect((await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email.toUpperCase(), password: s.password } })).status).toBe(200);
  });

  it('throttles repeated failed sign-ins (429 with Retry-After), even with the right password, then per e-mail only', async () => {
    const s = await signUp(t.url);
    for (let i = 0; i < 5; i++) {
      const r = await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email, password: `wrong password ${i}` } });
      expect([r.status, r.body.code]).toEqual([400, 'invalid_field']);
    }
    const blocked = await request(t.url, 'POST', '/v1/auth/login', { body: { email: s.email, password: s.password } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // another account from the same address is not affected
    const other = await signUp(t.url);
    expect((await request(t.url, 'POST', '/v1/auth/login', { body: { email: other.email, password: other.password } })).status).toBe(200);
  });

  it('rotates refresh tokens; a reused refresh token revokes the whole family', async () => {
    const s = await signUp(t.url);
    const r1 = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(r1.body.refresh_token).not.toBe(s.refresh_token);
    expect((await api(t.url, r1.body.access_token).get('/v1/account')).status).toBe(200);

    const r2 = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: r1.body.refresh_token } });
    expect(r2.status).toBe(200);

    // the first token again: reuse → 400 (never 401 on a public route), and the family's live token (r2) stops working too
    const reuse = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ error: 'invalid refresh token: unknown, expired, revoked or already used; sign in again', code: 'invalid_field', field: 'refresh_token' });
    expect(reuse.headers.get('www-authenticate')).toBeNull();
    const afterRevoke = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: r2.body.refresh_token } });
    expect([afterRevoke.status, afterRevoke.body.code]).toEqual([400, 'invalid_field']);

    // another session (a new sign-in) is a different family and still works
    const again = await login(t.url, s.email, s.password);
    expect((await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: again.refresh_token } })).status).toBe(200);
  });

  it('refuses malformed, unknown and forged refresh tokens', async () => {
    const s = await signUp(t.url);
    const [id] = s.refresh_token.split('.');
    for (const token of ['garbage', `${id}.${'x'.repeat(43)}`, `00000000-0000-4000-8000-000000000000.${'a'.repeat(43)}`]) {
      const r = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: token } });
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_field', 'refresh_token']);
    }
    // a forged secret for a real id does not burn the real token
    expect((await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } })).status).toBe(200);
    const missing = await request(t.url, 'POST', '/v1/auth/refresh', { body: {} });
    expect([missing.status, missing.body.code, missing.body.field]).toEqual([400, 'missing_field', 'refresh_token']);
  });

  it('answers the exact 401 bodies, with WWW-Authenticate', async () => {
    const none = await request(t.url, 'GET', '/v1/account');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'missing Authorization: Bearer <token> header', code: 'unauthorized' });
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="strata"');

    const basic = await request(t.url, 'GET', '/nodes', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect([basic.status, basic.body.code]).toEqual([401, 'unauthorized']);

    // a Bearer header whose token is malformed is invalid_token, not a missing header
    for (const authorization of ['Bearer x y', 'Bearer']) {
      for (const p of ['/nodes', '/node/some-uid']) {
        const bad = await request(t.url, 'GET', p, { headers: { authorization } });
        expect([authorization, p, bad.status, bad.body]).toEqual([authorization, p, 401, { error: 'invalid token', code: 'invalid_token' }]);
        expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="strata", error="invalid_token"');
      }
    }

    for (const token of ['not-a-jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad', 'strata_unknownkey0000000000000000000000000000']) {
      const bad = await request(t.url, 'GET', '/nodes', { token });
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ error: 'invalid token', code: 'invalid_token' });
      expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="strata", error="invalid_token"');
    }
  });

  it('public routes never answer 401, even with a bad token', async () => {
    for (const [method, p, body] of [
      ['GET', '/health', undefined],
      ['GET', '/v1/billing/plans', undefined],
      ['POST', '/v1/auth/login', { email: uniqueEmail(), password: 'whatever12345' }],
      ['POST', '/v1/auth/refresh', { refresh_token: 'nope' }],
    ] as const) {
      const noToken = await request(t.url, method, p, { body });
      const badToken = await request(t.url, method, p, { body, token: 'bogus' });
      if (p === '/v1/auth/login' || p === '/v1/auth/refresh') {
        // refused credentials in the body are 400 invalid_field, never a 401, with or without a header
        expect([noToken.status, noToken.body.code]).toEqual([400, 'invalid_field']);
        expect(badToken.status).toBe(400);
        expect(badToken.body).toEqual(noToken.body);
        expect(badToken.headers.get('www-authenticate')).toBeNull();
      } else {
        expect(noToken.status).toBe(200);
        expect(badToken.status).toBe(200);
      }
    }
    const signup = await request(t.url, 'POST', '/v1/auth/signup', { token: 'bogus', body: { email: uniqueEmail(), password: 'long enough password' } });
    expect(signup.status).toBe(201);
  });

  it('ignores access_token in the body or query string (only the header authenticates)', async () => {
    const s = await signUp(t.url);
    const q = await request(t.url, 'GET', `/v1/account?access_token=${s.access_token}`);
    expect([q.status, q.body.code]).toEqual([401, 'unauthorized']);
    // with a header, an access_token field in the body is just an unknown field
    const both = await api(t.url, s.access_token).post('/v1/orgs', { name: 'Body token', access_token: 'x' });
    expect(both.status).toBe(201);
  });
});

describe('JWT secret and token expiry', () => {
  it('generates the JWT secret once into the data dir with mode 0600 and keeps it across restarts', async () => {
    const t = await startTestApp();
    const file = path.join(t.dataDir, 'jwt-secret');
    try {
      expect(fs.existsSync(file)).toBe(true);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const secret = fs.readFileSync(file, 'utf8');
      expect(secret.trim().length).toBeGreaterThanOrEqual(32);
      const s = await signUp(t.url);
      await t.close({ keepData: true });
      const t2 = await startTestApp({ dataDir: t.dataDir });
      try {
        expect(fs.readFileSync(file, 'utf8')).toBe(secret);
        // the token signed before the restart still verifies; the account was rebuilt from the log
        const me = await api(t2.url, s.access_token).get('/v1/account');
        expect(me.status).toBe(200);
        expect(me.body.user.email).toBe(s.email);
      } finally {
        await t2.close();
      }
    } finally {
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });

  it('uses STRATA_JWT_SECRET when set (no file written); tokens of another secret are invalid', async () => {
    const a = await startTestApp({ jwtSecret: 'a'.repeat(40) });
    const b = await startTestApp({ jwtSecret: 'b'.repeat(40) });
    try {
      expect(fs.existsSync(path.join(a.dataDir, 'jwt-secret'))).toBe(false);
      const s = await signUp(a.url);
      const other = await api(b.url, s.access_token).get('/v1/account');
      expect([other.status, other.body.code]).toEqual([401, 'invalid_token']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an expired access token answers 401 token_expired; refresh gives a working one', async () => {
    const clock = new FixedClock();
    const t = await startTestApp({ accessTokenTtl: 1, clock });
    try {
      const s = await signUp(t.url);
      expect(s.body.expires_in).toBe(1);
      expect((await api(t.url, s.access_token).get('/v1/account')).status).toBe(200);
      clock.advance(2.1);
      const expired = await api(t.url, s.access_token).get('/v1/account');
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ error: 'access token expired', code: 'token_expired' });
      expect(expired.headers.get('www-authenticate')).toBe('Bearer realm="strata", error="invalid_token"');
      const r = await request(t.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: s.refresh_token } });
      expect((await api(t.url, r.body.access_token).get('/v1/account')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
