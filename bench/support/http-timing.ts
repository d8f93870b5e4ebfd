/** What the HTTP benches share: a JSON client that fails loudly, sequential latency percentiles, made-up words. */

import * as http from 'node:http';

/**
 * A JSON client on node:http with kept-alive connections. Not fetch: on these two cores the
 * bench process shares the machine with the service, and fetch's per-request machinery (WHATWG
 * streams, Request and Headers objects) cost the bench about as much CPU as a fast route costs
 * the service, which a sequential latency then counted as the service's.
 */
export function client(url: string, token: string) {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true });
  const send = (method: string, path: string, payload: Buffer | undefined, mayResend: boolean): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${token}` };
      if (payload) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = payload.length;
      }
      const req = http.request({ host: base.hostname, port: base.port, path, method, headers, agent }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A bench that blocks this process for longer than the service's keep-alive (72 s: raw
        // FTS timings on heavy ties) finds its pooled socket closed as idle; the request never
        // reached the service, so it goes once more on a new connection.
        if (mayResend && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) resolve(send(method, path, payload, false));
        else reject(err);
      });
      req.end(payload);
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await send(method, path, body === undefined ? undefined : Buffer.from(JSON.stringify(body)), true);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return JSON.parse(r.text);
  };
  return { get: (p: string) => call('GET', p), post: (p: string, b: unknown) => call('POST', p, b) };
}

/** Runs `fn` over the inputs in sequence (after `warmup` calls) and reports p50/p99 in ms. */
export async function timeAll<T>(inputs: T[], fn: (x: T) => Promise<unknown>, warmup = 10): Promise<{ p50: number; p99: number }> {
  for (const x of inputs.slice(0, Math.min(warmup, inputs.length))) await fn(x);
  const times: number[] = [];
  for (const x of inputs) {
    const s = performance.now();
    await fn(x);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  const pick = (p: number) => Math.round(100 * times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]) / 100;
  return { p50: pick(50), p99: pick(99) };
}

/** A word no dictionary holds, unique per `i`: selective search terms. */
export function pseudoWord(i: number, rand: () => number): string {
  const syll = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'du', 'shi', 'per', 'gan', 'zu', 'bel'];
  let w = '';
  const n = 2 + Math.floor(rand() * 3);
  for (let k = 0; k < n; k++) w += syll[Math.floor(rand() * syll.length)];
  return w + i.toString(36);
}
