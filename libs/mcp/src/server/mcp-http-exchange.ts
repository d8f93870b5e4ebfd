import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessage, JSONRPCMessageSchema, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { ALL_REVISIONS, STATELESS_REVISION } from './protocol-versions';
import { McpRequestContext, createStrataMcpServer } from './strata-mcp-server';

/** One HTTP answer of `POST /mcp`. */
export interface McpHttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** empty for 202 */
  body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function rpcError(status: number, code: number, message: string): McpHttpAnswer {
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The methods whose results the stateless revision makes cacheable: they must carry `ttlMs` and
 * `cacheScope`. Strata's lists depend on the credential (a read key sees three tools) and on
 * the graph, so they are `private` and not to be reused (`ttlMs: 0`).
 */
const CACHEABLE_METHODS: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'server/discover']);

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether a parsed body is plainly a JSON-RPC request that the SDK's `JSONRPCRequestSchema`
 * accepts as it is (strict keys, `"2.0"`, a string or integer id, a string method, params an
 * object without `_meta`). Every tool call is such a request: checked by hand, it skips the
 * schema union's parse, which allocates and cost a measurable share of a `tools/call`; anything
 * else still goes through the SDK's schema.
 */
function isPlainRequest(m: Record<string, unknown>): m is JSONRPCMessage & { id: string | number; method: string } {
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return false;
  if (typeof m.id !== 'string' && !Number.isInteger(m.id)) return false;
  if (m.params !== undefined && (!isObject(m.params) || m.params._meta !== undefined)) return false;
  for (const k in m) if (!REQUEST_KEYS.has(k)) return false;
  return true;
}

/** Whether a message speaks the stateless revision (its header, its `_meta`, or `server/discover`). */
function isStateless(message: Record<string, unknown>, versionHeader: string | undefined): boolean {
  if (versionHeader === STATELESS_REVISION || message.method === 'server/discover') return true;
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  return meta['io.modelcontextprotocol/protocolVersion'] === STATELESS_REVISION;
}

/**
 * The SDK transport between HTTP exchanges and one long-lived SDK Server: each request gets an
 * id of its own on the way in (two clients may both send id 1) and its answer is matched back
 * and given its client's id. The server never holds a stream: requests it would make of the
 * client are dropped, as a stateless endpoint has nowhere to send them.
 */
class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly pending = new Map<string, { id: string | number; resolve: (m: Record<string, unknown>) => void }>();
  private seq = 0;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    if (('result' in m || 'error' in m) && typeof m.id === 'string') {
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      waiting.resolve({ ...m, id: waiting.id });
    }
  }

  exchange(message: JSONRPCMessage & { id: string | number }, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const internal = `r${++this.seq}`;
    return new Promise((resolve) => {
      this.pending.set(internal, { id: message.id, resolve });
      this.onmessage?.({ ...message, id: internal } as JSONRPCMessage, { authInfo: authInfoOf(ctx) });
    });
  }

  notify(message: JSONRPCMessage, ctx: McpRequestContext): void {
    this.onmessage?.(message, { authInfo: authInfoOf(ctx) });
  }
}

function authInfoOf(ctx: McpRequestContext) {
  // the credential stays with the route caller: nothing secret travels through the SDK
  return { token: '', clientId: 'strata', scopes: ctx.canWrite ? ['read', 'write'] : ['read'], extra: { strata: ctx } };
}

/**
 * Answers `POST /mcp` bodies with one SDK server: stateless Streamable HTTP, JSON answers, no
 * session id. The checks of the SDK's HTTP transport are kept (Accept, Content-Type, the
 * protocol-version header); batches are refused (-32600); in the stateless revision results
 * carry `resultType: "complete"`, and the cacheable ones `ttlMs`/`cacheScope`.
 */
export class McpExchange {
  private readonly server: Server;
  private readonly transport = new ExchangeTransport();
  private readonly ready: Promise<void>;

  constructor(version: string) {
    this.server = createStrataMcpServer(version);
    this.ready = this.server.connect(this.transport);
  }

  async answer(message: unknown, headers: Record<string, string | undefined>, ctx: McpRequestContext): Promise<McpHttpAnswer> {
    await this.ready;
    const accept = headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return rpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    if (!/^application\/json\s*(;|$)/i.test(headers['content-type'] ?? '')) return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    if (Array.isArray(message)) return rpcError(400, -32600, 'Invalid Request: batches are not supported');
    if (!isObject(message)) return rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
    const plain = isPlainRequest(message);
    let msg: JSONRPCMessage;
    if (plain) msg = message;
    else {
      const parsed = JSONRPCMessageSchema.safeParse(message);
      if (!parsed.success) return rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      msg = parsed.data;
    }
    const versionHeader = headers['mcp-protocol-version'];
    if (versionHeader !== undefined && !(ALL_REVISIONS as readonly string[]).includes(versionHeader))
      return rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${versionHeader} (supported versions: ${ALL_REVISIONS.join(', ')})`);
    if (!plain && !isJSONRPCRequest(msg)) {
      this.transport.notify(msg, ctx);
      return { status: 202, headers: {}, body: '' };
    }
    const request = msg as JSONRPCMessage & { id: string | number; method: string };
    const answer = await this.transport.exchange(request, ctx);
    if (isStateless(message, versionHeader) && isObject(answer.result))
      answer.result = { resultType: 'complete', ...(CACHEABLE_METHODS.has(request.method) ? { ttlMs: 0, cacheScope: 'private' } : {}), ...answer.result };
    const structured = ctx.structuredJson;
    if (structured !== undefined && isObject(answer.result) && !('structuredContent' in answer.result)) {
      // the tool's structured content is the route's JSON text, written in as it is: the
      // result object is serialised without it, its closing brace reopened for one more member
      const { result, ...rest } = answer;
      const head = JSON.stringify(result);
      return { status: 200, headers: JSON_HEADERS, body: `{"result":${head.slice(0, -1)},"structuredContent":${structured}},${JSON.stringify(rest).slice(1)}` };
    }
    return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(answer) };
  }

  async close(): Promise<void> {
    await this.server.close();
  }
}
