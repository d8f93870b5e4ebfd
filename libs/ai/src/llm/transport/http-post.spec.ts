import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeHttpPost } from './http-post';

describe('nodeHttpPost', () => {
  let server: http.Server;
  let url: string;
  let connections: number;
  let bodies: string[];
  beforeEach(async () => {
    connections = 0;
    bodies = [];
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-two': ['a', 'b'] });
        res.write('data: one\n\n');
        res.end('data: [DONE]\n\n');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('posts the body with its length and reads status, headers and the body', async () => {
    const res = await nodeHttpPost(url, { 'content-type': 'application/json' }, '{"é":1}', new AbortController().signal);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    expect(res.headers.get('x-two')).toBe('a, b');
    expect(res.headers.get('x-none')).toBeNull();
    expect(await res.text()).toBe('data: one\n\ndata: [DONE]\n\n');
    expect(bodies).toEqual(['{"é":1}']);
  });

  it('keeps one connection for calls in sequence, also when a reader stops before the end of the body', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await nodeHttpPost(url, {}, 'x', new AbortController().signal);
      for await (const chunk of res.body) if (Buffer.from(chunk).toString().includes('[DONE]')) break;
    }
    expect(connections).toBe(1);
  });

  it('sends a request again at once on a new connection when the server closes the kept-alive one it went out on', async () => {
    const served = new WeakSet<object>();
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      // a server closing an idle connection just as the next request arrives drops it unread
      if (served.has(req.socket)) return void req.socket.destroy();
      served.add(req.socket);
      req.resume().on('end', () => res.end('ok'));
    });
    expect(await (await nodeHttpPost(url, {}, 'first', new AbortController().signal)).text()).toBe('ok');
    const second = await nodeHttpPost(url, {}, 'second', new AbortController().signal);
    expect(await second.text()).toBe('ok');
    expect(connections).toBe(2);
  });

  it('reports a connection reset on a fresh connection to the caller instead of sending again', async () => {
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage) => void req.socket.destroy());
    await expect(nodeHttpPost(url, {}, 'x', new AbortController().signal)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(connections).toBe(1);
  });

  it('sends again only once when the new connection is reset too', async () => {
    let requests = 0;
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      requests++;
      if (requests === 1) return void req.resume().on('end', () => res.end('ok'));
      req.socket.destroy();
    });
    await (await nodeHttpPost(url, {}, 'first', new AbortController().signal)).text();
    await expect(nodeHttpPost(url, {}, 'second', new AbortController().signal)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(requests).toBe(3);
  });

  it('rejects when the signal aborts before the answer', async () => {
    const controller = new AbortController();
    server.removeAllListeners('request');
    server.on('request', () => undefined); // never answers
    const call = nodeHttpPost(url, {}, 'x', controller.signal);
    controller.abort(new Error('stop'));
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a scheme other than http and https', async () => {
    await expect(nodeHttpPost('ftp://127.0.0.1/x', {}, 'x', new AbortController().signal)).rejects.toMatchObject({ code: 'ERR_INVALID_PROTOCOL' });
  });
});
