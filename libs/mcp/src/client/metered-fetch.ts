import { tracing } from '@strata/observability/tracing';
import type { GuardedFetch } from './guarded-fetch';

/** JSON-RPC methods of MCP a client sends; anything else is counted as `other` (bounded labels). */
const KNOWN_METHODS = new Set([
  'initialize',
  'notifications/initialized',
  'server/discover',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'notifications/cancelled',
]);

/** One MCP request to a server, as the metrics see it: never its arguments or credentials. */
export interface McpCallRecord {
  /** the connection's id, or `inspect` for a check of a server that is not saved */
  connection: string;
  method: string;
  outcome: 'ok' | 'error';
  seconds: number;
}

/**
 * The fetch an MCP client talks through (every request of the official SDK's transport and
 * Strata's own stateless requests go through it), counted per connection and JSON-RPC method.
 * A GET (the SDK's server-to-client stream) or DELETE (end of session) counts under
 * `stream` / `session/close`. An HTTP status of 400 or more, or a network failure, is `error`.
 */
export function meteredFetch(fetch: GuardedFetch, connection: string, record: (call: McpCallRecord) => void): GuardedFetch {
  return (input, init) => {
    const method = methodOf(init);
    return tracing.inSpan('strata.mcp_call', { 'strata.mcp.connection': connection, 'strata.mcp.method': method }, () => counted(input, init, method));
  };
  async function counted(input: Parameters<GuardedFetch>[0], init: RequestInit | undefined, method: string): Promise<Response> {
    const t0 = performance.now(); // monotonic: a duration, not a time
    try {
      const res = await fetch(input, init);
      record({ connection, method, outcome: res.status >= 400 ? 'error' : 'ok', seconds: (performance.now() - t0) / 1000 });
      return res;
    } catch (err) {
      record({ connection, method, outcome: 'error', seconds: (performance.now() - t0) / 1000 });
      throw err;
    }
  }
}

function methodOf(init: RequestInit | undefined): string {
  const verb = (init?.method ?? 'GET').toUpperCase();
  if (verb === 'GET') return 'stream';
  if (verb === 'DELETE') return 'session/close';
  if (typeof init?.body !== 'string') return 'other';
  try {
    const msg = JSON.parse(init.body) as unknown;
    const first = Array.isArray(msg) ? msg[0] : msg;
    const m = (first as { method?: unknown } | null)?.method;
    if (typeof m === 'string') return KNOWN_METHODS.has(m) ? m : 'other';
    return 'response'; // a client's answer to a server request
  } catch {
    return 'other';
  }
}
