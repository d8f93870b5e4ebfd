import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface StdioRelayOptions {
  /** the `/mcp` endpoint */
  endpoint: string;
  apiKey: string;
  input: Readable;
  output: Writable;
}

function rpcError(id: unknown, code: number, message: string, data?: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } });
}

/** The id of a message line, when it has one (a request), else undefined. */
function idOf(line: string): unknown {
  try {
    const m = JSON.parse(line) as { id?: unknown };
    return typeof m === 'object' && m !== null ? m.id : undefined;
  } catch {
    return undefined;
  }
}

/** One message line relayed to `/mcp`: the answer as one line, or null (notification, 202). */
async function relayLine(line: string, opts: StdioRelayOptions): Promise<string | null> {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return rpcError(null, -32700, 'Parse error: the line is not JSON');
  }
  let res: Response;
  try {
    res = await fetch(opts.endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.apiKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
  } catch (err) {
    const id = idOf(line);
    return id === undefined ? null : rpcError(id, -32603, `Strata is unreachable at ${opts.endpoint}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (res.status === 202 || text === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (typeof body === 'object' && body !== null && (body as { jsonrpc?: unknown }).jsonrpc === '2.0') return JSON.stringify(body);
  // a Strata error (401, 403, 429…) is not JSON-RPC: turn it into the request's error
  const id = idOf(line);
  if (id === undefined) return null;
  const err = (body ?? {}) as { error?: unknown; code?: unknown };
  return rpcError(id, -32603, typeof err.error === 'string' ? err.error : `Strata answered ${res.status}`, { status: res.status, code: err.code ?? null });
}

/**
 * Relays newline-delimited JSON-RPC between a stdio pair and Strata's `/mcp`, one message at a
 * time and in order; resolves once the input has closed and every answer is written. Only MCP
 * messages are written to `output`.
 */
export async function relayStdio(opts: StdioRelayOptions): Promise<void> {
  const lines = createInterface({ input: opts.input, crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    const answer = await relayLine(line, opts);
    if (answer !== null) opts.output.write(answer + '\n');
  }
}
