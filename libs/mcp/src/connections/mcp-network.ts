import { Inject, Injectable, Optional } from '@nestjs/common';
import { checkMcpUrl, urlNotAllowed } from '@strata/domain/mcp';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { VERSION } from '@strata/platform/version';
import { AddressNotAllowedError, GuardedFetch, guardedFetch, resolveChecked } from '../client/guarded-fetch';
import { McpInspector } from '../client/mcp-inspector';
import { McpSession, openMcpSession } from '../client/mcp-session';
import { MCP_LIMITS_OVERRIDE, McpLimits, mcpLimits } from './mcp-limits';

/**
 * The network every MCP connection uses: the guarded fetch (addresses checked on every
 * connect, no redirects, body limit) under STRATA_MCP_ALLOW_PRIVATE, and sessions opened with
 * the §15.5 negotiation, under the §15.5 limits.
 */
@Injectable()
export class McpNetwork {
  readonly fetch: GuardedFetch;
  readonly allowPrivate: boolean;
  readonly limits: McpLimits;

  constructor(@Inject(STRATA_CONFIG) config: StrataConfig, @Optional() @Inject(MCP_LIMITS_OVERRIDE) override: Partial<McpLimits> | null) {
    this.allowPrivate = config.mcp.allowPrivate;
    this.limits = mcpLimits(override);
    this.fetch = this.guardedFetch();
  }

  /** A fresh guarded fetch under these rules (inspect meters its own). */
  guardedFetch(): GuardedFetch {
    return guardedFetch({ allowPrivate: this.allowPrivate, connectTimeoutMs: this.limits.connectMs, maxBodyBytes: this.limits.maxBodyBytes });
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
  inspector(now: () => number, fetch: GuardedFetch = this.fetch): McpInspector {
    const l = this.limits;
    return new McpInspector({ fetch, version: VERSION, listTimeoutMs: l.listMs, maxPages: l.maxPages, handshakeTimeoutMs: l.handshakeMs, deadlineMs: l.inspectMs, now });
  }

  open(url: URL, headers: Record<string, string>): Promise<McpSession> {
    return openMcpSession({ fetch: this.fetch, version: VERSION, handshakeTimeoutMs: this.limits.handshakeMs }, url, headers);
  }
}
