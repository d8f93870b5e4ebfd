import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { credentialFingerprint, McpOAuthView, McpRegistration, redactSecrets } from '@strata/domain/mcp';
import { CLOCK, Clock } from '@strata/domain/time';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { AddressNotAllowedError, GuardedFetch } from '../../client/guarded-fetch';
import { ACCEPT } from '../../client/mcp-session';
import { foreignResourceRefusal } from '../../client/protected-resource';
import { SECRET_STORE, SecretBag, SecretStore } from '@strata/platform/secrets/secret-store.port';
import { McpNetwork } from '../mcp-network';

/** The secret-store "organization" under which pending `state` values point at their connection. */
const STATE_INDEX = 'mcp-oauth-state';
/** refresh this long before `token_expires_at` (seconds) */
const REFRESH_MARGIN_S = 60;

/** The registered client and the authorization server, kept with the connection's secrets. */
export interface OAuthClientState {
  client_id: string;
  client_secret: string | null;
  registration: McpRegistration;
  authorization_server: string;
  metadata: AuthorizationServerMetadata;
  resource: string;
  scopes: string[];
}

export interface PendingAuthorization {
  code_verifier: string;
  redirect_uri: string;
  return_url: string | null;
  expires_at: number;
  state_hash: string;
}

/** Why an OAuth step failed, as a connection records it (`last_error.code`) or a 422 check names it. */
export class OAuthFailure extends Error {
  constructor(
    readonly code: 'mcp_check_failed' | 'registration' | 'access_denied' | 'token_exchange_failed' | 'auth_failed',
    message: string,
  ) {
    super(message);
  }
}

const b64url = (b: Buffer) => b.toString('base64url');
const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** Secret bag members of an OAuth connection. */
export function oauthStateOf(bag: SecretBag | null): { client: OAuthClientState | null; pending: PendingAuthorization | null; access: string | null; refresh: string | null; expiresAt: number | null } {
  return {
    client: bag?.oauth_client ? (JSON.parse(bag.oauth_client) as OAuthClientState) : null,
    pending: bag?.oauth_pending ? (JSON.parse(bag.oauth_pending) as PendingAuthorization) : null,
    access: bag?.access_token ?? null,
    refresh: bag?.refresh_token ?? null,
    expiresAt: bag?.token_expires_at ? Number(bag.token_expires_at) : null,
  };
}

/**
 * OAuth 2.1 for MCP connections, as the MCP authorization spec profiles it (REFERENCE §15.7):
 * protected-resource then authorization-server discovery, registration (pre-registered client,
 * client metadata document, dynamic registration), authorization code + PKCE S256 with
 * `resource`, the code exchange, refresh and revocation. Every request goes through the
 * guarded fetch; tokens, the verifier and client secrets stay in the secret store.
 */
@Injectable()
export class McpOAuth {
  constructor(
    private readonly network: McpNetwork,
    @Inject(SECRET_STORE) private readonly secrets: SecretStore,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The guarded fetch, each OAuth request answered within the handshake deadline (10 s): the
   * guarded fetch bounds only the connect, and an authorization server that stalls must not
   * hold a callback or a sync for ever.
   */
  private readonly fetch: GuardedFetch = (input, init) => this.network.fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(this.network.limits.handshakeMs) });

  /** `<STRATA_PUBLIC_URL or the request's origin>` */
  baseUrl(requestOrigin: string): string {
    return this.config.mcp.publicUrl ?? requestOrigin;
  }

  clientMetadataDocument(requestOrigin: string) {
    const base = this.baseUrl(requestOrigin);
    return {
      client_id: `${base}/v1/mcp/oauth/client-metadata.json`,
      client_name: 'Strata',
      client_uri: base,
      redirect_uris: [`${base}/v1/mcp/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** Discovery as `auth_discovery` does it; no protected resource metadata → OAuthFailure. */
  async discover(url: URL): Promise<{ resource: string; authorizationServer: string; metadata: AuthorizationServerMetadata; scopes: string[]; wwwScope: string | null }> {
    const fetchFn = this.fetch as never;
    let www: { resourceMetadataUrl?: URL; scope?: string } = {};
    try {
      const bare = await this.fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }) });
      await bare.text().catch(() => undefined);
      if (bare.status === 401) www = extractWWWAuthenticateParams(bare);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      throw new OAuthFailure('mcp_check_failed', `the server is not reachable: ${(err as Error).message}`);
    }
    let prm;
    try {
      prm = await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: www.resourceMetadataUrl }, fetchFn);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      throw new OAuthFailure('mcp_check_failed', 'the server publishes no OAuth protected resource metadata (RFC 9728)');
    }
    const foreign = foreignResourceRefusal(url, prm.resource);
    if (foreign) throw new OAuthFailure('mcp_check_failed', foreign);
    const as = prm.authorization_servers?.[0];
    if (!as) throw new OAuthFailure('mcp_check_failed', 'the protected resource metadata names no authorization server');
    let metadata: AuthorizationServerMetadata | undefined;
    try {
      metadata = await discoverAuthorizationServerMetadata(as, { fetchFn });
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw err;
      metadata = undefined;
    }
    if (!metadata) throw new OAuthFailure('mcp_check_failed', `no authorization server metadata at ${as}`);
    if (!metadata.code_challenge_methods_supported?.includes('S256')) throw new OAuthFailure('mcp_check_failed', 'the authorization server does not support PKCE S256');
    return { resource: prm.resource ?? url.toString(), authorizationServer: as, metadata, scopes: [...(prm.scopes_supported ?? []), ...(metadata.scopes_supported ?? [])], wwwScope: www.scope ?? null };
  }

  /** Registration, first that applies (§15.7 step 2). */
  async register(
    discovered: Awaited<ReturnType<McpOAuth['discover']>>,
    input: { client_id: string | null; client_secret: string | null; scopes: string[] },
    redirectUri: string,
    requestOrigin: string,
  ): Promise<OAuthClientState> {
    const scopes = input.scopes.length ? input.scopes : discovered.wwwScope ? discovered.wwwScope.split(' ').filter(Boolean) : [...new Set(discovered.scopes)];
    const base = { authorization_server: discovered.authorizationServer, metadata: discovered.metadata, resource: discovered.resource, scopes };
    if (input.client_id) return { ...base, client_id: input.client_id, client_secret: input.client_secret, registration: 'preregistered' };
    const publicBase = this.baseUrl(requestOrigin);
    const meta = discovered.metadata as AuthorizationServerMetadata & { client_id_metadata_document_supported?: boolean };
    if (meta.client_id_metadata_document_supported === true && this.config.mcp.publicUrl?.startsWith('https://'))
      return { ...base, client_id: `${publicBase}/v1/mcp/oauth/client-metadata.json`, client_secret: null, registration: 'client_metadata_document' };
    if (meta.registration_endpoint) {
      try {
        const info = await registerClient(discovered.authorizationServer, {
          metadata: meta,
          clientMetadata: { client_name: 'Strata', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
          fetchFn: this.fetch as never,
        });
        return { ...base, client_id: info.client_id, client_secret: info.client_secret ?? null, registration: 'dynamic' };
      } catch (err) {
        if (err instanceof AddressNotAllowedError) throw err;
        throw new OAuthFailure('registration', `dynamic client registration failed: ${(err as Error).message}`);
      }
    }
    throw new OAuthFailure('registration', 'the authorization server offers no registration Strata can use: supply client_id');
  }

  /** The authorization URL (§15.7 step 3) and what the callback needs, sealed. */
  async authorize(org: string, connectionId: string, client: OAuthClientState, redirectUri: string, returnUrl: string | null): Promise<{ url: string; expiresAt: number; bag: SecretBag }> {
    const verifier = b64url(randomBytes(48)); // 64 characters
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    const state = b64url(randomBytes(32));
    const url = new URL(String(client.metadata.authorization_endpoint));
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    if (client.scopes.length) url.searchParams.set('scope', client.scopes.join(' '));
    url.searchParams.set('resource', client.resource);
    const expiresAt = this.clock.now() + this.network.limits.authorizationWindowS;
    const pending: PendingAuthorization = { code_verifier: verifier, redirect_uri: redirectUri, return_url: returnUrl, expires_at: expiresAt, state_hash: hashState(state) };
    await this.secrets.put(STATE_INDEX, pending.state_hash, { org, connection_id: connectionId });
    return { url: url.toString(), expiresAt, bag: { oauth_client: JSON.stringify(client), oauth_pending: JSON.stringify(pending), authorization_url: url.toString() } };
  }

  /** The connection a callback's `state` belongs to, or null (unknown). */
  async connectionOfState(state: string): Promise<{ org: string; connection_id: string; state_hash: string } | null> {
    const hash = hashState(state);
    const found = await this.secrets.get(STATE_INDEX, hash);
    return found ? { org: found.org, connection_id: found.connection_id, state_hash: hash } : null;
  }

  async forgetState(stateHash: string): Promise<void> {
    await this.secrets.destroy(STATE_INDEX, stateHash);
  }

  /** The code exchange (code_verifier, redirect_uri, resource). */
  async exchange(client: OAuthClientState, pending: PendingAuthorization, code: string): Promise<OAuthTokens> {
    try {
      return await exchangeAuthorization(client.authorization_server, {
        metadata: client.metadata,
        clientInformation: { client_id: client.client_id, ...(client.client_secret ? { client_secret: client.client_secret } : {}) },
        authorizationCode: code,
        codeVerifier: pending.code_verifier,
        redirectUri: pending.redirect_uri,
        resource: new URL(client.resource),
        fetchFn: this.fetch as never,
      });
    } catch (err) {
      // the SDK quotes a non-OAuth error body, which may echo the form sent
      throw new OAuthFailure('token_exchange_failed', `the code exchange failed: ${redactSecrets((err as Error).message, [code, pending.code_verifier, client.client_secret])}`);
    }
  }

  async refresh(client: OAuthClientState, refreshToken: string): Promise<OAuthTokens> {
    try {
      return await refreshAuthorization(client.authorization_server, {
        metadata: client.metadata,
        clientInformation: { client_id: client.client_id, ...(client.client_secret ? { client_secret: client.client_secret } : {}) },
        refreshToken,
        resource: new URL(client.resource),
        fetchFn: this.fetch as never,
      });
    } catch (err) {
      throw new OAuthFailure('auth_failed', `the token refresh failed: ${redactSecrets((err as Error).message, [refreshToken, client.client_secret])}`);
    }
  }

  /** The bag members of a token answer (a refresh without a new refresh token keeps the old one). */
  tokenBag(tokens: OAuthTokens, previousRefresh: string | null): SecretBag {
    const bag: SecretBag = { access_token: tokens.access_token };
    const refresh = tokens.refresh_token ?? previousRefresh;
    if (refresh) bag.refresh_token = refresh;
    if (typeof tokens.expires_in === 'number') bag.token_expires_at = String(this.clock.now() + tokens.expires_in);
    return bag;
  }

  view(client: OAuthClientState, tokens: SecretBag | null): McpOAuthView {
    return {
      authorization_server: client.authorization_server,
      client_id: client.client_id,
      registration: client.registration,
      scopes: client.scopes,
      token_expires_at: tokens?.token_expires_at ? Number(tokens.token_expires_at) : null,
      has_refresh_token: !!tokens?.refresh_token,
    };
  }

  fingerprint(bag: SecretBag): string {
    return credentialFingerprint(bag.access_token ?? '');
  }

  /** Whether the access token should be refreshed now (within 60 s of its end). */
  dueForRefresh(expiresAt: number | null): boolean {
    return expiresAt !== null && this.clock.now() >= expiresAt - REFRESH_MARGIN_S;
  }

  /** RFC 7009 at the advertised revocation endpoint, best effort (DELETE). */
  async revoke(bag: SecretBag | null): Promise<void> {
    const s = oauthStateOf(bag);
    const endpoint = (s.client?.metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    if (!s.client || !endpoint) return;
    for (const [token, hint] of [[s.refresh, 'refresh_token'], [s.access, 'access_token']] as const) {
      if (!token) continue;
      const body = new URLSearchParams({ token, token_type_hint: hint, client_id: s.client.client_id });
      if (s.client.client_secret) body.set('client_secret', s.client.client_secret);
      await this
        .fetch(String(endpoint), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
        .then((r) => r.text())
        .catch(() => undefined);
    }
  }
}
