import { Inject, Injectable } from '@nestjs/common';
import { ConnectionAuthInput, McpStreams, staticAuthHeaders } from '@strata/domain/mcp';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { SECRET_STORE, SecretBag, SecretStore } from '@strata/platform/secrets/secret-store.port';
import { McpOAuth, OAuthFailure, oauthStateOf } from './oauth/mcp-oauth.service';
import { SyncFailure } from './sync-failure';

/** Secret bag keys of a connection. */
export const SECRET_KEYS = {
  /** static credentials: the headers to send, as JSON */
  staticHeaders: 'static_headers',
} as const;

function systemContext(org: string): CommandContext {
  return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: 'mcp-token-refresh' };
}

/**
 * The headers a connection sends, from its secrets (REFERENCE §15.4). Values go only to the
 * connection URL's origin and never leave this process otherwise. OAuth access tokens are
 * refreshed within 60 s of their end (or when forced after a 401): one `refresh_token` grant,
 * recorded as `McpTokenRefreshed`; a failed refresh is `auth_failed`.
 */
@Injectable()
export class ConnectionCredentials {
  constructor(
    @Inject(SECRET_STORE) readonly store: SecretStore,
    private readonly oauth: McpOAuth,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
  ) {}

  /** The secret bag of static credentials. */
  staticBag(auth: ConnectionAuthInput): SecretBag {
    return { [SECRET_KEYS.staticHeaders]: JSON.stringify(staticAuthHeaders(auth)) };
  }

  async canRefresh(org: string, connectionId: string): Promise<boolean> {
    const s = oauthStateOf(await this.store.get(org, connectionId));
    return !!(s.client && s.refresh);
  }

  async headers(org: string, connectionId: string, opts: { forceRefresh?: boolean } = {}): Promise<Record<string, string>> {
    const bag = await this.store.get(org, connectionId);
    if (!bag) return {};
    if (bag[SECRET_KEYS.staticHeaders]) return JSON.parse(bag[SECRET_KEYS.staticHeaders]) as Record<string, string>;
    const s = oauthStateOf(bag);
    if (!s.access) return {};
    if (s.client && s.refresh && (opts.forceRefresh || this.oauth.dueForRefresh(s.expiresAt))) {
      let tokens;
      try {
        tokens = await this.oauth.refresh(s.client, s.refresh);
      } catch (err) {
        throw new SyncFailure('auth_failed', err instanceof OAuthFailure ? err.message : 'the token refresh failed');
      }
      const fresh = this.oauth.tokenBag(tokens, s.refresh);
      const next: SecretBag = { ...bag, ...fresh };
      if (!fresh.token_expires_at) delete next.token_expires_at;
      await this.store.put(org, connectionId, next);
      await this.uow.run(systemContext(org), async (tx) => {
        tx.emit(McpStreams.connection(org, connectionId), 'McpTokenRefreshed', {
          org_id: org,
          connection_id: connectionId,
          token_expires_at: next.token_expires_at ? Number(next.token_expires_at) : null,
          has_refresh_token: !!next.refresh_token,
          credential_fingerprint: this.oauth.fingerprint(next),
          at: tx.now,
        });
      });
      return { authorization: `Bearer ${next.access_token}` };
    }
    return { authorization: `Bearer ${s.access}` };
  }
}
