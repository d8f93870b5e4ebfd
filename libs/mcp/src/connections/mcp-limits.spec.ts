import { DEFAULT_MCP_LIMITS, mcpLimits } from './mcp-limits';

describe('MCP limits', () => {
  it('are REFERENCE §15.5’s by default', () => {
    expect({ ...DEFAULT_MCP_LIMITS, callTimeoutMs: DEFAULT_MCP_LIMITS.callTimeoutMs(60) }).toEqual({
      inspectMs: 20_000,
      connectMs: 10_000,
      handshakeMs: 10_000,
      listMs: 30_000,
      maxPages: 50,
      maxBodyBytes: 10 * 1024 * 1024,
      authorizationWindowS: 600,
      staleAfterS: 3600,
      callTimeoutMs: 60_000,
    });
    expect(mcpLimits(null)).toEqual(DEFAULT_MCP_LIMITS);
  });

  it('take an override member by member', () => {
    expect(mcpLimits({ handshakeMs: 50 })).toMatchObject({ handshakeMs: 50, connectMs: 10_000, listMs: 30_000 });
  });
});
