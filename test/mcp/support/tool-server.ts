import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { z } from 'zod';

export interface ToolSpec {
  name: string;
  description: string;
  title?: string;
  readOnly?: boolean;
  destructive?: boolean;
  /** the tool answers only once `release()` of the server is called (timeouts) */
  hang?: boolean;
}

export interface ToolServer {
  url: string;
  /** the tools listed; change it between syncs to make drift */
  tools: ToolSpec[];
  /** every Authorization header the server saw */
  seenAuth: (string | undefined)[];
  /** every request's headers */
  seenHeaders: http.IncomingHttpHeaders[];
  /** JSON-RPC methods received, in order (notifications included) */
  seenMethods: string[];
  /** when set, every request gets this HTTP status and a non-MCP body */
  failWith: number | null;
  /** JSON-RPC methods whose requests are received and never answered (a server that stalls) */
  stall: Set<string>;
  /** lets hanging tool calls finish */
  release(): void;
  close(): Promise<void>;
}

/**
 * A real MCP tool server built with the official SDK (stateless Streamable HTTP) on loopback;
 * with `token`, a request without `Authorization: Bearer <token>` gets 401; with `header`, one
 * without that header value gets 401; with `oauth`, its protected resource metadata (RFC 9728)
 * names that authorization server, and the SDK's bearer check (`requireBearerAuth`) takes only
 * the tokens its verifier finds active, with scope `tools` and issued for this server's URL.
 */
export async function startToolServer(opts: { tools: ToolSpec[]; token?: string; header?: { name: string; value: string }; name?: string; oauth?: { issuer: string; verifier: OAuthTokenVerifier } }): Promise<ToolServer> {
  let releaseAll: () => void = () => undefined;
  let released = new Promise<void>((r) => (releaseAll = r));
  const state: ToolServer = {
    url: '',
    tools: opts.tools,
    seenAuth: [],
    seenHeaders: [],
    seenMethods: [],
    failWith: null,
    stall: new Set(),
    release: () => {
      releaseAll();
      released = new Promise<void>((r) => (releaseAll = r));
    },
    close: async () => undefined,
  };
  let bearer: ReturnType<typeof requireBearerAuth> | null = null;
  const server = http.createServer((req, res) => {
    state.seenAuth.push(req.headers.authorization);
    state.seenHeaders.push(req.headers);
    if (state.failWith !== null) {
      res.writeHead(state.failWith, { 'content-type': 'text/html' }).end('<html>down</html>');
      return;
    }
    if (opts.oauth && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: state.url, authorization_servers: [opts.oauth.issuer], scopes_supported: ['tools'] }));
      return;
    }
    if (bearer) {
      // the SDK's middleware answers through Express's response helpers: the few it uses, on node's response
      const reply = Object.assign(res, {
        set: (k: string, v: string) => (res.setHeader(k, v), reply),
        status: (code: number) => ((res.statusCode = code), reply),
        json: (body: unknown) => (res.setHeader('content-type', 'application/json'), res.end(JSON.stringify(body)), reply),
      });
      void bearer(req as never, reply as never, () => serve(req, res));
      return;
    }
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="tools"' }).end('{"error":"unauthorized"}');
      return;
    }
    if (opts.header && req.headers[opts.header.name.toLowerCase()] !== opts.header.value) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    serve(req, res);
  });
  const serve = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      if (body && typeof body.method === 'string') state.seenMethods.push(body.method);
      if (body && state.stall.has(body.method)) return;
      const mcp = new McpServer({ name: opts.name ?? 'test-tools', version: '1.2.3' }, { instructions: 'Test tools.' });
      for (const t of state.tools) {
        mcp.registerTool(
          t.name,
          { title: t.title, description: t.description, inputSchema: { a: z.number(), b: z.number().optional() }, annotations: { readOnlyHint: !!t.readOnly, ...(t.destructive ? { destructiveHint: true } : {}) } },
          async ({ a, b }) => {
            if (t.hang) await released;
            return { content: [{ type: 'text', text: String(a + (b ?? 0)) }] };
          },
        );
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
      res.on('close', () => void mcp.close());
    });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${port}/mcp`;
  bearer = opts.oauth
    ? requireBearerAuth({ verifier: opts.oauth.verifier, requiredScopes: ['tools'], expectedResource: new URL(state.url), resourceMetadataUrl: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp` })
    : null;
  state.close = () =>
    new Promise((resolve) => {
      state.release();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A server that answers every request with something that is not MCP. */
export async function startGarbageServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
