import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface ToolSpec {
  name: string;
  description: string;
  readOnly?: boolean;
}

export interface ToolServer {
  url: string;
  /** every Authorization header the server saw */
  seenAuth: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A real MCP tool server built with the official SDK (stateless Streamable HTTP) on loopback;
 * with `token`, a request without `Authorization: Bearer <token>` gets 401.
 */
export async function startToolServer(opts: { tools: ToolSpec[]; token?: string; name?: string }): Promise<ToolServer> {
  const seenAuth: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="tools"' }).end('{"error":"unauthorized"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const mcp = new McpServer({ name: opts.name ?? 'test-tools', version: '1.2.3' }, { instructions: 'Test tools.' });
      for (const t of opts.tools) {
        mcp.registerTool(t.name, { description: t.description, inputSchema: { a: z.number(), b: z.number().optional() }, annotations: { readOnlyHint: !!t.readOnly } }, async ({ a, b }) => ({
          content: [{ type: 'text', text: String(a + (b ?? 0)) }],
        }));
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      await transport.handleRequest(req, res, body);
      res.on('close', () => void mcp.close());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seenAuth,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server that answers every request with something that is not MCP. */
export async function startGarbageServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
