import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as path from 'node:path';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** What the authorization server logged, in order. */
export type AuthorizationServerEvent =
  | { type: 'grant'; grant_type: string }
  | { type: 'grant_refused'; grant_type: string | null; error: string }
  | { type: 'registered'; client_id: string }
  | { type: 'revoked'; token_type_hint: string | null }
  | { type: 'issued'; kind: 'access_token' | 'refresh_token' | 'registration_access_token'; value: string }
  | { type: 'client_metadata_document_fetched'; url: string };

export interface OAuthServer {
  issuer: string;
  /** the grant types the token endpoint served, in order */
  grants(): Promise<string[]>;
  /** the grants the token endpoint refused, as `<grant_type>: <error>` */
  refusedGrants(): Promise<string[]>;
  /** client ids registered dynamically (RFC 7591) */
  registered(): Promise<string[]>;
  /** tokens revoked at the revocation endpoint (RFC 7009), by type hint */
  revocations(): Promise<(string | null)[]>;
  /** every token it issued (access, refresh, registration access), newest last */
  issuedTokens(): Promise<{ kind: string; value: string }[]>;
  /** moves the authorization server's clock on (its tokens expire; the test's other clocks stay) */
  advanceClock(seconds: number): Promise<void>;
  /** client metadata documents the server read */
  metadataDocumentsFetched(): Promise<string[]>;
  /** the introspection answer for a token (RFC 7662), as the tool server sees it */
  introspect(token: string): Promise<{ active: boolean; client_id?: string; aud?: string | string[]; scope?: string; exp?: number }>;
  /** revokes an access token as its client would (RFC 7009; a public client names itself); oidc-provider then revokes every token of its grant, the refresh token too */
  revokeAccessToken(token: string): Promise<void>;
  /** the tool server's check of a bearer token: active, with its scopes, expiry and resource */
  verifier: OAuthTokenVerifier;
  close(): Promise<void>;
}

const SCRIPT = path.join(__dirname, 'oauth-authorization-server.mjs');
const RESOURCE_SERVER = { id: 'tool-server', secret: 'tool-server-introspection-secret' };

/**
 * A real OAuth 2.1 authorization server on loopback: oidc-provider (ESM only, so in a child
 * process running `oauth-authorization-server.mjs`) with dynamic registration, PKCE, resource
 * indicators, refresh tokens, revocation and introspection, and a pre-registered public client
 * `preregistered-client` for `redirectUris`. With `clientMetadataDocuments` it accepts Client
 * ID Metadata Documents, read from `hosts` (public origin → where it really listens).
 */
export async function startOAuthServer(opts: { redirectUris?: string[]; clientMetadataDocuments?: boolean; hosts?: Record<string, string> } = {}): Promise<OAuthServer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SCRIPT, JSON.stringify({ redirect_uris: opts.redirectUris ?? [], client_metadata_document: !!opts.clientMetadataDocuments, hosts: opts.hosts ?? {} })], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString('utf8');
      // the library may print warnings first; the address is the line that starts {"issuer"
      const line = out.split('\n').find((l, i, all) => i < all.length - 1 && l.startsWith('{"issuer"'));
      if (!line) return;
      child.stdout.off('data', onData);
      resolve((JSON.parse(line) as { issuer: string }).issuer);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code}): ${stderr}`)));
  });
  const events = async () => (await (await fetch(`${issuer}/__test/events`)).json()) as AuthorizationServerEvent[];
  const introspect: OAuthServer['introspect'] = async (token) => {
    const res = await fetch(`${issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${RESOURCE_SERVER.id}:${RESOURCE_SERVER.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    return (await res.json()) as Awaited<ReturnType<OAuthServer['introspect']>>;
  };
  return {
    issuer,
    grants: async () => (await events()).flatMap((e) => (e.type === 'grant' ? [e.grant_type] : [])),
    refusedGrants: async () => (await events()).flatMap((e) => (e.type === 'grant_refused' ? [`${e.grant_type}: ${e.error}`] : [])),
    registered: async () => (await events()).flatMap((e) => (e.type === 'registered' ? [e.client_id] : [])),
    revocations: async () => (await events()).flatMap((e) => (e.type === 'revoked' ? [e.token_type_hint] : [])),
    issuedTokens: async () => (await events()).flatMap((e) => (e.type === 'issued' ? [{ kind: e.kind, value: e.value }] : [])),
    advanceClock: async (seconds) => {
      const res = await fetch(`${issuer}/__test/clock?advance_s=${seconds}`, { method: 'POST' });
      if (res.status !== 204) throw new Error(`the clock answered ${res.status}`);
    },
    metadataDocumentsFetched: async () => (await events()).flatMap((e) => (e.type === 'client_metadata_document_fetched' ? [e.url] : [])),
    introspect,
    revokeAccessToken: async (token) => {
      const { active, client_id: clientId } = await introspect(token);
      if (!active || !clientId) throw new Error('the token is not active');
      const res = await fetch(`${issuer}/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: clientId }) });
      if (res.status !== 200) throw new Error(`revocation answered ${res.status}: ${await res.text()}`);
    },
    verifier: {
      verifyAccessToken: async (token): Promise<AuthInfo> => {
        const r = await introspect(token);
        if (!r.active || !r.client_id || typeof r.exp !== 'number') throw new InvalidTokenError('the token is not active');
        const aud = Array.isArray(r.aud) ? r.aud[0] : r.aud;
        return { token, clientId: r.client_id, scopes: (r.scope ?? '').split(' ').filter(Boolean), expiresAt: r.exp, ...(aud ? { resource: new URL(aud) } : {}) };
      },
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/**
 * The user's browser at the authorization server: from the authorization URL through the
 * sign-in and consent page, where the user approves or denies, to the redirect back to the
 * client. Cookies are kept as a browser would. Returns the URL the server sent the browser to
 * last (the client's redirect URI with `code` or `error`, `state` and `iss`).
 */
export async function authorizeInBrowser(authorizationUrl: string, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const jar = new Map<string, string>();
  const start = new URL(authorizationUrl);
  let next: { url: URL; method: 'GET' | 'POST' } = { url: start, method: 'GET' };
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(next.url, { method: next.method, redirect: 'manual', headers: jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {} });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(name);
      else jar.set(name, value);
    }
    if (res.status === 200 && next.url.pathname.startsWith('/interaction/')) {
      // the sign-in and consent page: the user presses Approve or Deny
      const page = await res.text();
      const action = page.match(new RegExp(`action="(/interaction/[^"]+/${decision})"`))?.[1];
      if (!action) throw new Error(`no ${decision} button on the authorization page: ${page}`);
      next = { url: new URL(action, start.origin), method: 'POST' };
      continue;
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) throw new Error(`the authorization server answered ${res.status}: ${await res.text()}`);
    await res.text();
    const to = new URL(location, next.url);
    if (to.origin !== start.origin) return to;
    next = { url: to, method: 'GET' };
  }
  throw new Error('too many redirects at the authorization server');
}
