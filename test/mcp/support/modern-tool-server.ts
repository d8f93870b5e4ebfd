import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface ModernToolServer {
  url: string;
  /** every JSON-RPC message received, in order, with the protocol-version header it came with */
  seen: { method: string | undefined; id: unknown; params: any; version: string | undefined }[];
  /** the `slow` calls whose handler saw its request cancelled */
  aborted: number;
  /** lets the `slow` calls still waiting finish */
  release(): void;
  close(): Promise<void>;
}

/**
 * A tool server on the stateless 2026-07-28 revision, built with the v2 MCP server SDK
 * (`@modelcontextprotocol/server`, `createMcpHandler`) on loopback: `add` answers at once,
 * `slow` waits until `release()` or until the SDK aborts its handler (its HTTP request
 * abandoned by the client). Every message received is recorded, notifications included.
 */
export async function startModernToolServer(): Promise<ModernToolServer> {
  let releaseAll: () => void = () => undefined;
  let released = new Promise<void>((r) => (releaseAll = r));
  const state: ModernToolServer = {
    url: '',
    seen: [],
    aborted: 0,
    release: () => {
      releaseAll();
      released = new Promise<void>((r) => (releaseAll = r));
    },
    close: async () => undefined,
  };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'modern-tools', version: '2.0.0' });
    server.registerTool('add', { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }), annotations: { readOnlyHint: true } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('slow', { description: 'Takes its time.', inputSchema: z.object({ a: z.number() }) }, async (_args, ctx) => {
      await new Promise<void>((resolve) => {
        void released.then(resolve);
        ctx.mcpReq.signal.addEventListener('abort', () => {
          state.aborted++;
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return server;
  });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const m = JSON.parse(body.toString('utf8'));
      state.seen.push({ method: m.method, id: m.id, params: m.params, version: req.headers['mcp-protocol-version'] as string | undefined });
    } catch {
      // not JSON: the SDK answers it
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    // a client that goes away aborts the request, as the SDK's node adapter does
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body, signal: gone.signal });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (!response.body) return void res.end();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    releaseAll();
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
