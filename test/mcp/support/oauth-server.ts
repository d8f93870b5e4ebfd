import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthServer {
  issuer: string;
  /** clients registered dynamically, by id */
  registered: Map<string, { redirect_uris: string[] }>;
  /** grant types the token endpoint served, in order */
  grants: string[];
  /** tokens revoked at the revocation endpoint */
  revoked: string[];
  /** the next authorization is refused (`error=access_denied`) */
  denyNext: boolean;
  /** refresh grants are refused (`invalid_grant`) while set */
  refuseRefresh: boolean;
  /** whether an access token is current (issued and neither refreshed away nor revoked) */
  valid(token: string | undefined): boolean;
  /** every access token stops working (refresh tokens still do) */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

/**
 * A small OAuth 2.1 authorization server for tests (plain node http): RFC 8414 metadata,
 * dynamic registration (RFC 7591), an authorization endpoint that approves at once (302 back
 * with code, state and iss), a token endpoint checking PKCE S256, redirect_uri and resource,
 * refresh with rotation, and revocation (RFC 7009). Pre-registered client: `preregistered-client`.
 * With `fetchClientMetadata` it also takes Client ID Metadata Documents: it advertises
 * `client_id_metadata_document_supported`, and an https client_id is a URL whose document (read
 * through that function) must name itself and list the redirect URI.
 */
export async function startOAuthServer(opts: { fetchClientMetadata?: (clientId: string) => Promise<{ client_id?: string; redirect_uris?: string[] }> } = {}): Promise<OAuthServer> {
  const codes = new Map<string, { client_id: string; challenge: string; redirect_uri: string; resource: string | null; scope: string | null }>();
  const access = new Set<string>();
  const refresh = new Map<string, string>();
  const state: OAuthServer = {
    issuer: '',
    registered: new Map([['preregistered-client', { redirect_uris: [] }]]),
    grants: [],
    revoked: [],
    denyNext: false,
    refuseRefresh: false,
    valid: (t) => !!t && access.has(t),
    expireAccessTokens: () => access.clear(),
    close: async () => undefined,
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', state.issuer);
      const raw = Buffer.concat(chunks).toString('utf8');
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer: state.issuer,
          authorization_endpoint: `${state.issuer}/authorize`,
          token_endpoint: `${state.issuer}/token`,
          registration_endpoint: `${state.issuer}/register`,
          revocation_endpoint: `${state.issuer}/revoke`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          scopes_supported: ['tools'],
          authorization_response_iss_parameter_supported: true,
          ...(opts.fetchClientMetadata ? { client_id_metadata_document_supported: true } : {}),
        });
      }
      if (url.pathname === '/register' && req.method === 'POST') {
        const meta = JSON.parse(raw);
        const client_id = `client-${randomBytes(6).toString('hex')}`;
        state.registered.set(client_id, { redirect_uris: meta.redirect_uris });
        return json(res, 201, { ...meta, client_id, client_id_issued_at: 1 });
      }
      if (url.pathname === '/authorize') {
        void (async () => {
          const cid = url.searchParams.get('client_id') ?? '';
          // a Client ID Metadata Document: read it, then authorize as for a registered client
          if (opts.fetchClientMetadata && cid.startsWith('https://') && !state.registered.has(cid)) {
            const doc = await opts.fetchClientMetadata(cid).catch(() => null);
            if (doc?.client_id === cid) state.registered.set(cid, { redirect_uris: doc.redirect_uris ?? [] });
          }
          const p = url.searchParams;
          const client = state.registered.get(p.get('client_id') ?? '');
          const redirect = p.get('redirect_uri') ?? '';
          if (!client || (client.redirect_uris.length && !client.redirect_uris.includes(redirect))) return json(res, 400, { error: 'invalid_client' });
          if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge') || !p.get('state')) return json(res, 400, { error: 'invalid_request' });
          const back = new URL(redirect);
          back.searchParams.set('state', p.get('state')!);
          back.searchParams.set('iss', state.issuer);
          if (state.denyNext) {
            state.denyNext = false;
            back.searchParams.set('error', 'access_denied');
          } else {
            const code = randomBytes(12).toString('hex');
            codes.set(code, { client_id: p.get('client_id')!, challenge: p.get('code_challenge')!, redirect_uri: redirect, resource: p.get('resource'), scope: p.get('scope') });
            back.searchParams.set('code', code);
          }
          return res.writeHead(302, { location: back.toString() }).end();
        })();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const f = new URLSearchParams(raw);
        const grant = f.get('grant_type') ?? '';
        state.grants.push(grant);
        const issue = () => {
          const a = `at-${randomBytes(12).toString('hex')}`;
          const r = `rt-${randomBytes(12).toString('hex')}`;
          access.add(a);
          refresh.set(r, a);
          return json(res, 200, { access_token: a, token_type: 'Bearer', expires_in: 3600, refresh_token: r, scope: 'tools' });
        };
        if (grant === 'authorization_code') {
          const c = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          const verifier = f.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (!c || c.client_id !== f.get('client_id') || c.redirect_uri !== f.get('redirect_uri') || c.challenge !== challenge || verifier.length !== 64 || c.resource !== f.get('resource'))
            return json(res, 400, { error: 'invalid_grant' });
          return issue();
        }
        if (grant === 'refresh_token') {
          if (state.refuseRefresh) return json(res, 400, { error: 'invalid_grant' });
          const old = refresh.get(f.get('refresh_token') ?? '');
          if (!old) return json(res, 400, { error: 'invalid_grant' });
          refresh.delete(f.get('refresh_token')!);
          access.delete(old);
          return issue();
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname === '/revoke' && req.method === 'POST') {
        const token = new URLSearchParams(raw).get('token') ?? '';
        state.revoked.push(token);
        access.delete(token);
        refresh.delete(token);
        return res.writeHead(200).end();
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
