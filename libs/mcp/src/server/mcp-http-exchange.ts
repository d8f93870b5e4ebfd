import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { STATELESS_REVISION } from './protocol-versions';
import { StrataMcpServerOptions, createStrataMcpServer } from './strata-mcp-server';

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

/** Whether a message speaks the stateless revision (its header, its `_meta`, or `server/discover`). */
function isStateless(message: Record<string, unknown>, versionHeader: string | undefined): boolean {
  if (versionHeader === STATELESS_REVISION || message.method === 'server/discover') return true;
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  return meta['io.modelcontextprotocol/protocolVersion'] === STATELESS_REVISION;
}

/**
 * Answers one already-parsed `POST /mcp` body with a fresh SDK server and a stateless
 * Streamable HTTP transport (JSON answers, no session id). Batches are refused (-32600); in the
 * stateless revision results carry `resultType: "complete"`.
 */
export async function answerMcpPost(message: unknown, headers: Record<string, string | undefined>, opts: StrataMcpServerOptions): Promise<McpHttpAnswer> {
  if (Array.isArray(message)) return rpcError(400, -32600, 'Invalid Request: batches are not supported');
  if (!isObject(message)) return rpcError(400, -32600, 'Invalid Request: the body must be one JSON-RPC message');
  const versionHeader = headers['mcp-protocol-version'];
  const stateless = isStateless(message, versionHeader);
  const requestHeaders: Record<string, string> = {
    accept: headers.accept ?? '',
    'content-type': headers['content-type'] ?? '',
  };
  // the SDK's transport knows only the initialize revisions: the stateless one is ours to check
  if (versionHeader !== undefined && !stateless) requestHeaders['mcp-protocol-version'] = versionHeader;

  const server = createStrataMcpServer(opts);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const res = await transport.handleRequest(new Request('http://strata.local/mcp', { method: 'POST', headers: requestHeaders }), { parsedBody: message });
    let body = res.status === 202 ? '' : await res.text();
    if (stateless && res.status === 200 && body !== '') {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (isObject(parsed.result)) parsed.result = { resultType: 'complete', ...parsed.result };
      body = JSON.stringify(parsed);
    }
    const out: Record<string, string> = {};
    const ct = res.headers.get('content-type');
    if (ct) out['content-type'] = ct;
    return { status: res.status, headers: out, body };
  } finally {
    await server.close();
  }
}
