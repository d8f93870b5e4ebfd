import { Inject, Injectable } from '@nestjs/common';
import { checkMcpUrl, urlNotAllowed } from '@strata/domain/mcp';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { VERSION } from '@strata/platform/version';
import { AddressNotAllowedError, GuardedFetch, guardedFetch, resolveChecked } from '../client/guarded-fetch';
import { McpInspector } from '../client/mcp-inspector';
import { McpSession, openMcpSession } from '../client/mcp-session';
import { MCP_LIMITS } from './mcp-limits';

/**
 * The network every MCP connection uses: the guarded fetch (addresses checked on every
 * connect, no redirects, body limit) under STRATA_MCP_ALLOW_PRIVATE, and sessions opened with
 * the §15.5 negotiation.
 */
@Injectable()
export class McpNetwork {
  readonly fetch: GuardedFetch;
  readonly allowPrivate: boolean;

  constructor(@Inject(STRATA_CONFIG) config: StrataConfig) {
    this.allowPrivate = config.mcp.allowPrivate;
    this.fetch = guardedFetch({ allowPrivate: this.allowPrivate, connectTimeoutMs: MCP_LIMITS.handshakeMs, maxBodyBytes: MCP_LIMITS.maxBodyBytes });
  }

  /** The URL under the scheme rules and its addresses under the address rules: 400 otherwise. DNS failures are left to the connect. */
  async checkUrl(raw: string): Promise<URL> {
    const url = checkMcpUrl(raw, this.allowPrivate);
    try {
      await resolveChecked(url.hostname, this.allowPrivate);
    } catch (err) {
      if (err instanceof AddressNotAllowedError) throw urlNotAllowed(err.message);
    }
    return url;
  }

  /** The inspect checks (REFERENCE §15.6) under these rules; `now` in seconds, from the injected clock. */
  inspector(now: () => number): McpInspector {
    return new McpInspector({ fetch: this.fetch, version: VERSION, listTimeoutMs: MCP_LIMITS.listMs, handshakeTimeoutMs: MCP_LIMITS.handshakeMs, now });
  }

  open(url: URL, headers: Record<string, string>): Promise<McpSession> {
    return openMcpSession({ fetch: this.fetch, version: VERSION, handshakeTimeoutMs: MCP_LIMITS.handshakeMs }, url, headers);
  }
}
