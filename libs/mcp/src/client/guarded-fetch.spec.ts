import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { NetworkError, guardedFetch } from './guarded-fetch';

/**
 * The connect deadline bounds the connect (and the TLS handshake) only: what the answer takes
 * after that is the caller's deadline. Timers are Jest's fake ones, so the deadline passes when
 * the test says, the sockets are real.
 */
describe('guardedFetch connect deadline', () => {
  const CONNECT_MS = 1000;
  const fetchGuarded = () => guardedFetch({ allowPrivate: true, connectTimeoutMs: CONNECT_MS, maxBodyBytes: 1 << 20 });

  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  it('reads an answer that comes after the connect deadline', async () => {
    let answer: (() => void) | undefined;
    const received = new Promise<void>((r) => {
      const server = http.createServer((_req, res) => {
        answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        r();
      });
      servers.push(server);
      server.listen(0, '127.0.0.1');
    });
    await new Promise((r) => servers[0].once('listening', r));
    const port = (servers[0].address() as AddressInfo).port;
    const res = fetchGuarded()(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    await received;
    // the server holds its answer past the connect deadline
    jest.advanceTimersByTime(CONNECT_MS * 5);
    answer!();
    const r = await res;
    expect([r.status, await r.json()]).toEqual([200, { ok: true }]);
  });

  it('gives up on a TLS handshake that does not finish within it: timeout', async () => {
    const accepted = new Promise<void>((r) => {
      // accepts the connection and never says a word: the handshake stalls
      const server = net.createServer(() => r());
      servers.push(server);
      server.listen(0, '127.0.0.1');
    });
    await new Promise((r) => servers[0].once('listening', r));
    const port = (servers[0].address() as AddressInfo).port;
    const res = fetchGuarded()(`https://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    const outcome = res.then(
      () => 'answered',
      (err) => err,
    );
    await accepted;
    jest.advanceTimersByTime(CONNECT_MS);
    const err = await outcome;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ kind: 'timeout', message: `could not connect to 127.0.0.1:${port} within ${CONNECT_MS} ms` });
  });

  const servers: (http.Server | net.Server)[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      (s as http.Server).closeAllConnections?.();
      await new Promise((r) => s.close(r));
    }
  });
});
