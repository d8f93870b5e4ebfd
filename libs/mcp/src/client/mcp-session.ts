import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { INITIALIZE_REVISIONS, STATELESS_REVISION } from '../server/protocol-versions';
import { GuardedFetch, NetworkError } from './guarded-fetch';

export const ACCEPT = 'application/json, text/event-stream';

/** The server refused the credentials (HTTP 401/403). */
export class McpAuthRefusedError extends Error {
  constructor(readonly status: number) {
    super(`the server refused the credentials (HTTP ${status})`);
  }
}

/** The server answered, but not as MCP over Streamable HTTP. */
export class McpProtocolError extends Error {}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON-RPC answer, JSON or one SSE message. */
export async function readRpc(res: Response): Promise<Record<string, unknown> | null> {
  const text = await res.text();
  const ct = res.headers.get('content-type') ?? '';
  const payload = ct.includes('text/event-stream')
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .find((l) => l.startsWith('{') && l.includes('"id"'))
    : text;
  if (!payload) return null;
  try {
    const v = JSON.parse(payload) as unknown;
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

export function failureDetail(err: unknown): string {
  if (err instanceof NetworkError) return err.message;
  if (err instanceof StreamableHTTPError) return `HTTP ${err.code ?? '?'}: ${err.message}`;
  return (err as Error)?.message ?? String(err);
}

export function isAuthRefusal(err: unknown): boolean {
  if (err instanceof McpAuthRefusedError || err instanceof UnauthorizedError) return true;
  if (err instanceof StreamableHTTPError) return err.code === 401 || err.code === 403;
  return /\bHTTP (401|403)\b/.test(String((err as Error)?.message ?? ''));
}

/** How a failure is recorded on a connection (REFERENCE §15.3). */
export function failureCode(err: unknown): 'auth_failed' | 'timeout' | 'unreachable' | 'protocol_error' {
  if (isAuthRefusal(err)) return 'auth_failed';
  if (err instanceof NetworkError) return err.kind;
  if (err instanceof McpError && err.code === -32001) return 'timeout';
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof NetworkError) return cause.kind;
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|socket hang up/.test(String((err as Error)?.message ?? ''))) return 'unreachable';
  return 'protocol_error';
}

export interface ToolCallResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One short MCP conversation, stateless (2026-07-28) or through an SDK client session. */
export interface McpSession {
  protocolVersion: string;
  serverInfo: Record<string, unknown> | null;
  capabilities: Record<string, unknown> | null;
  instructions: string | null;
  /** the server sent `notifications/tools/list_changed` during this session */
  readonly listChanged: boolean;
  listTools(cursor: string | undefined): Promise<{ tools: unknown[]; nextCursor?: string }>;
  /**
   * On timeout `notifications/cancelled` is sent and the call fails with a `timeout`
   * NetworkError; when `signal` aborts (a run interrupted), it is sent too and the call
   * rejects with the signal's reason.
   */
  callTool(name: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<ToolCallResult>;
  close(): Promise<void>;
}

export interface SessionOptions {
  fetch: GuardedFetch;
  /** Strata's version, sent as clientInfo */
  version: string;
  /** discover/initialize deadline; also bounds the session's small messages (notifications, the closing DELETE) */
  handshakeTimeoutMs: number;
}

/** `work` within `ms` (a `timeout` NetworkError after, its signal aborted), or until `outer` aborts. */
export function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, what: string, outer?: AbortSignal): Promise<T> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new NetworkError(`${what} took longer than ${ms / 1000} s`, 'timeout'));
    }, ms);
    if (outer) {
      onAbort = () => {
        ac.abort();
        reject(outer.reason);
      };
      if (outer.aborted) onAbort();
      else outer.addEventListener('abort', onAbort, { once: true });
    }
  });
  return Promise.race([work(ac.signal), deadline]).finally(() => {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener('abort', onAbort);
  });
}

function meta(version: string): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'strata', version },
  };
}

/** the params member the stateless revision repeats in `Mcp-Name`, by method */
const NAME_HEADER_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** a header value as the stateless revision carries it: as is when plain visible ASCII, else `=?base64?…?=` */
function headerValue(v: string): string {
  const plain = v.length > 0 && v === v.trim() && /^[\t\x20-\x7e]*$/.test(v) && !(v.startsWith('=?base64?') && v.endsWith('?='));
  return plain ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/**
 * The headers of a message on the stateless revision: its version, and `Mcp-Method` (with
 * `Mcp-Name` for a call, a prompt or a read), which servers check against the body and refuse
 * without (the v2 SDK's servers answer such a request 400).
 */
function statelessHeaders(creds: Record<string, string>, method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const h: Record<string, string> = { ...creds, 'mcp-protocol-version': STATELESS_REVISION, 'mcp-method': method };
  const field = NAME_HEADER_SOURCE[method];
  if (field && typeof params[field] === 'string') h['mcp-name'] = headerValue(params[field] as string);
  return h;
}

function post(opts: SessionOptions, url: URL, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return opts.fetch(url, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
}

function refuseRedirect(res: Response): void {
  if (res.status >= 300 && res.status < 400) throw new McpProtocolError(`the server answered a redirect (${res.status}); MCP requests do not follow redirects`);
}

async function statelessRpc(opts: SessionOptions, url: URL, creds: Record<string, string>, id: number, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const r = await post(opts, url, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(opts.version) } }, statelessHeaders(creds, method, params), signal);
  if (r.status === 401 || r.status === 403) {
    await r.text().catch(() => undefined);
    throw new McpAuthRefusedError(r.status);
  }
  refuseRedirect(r);
  const body = await readRpc(r);
  if (body && isObject(body.error)) throw new McpError(Number(body.error.code ?? -32603), String(body.error.message ?? 'error'), body.error.data);
  if (!body || !isObject(body.result)) throw new McpProtocolError(`${method} answered HTTP ${r.status} without a result`);
  return body.result;
}

/**
 * Opens a session under REFERENCE §15.5: `server/discover` at 2026-07-28 first; any other
 * answer falls back to `initialize` (2025-11-25, accepting 2025-06-18 and 2025-03-26), whose
 * session id is echoed and closed by DELETE. No client capabilities are declared, so server
 * requests (sampling, elicitation, roots) are answered -32601.
 */
export async function openMcpSession(opts: SessionOptions, url: URL, creds: Record<string, string>): Promise<McpSession> {
  const res = await withTimeout(
    (signal) => post(opts, url, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta(opts.version) } }, statelessHeaders(creds, 'server/discover'), signal),
    opts.handshakeTimeoutMs,
    'server/discover',
  );
  if (res.status === 401 || res.status === 403) {
    await res.text().catch(() => undefined);
    throw new McpAuthRefusedError(res.status);
  }
  refuseRedirect(res);
  const rpc = res.ok ? await readRpc(res) : (await res.text().catch(() => undefined), null);
  const discovered = rpc && isObject(rpc.result) ? rpc.result : null;
  if (discovered && Array.isArray(discovered.supportedVersions) && discovered.supportedVersions.includes(STATELESS_REVISION)) {
    let nextId = 2;
    return {
      protocolVersion: STATELESS_REVISION,
      // a member of its own, or (as the v2 SDK's servers give it) in the result's _meta
      serverInfo: isObject(discovered.serverInfo) ? discovered.serverInfo : isObject(discovered._meta) && isObject(discovered._meta['io.modelcontextprotocol/serverInfo']) ? discovered._meta['io.modelcontextprotocol/serverInfo'] : null,
      capabilities: isObject(discovered.capabilities) ? discovered.capabilities : null,
      instructions: typeof discovered.instructions === 'string' ? discovered.instructions : null,
      listChanged: false,
      listTools: async (cursor) => (await statelessRpc(opts, url, creds, nextId++, 'tools/list', cursor ? { cursor } : {})) as { tools: unknown[]; nextCursor?: string },
      callTool: async (name, args, timeoutMs, outer) => {
        const id = nextId++;
        try {
          return (await withTimeout((signal) => statelessRpc(opts, url, creds, id, 'tools/call', { name, arguments: args }, signal), timeoutMs, `tools/call ${name}`, outer)) as unknown as ToolCallResult;
        } catch (err) {
          const timedOut = err instanceof NetworkError && err.kind === 'timeout';
          if (timedOut || outer?.aborted)
            await withTimeout(
              (signal) => post(opts, url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: timedOut ? 'timeout' : 'interrupted' } }, statelessHeaders(creds, 'notifications/cancelled'), signal).then((r) => r.text()),
              opts.handshakeTimeoutMs,
              'notifications/cancelled',
            ).catch(() => undefined);
          throw err;
        }
      },
      close: async () => undefined,
    };
  }
  const transport = new StreamableHTTPClientTransport(url, { fetch: opts.fetch as never, requestInit: { headers: creds, redirect: 'error' } });
  // a cancellation the SDK sends on a timeout must reach the server before the session closes
  const cancellations: Promise<unknown>[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sent = send(message, options);
    if ((message as { method?: string }).method === 'notifications/cancelled') cancellations.push(sent.catch(() => undefined));
    return sent;
  };
  const client = new Client({ name: 'strata', version: opts.version }, { capabilities: {} });
  let listChanged = false;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    listChanged = true;
  });
  try {
    // initialize, then notifications/initialized: both within the deadline
    await withTimeout(() => client.connect(transport, { timeout: opts.handshakeTimeoutMs }), opts.handshakeTimeoutMs, 'initialize');
  } catch (err) {
    await client.close().catch(() => undefined);
    if (err instanceof McpError && err.code === -32001) throw new NetworkError(`initialize took longer than ${opts.handshakeTimeoutMs / 1000} s`, 'timeout');
    throw err;
  }
  const version = transport.protocolVersion ?? '';
  if (!(INITIALIZE_REVISIONS as readonly string[]).includes(version)) {
    await client.close().catch(() => undefined);
    throw new McpProtocolError(`the server speaks MCP ${version || 'of an unknown revision'}; Strata accepts ${INITIALIZE_REVISIONS.join(', ')}`);
  }
  return {
    protocolVersion: version,
    serverInfo: (client.getServerVersion() as Record<string, unknown> | undefined) ?? null,
    capabilities: (client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null,
    instructions: client.getInstructions() ?? null,
    get listChanged() {
      return listChanged;
    },
    listTools: async (cursor) => (await client.listTools(cursor ? { cursor } : undefined)) as { tools: unknown[]; nextCursor?: string },
    callTool: async (name, args, timeoutMs, signal) => {
      try {
        // an abort makes the SDK send `notifications/cancelled` for the request
        return (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: timeoutMs, signal })) as ToolCallResult;
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (err instanceof McpError && err.code === -32001) throw new NetworkError(`tools/call ${name} took longer than ${timeoutMs / 1000} s`, 'timeout');
        throw err;
      }
    },
    close: async () => {
      // a server that stalls on these is not waited for past the deadline
      await withTimeout(async () => {
        await Promise.all(cancellations);
        // the session ends by DELETE; a 405 (stateless server) is ignored
        await transport.terminateSession();
      }, opts.handshakeTimeoutMs, 'closing the session').catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * Every page of `tools/list` within the deadline. A server still paging after `maxPages` (50)
 * fails the listing: what it listed is not the whole, and a partial list would read as tools
 * removed.
 */
export async function listAllTools(session: McpSession, deadlineMs: number, maxPages: number): Promise<unknown[]> {
  return withTimeout(
    async (signal) => {
      const all: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxPages; page++) {
        const res = await session.listTools(cursor);
        // the deadline has passed: no more pages are asked for
        if (signal.aborted) return all;
        if (!Array.isArray(res.tools)) throw new McpProtocolError('tools/list answered without a tools array');
        all.push(...res.tools);
        cursor = typeof res.nextCursor === 'string' && res.nextCursor !== '' ? res.nextCursor : undefined;
        if (!cursor) return all;
      }
      throw new McpProtocolError(`tools/list was still paging after ${maxPages} pages`);
    },
    deadlineMs,
    'tools/list',
  );
}
