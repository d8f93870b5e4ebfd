/** The timeouts and limits every connection talks under (REFERENCE §15.5). */
export interface McpLimits {
  /** inspect (and a create's checks), the whole request */
  inspectMs: number;
  /** connect + TLS handshake (what the answer then takes is the request's own deadline) */
  connectMs: number;
  /** `server/discover`, and `initialize`, each */
  handshakeMs: number;
  /** `tools/list`, all pages */
  listMs: number;
  /** `tools/list` pages followed; a server still paging after these fails the listing */
  maxPages: number;
  /** an MCP (or OAuth) response body, bytes */
  maxBodyBytes: number;
  /** the OAuth authorization window, seconds of the injected clock */
  authorizationWindowS: number;
  /** a connection synced longer ago is synced before a run offers its tools, seconds of the injected clock */
  staleAfterS: number;
  /** a `tools/call`'s deadline for its connection's `call_timeout_s` */
  callTimeoutMs(callTimeoutS: number): number;
}

export const DEFAULT_MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  inspectMs: 20_000,
  connectMs: 10_000,
  handshakeMs: 10_000,
  listMs: 30_000,
  maxPages: 50,
  maxBodyBytes: 10 * 1024 * 1024,
  authorizationWindowS: 600,
  staleAfterS: 3600,
  callTimeoutMs: (callTimeoutS: number) => callTimeoutS * 1000,
});

/**
 * Injection token of deadlines to use instead of some defaults. Nothing provides it in the
 * service; tests do, so that a server that stalls is given up on in milliseconds rather than
 * the seconds §15.5 allows (the defaults themselves are checked in mcp-limits.spec.ts).
 */
export const MCP_LIMITS_OVERRIDE = Symbol('MCP_LIMITS_OVERRIDE');

export function mcpLimits(override: Partial<McpLimits> | null | undefined): McpLimits {
  return { ...DEFAULT_MCP_LIMITS, ...(override ?? {}) };
}
