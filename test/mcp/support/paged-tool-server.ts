import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface PagedToolServer {
  url: string;
  /** tool names listed, `pageSize` a page, each page but the last with a `nextCursor` */
  names: string[];
  pageSize: number;
  /** cursors received by tools/list, in order (undefined for the first page) */
  seenCursors: (string | undefined)[];
  /** when true, a tools/call sends `notifications/tools/list_changed` on its response stream */
  announceListChanged: boolean;
  /** when true, every page has a `nextCursor`: the listing never ends */
  endless: boolean;
  close(): Promise<void>;
}

/**
 * A real MCP tool server on the SDK's low-level `Server` (stateless Streamable HTTP, SSE answers
 * so notifications ride the response stream) whose `tools/list` pages with `nextCursor`.
 */
export async function startPagedToolServer(opts: { names: string[]; pageSize: number }): Promise<PagedToolServer> {
  const state: PagedToolServer = { url: '', names: opts.names, pageSize: opts.pageSize, seenCursors: [], announceListChanged: false, endless: false, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const mcp = new Server({ name: 'paged-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
      mcp.setRequestHandler(ListToolsRequestSchema, async (r) => {
        const cursor = r.params?.cursor;
        state.seenCursors.push(cursor);
        const start = cursor ? Number(cursor.replace(/^page-/, '')) : 0;
        const page = state.names.slice(start, start + state.pageSize);
        const next = state.endless || start + state.pageSize < state.names.length ? `page-${start + state.pageSize}` : undefined;
        return { tools: page.map((name) => ({ name, description: `Tool ${name}.`, inputSchema: { type: 'object' as const, properties: {} } })), ...(next ? { nextCursor: next } : {}) };
      });
      mcp.setRequestHandler(CallToolRequestSchema, async (r, extra) => {
        if (state.announceListChanged) await extra.sendNotification({ method: 'notifications/tools/list_changed' });
        return { content: [{ type: 'text', text: `called ${r.params.name}` }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
      res.on('close', () => void mcp.close());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
