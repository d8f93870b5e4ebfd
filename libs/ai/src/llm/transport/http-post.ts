import * as http from 'node:http';
import * as https from 'node:https';

/** What the chat adapters read of an answer: the part of a fetch Response they use. */
export interface LlmResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** the body as it arrives; leaving the loop early gives the connection back once the answer is whole */
  readonly body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  /** drops the body unread (a 429 or 5xx about to be retried) */
  discard(): void;
}

/** POSTs `body` and resolves with the answer's head; rejects on a connection error or when `signal` aborts. */
export type HttpPost = (url: string, headers: Record<string, string>, body: string, signal: AbortSignal) => Promise<LlmResponse>;

// Connections stay open between calls (a step makes one call, a run several), until the server
// closes them (idle sockets do not keep the process alive). A request written on a kept-alive
// connection the server was closing at that moment is sent again at once on a new one (below).
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** A provider's endpoint is one URL for the process's life: parsed once, not at every call. */
const targets = new Map<string, URL>();
function parsed(url: string): URL {
  let target = targets.get(url);
  if (!target) {
    target = new URL(url);
    if (targets.size >= 64) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * One JSON POST on node:http(s). The global fetch did the same at about three times the CPU
 * per call (its WHATWG streams, Request/Headers objects and abort wiring), which a model step
 * pays on every call.
 */
export const nodeHttpPost: HttpPost = (url, headers, body, signal) => post(url, headers, body, signal, true);

function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, mayResend: boolean): Promise<LlmResponse> {
  return new Promise<LlmResponse>((resolve, reject) => {
    const target = parsed(url);
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) return reject(Object.assign(new TypeError('unsupported URL scheme'), { code: 'ERR_INVALID_PROTOCOL' }));
    let answered = false;
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'POST', agent, signal, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        answered = true;
        resolve(responseOf(res));
      },
    );
    // listened to for the request's whole life: an 'error' nobody listens to throws (once the
    // answer began, its body reports the failure to its reader)
    request.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive connection reset before any answer is nearly always one the server closed
      // as idle while the request went out. The transport retries a connection error anyway;
      // sending it once more at once, on a fresh connection, spares the caller its back-off.
      if (mayResend && !answered && request.reusedSocket && !signal.aborted && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        resolve(post(url, headers, body, signal, false));
      } else reject(err);
    });
    request.end(body);
  });
}

function responseOf(res: http.IncomingMessage): LlmResponse {
  return {
    status: res.statusCode ?? 0,
    headers: {
      get: (name) => {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    body: chunksOf(res),
    text: async () => {
      const parts: Buffer[] = [];
      for await (const c of res) parts.push(c as Buffer);
      return Buffer.concat(parts).toString('utf8');
    },
    discard: () => void res.destroy(),
  };
}

/**
 * The body's chunks. A reader that stops early (an OpenAI stream's `[DONE]` arrives before the
 * body's end is read) has the rest drained when the answer is whole, and its loop left once the
 * connection is back in the pool (so the next call reuses it, in call order); an answer cut
 * short is destroyed.
 */
async function* chunksOf(res: http.IncomingMessage): AsyncGenerator<Uint8Array> {
  let ended = false;
  try {
    for await (const c of res.iterator({ destroyOnReturn: false })) yield c as Buffer;
    ended = true;
  } finally {
    if (!ended && !res.readableEnded) {
      if (!res.complete) res.destroy();
      else
        await new Promise<void>((resolve) => {
          res.once('end', resolve).once('close', resolve).resume();
        });
    }
  }
}
