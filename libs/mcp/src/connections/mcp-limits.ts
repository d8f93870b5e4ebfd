/** REFERENCE §15.5: the timeouts and limits every connection talks under. */
export const MCP_LIMITS = {
  inspectMs: 20_000,
  /** connect + TLS; discover/initialize, each */
  handshakeMs: 10_000,
  /** `tools/list`, all pages */
  listMs: 30_000,
  maxBodyBytes: 10 * 1024 * 1024,
  /** the OAuth authorization window, seconds */
  authorizationWindowS: 600,
  /** a connection synced longer ago is synced before a run offers its tools, seconds */
  staleAfterS: 3600,
} as const;
