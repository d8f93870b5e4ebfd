/** What the HTTP benches share: a JSON client that fails loudly, sequential latency percentiles, made-up words. */

export function client(url: string, token: string) {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async (method: string, path: string, body?: unknown) => {
    let r: Response;
    try {
      r = await send(method, path, body);
    } catch (err) {
      // A bench that blocks this process for longer than the service's keep-alive (72 s: raw
      // FTS timings on heavy ties) finds its pooled socket closed as idle; the request never
      // reached the service, so it goes once more on a new connection.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code !== 'UND_ERR_SOCKET' || cause.message !== 'other side closed') throw err;
      r = await send(method, path, body);
    }
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
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
