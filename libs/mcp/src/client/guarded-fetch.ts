import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress } from '@strata/domain/mcp';
import { HostResolver, systemHostResolver } from './host-resolver';

/** The address rules refused the host (REFERENCE §15.5): 400 url_not_allowed on a route. */
export class AddressNotAllowedError extends Error {
  readonly code = 'url_not_allowed';
}

/** A network failure before any answer: DNS, TCP, TLS, or the deadline. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout',
  ) {
    super(message);
  }
}

export interface GuardedFetchOptions {
  /** STRATA_MCP_ALLOW_PRIVATE: loopback and private addresses accepted (self-hosted, tests) */
  allowPrivate: boolean;
  /** connect + TLS deadline: the socket connected (and its TLS handshake done) within it; what
   * the answer may take after that is the caller's deadline (a tool call may take minutes) */
  connectTimeoutMs: number;
  /** largest response body read */
  maxBodyBytes: number;
  /** how host names are resolved (the system's resolver unless given) */
  resolver?: HostResolver;
}

export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The host's addresses, every one checked; the connection then goes to the first (no second lookup). */
export async function resolveChecked(host: string, allowPrivate: boolean, resolver: HostResolver = systemHostResolver): Promise<{ address: string; family: number }> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  let addresses: { address: string; family: number }[];
  if (isIP(bare)) addresses = [{ address: bare, family: isIP(bare) }];
  else {
    try {
      addresses = await resolver.lookup(bare);
    } catch (err) {
      throw new NetworkError(`DNS lookup of ${bare} failed (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'unreachable');
    }
  }
  if (addresses.length === 0) throw new NetworkError(`${bare} has no address`, 'unreachable');
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new AddressNotAllowedError(`${bare} resolves to a non-public address (${refused.address}); only public addresses are allowed`);
  }
  return addresses[0];
}

function headersOf(init: RequestInit | undefined, request: Request | null): Record<string, string> {
  const out: Record<string, string> = {};
  const h = new Headers(request?.headers);
  new Headers(init?.headers).forEach((v, k) => h.set(k, v));
  h.forEach((v, k) => (out[k] = v));
  return out;
}

/**
 * A fetch for talking to MCP servers and their OAuth endpoints under the network rules:
 * every connect resolves the host, refuses non-public addresses (unless allowed) and connects
 * to the address it checked; redirects are never followed (the 3xx is returned as is); bodies
 * over the limit fail.
 */
export function guardedFetch(opts: GuardedFetchOptions): GuardedFetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) throw new AddressNotAllowedError(`${url.protocol} URLs are not allowed`);
    const target = await resolveChecked(url.hostname, opts.allowPrivate, opts.resolver);
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    let body: Buffer | undefined;
    const rawBody = init?.body ?? (request && method !== 'GET' && method !== 'HEAD' ? await request.arrayBuffer() : undefined);
    if (typeof rawBody === 'string') body = Buffer.from(rawBody);
    else if (rawBody instanceof ArrayBuffer) body = Buffer.from(rawBody);
    else if (rawBody instanceof URLSearchParams) body = Buffer.from(rawBody.toString());
    else if (rawBody instanceof Uint8Array) body = Buffer.from(rawBody);
    else if (rawBody != null) throw new Error('guardedFetch sends string, URLSearchParams or byte bodies only');
    const headers = headersOf(init, request);
    if (body && url.search === '' && headers['content-type'] === undefined && rawBody instanceof URLSearchParams) headers['content-type'] = 'application/x-www-form-urlencoded';
    const signal = init?.signal ?? request?.signal ?? undefined;
    const mod = url.protocol === 'https:' ? https : http;

    return new Promise<Response>((resolve, reject) => {
      const req = mod.request(
        {
          method,
          protocol: url.protocol,
          hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port || undefined,
          path: url.pathname + url.search,
          headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
          // the connection goes to the address just checked: no second resolution to rebind
          lookup: (_host, options, cb) => {
            if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
            else cb(null, target.address, target.family);
          },
          servername: isIP(url.hostname) ? undefined : url.hostname,
          signal,
          agent: false,
        },
        (res) => {
          let seen = 0;
          let done = false;
          // a web stream fed by hand: each state change happens once, whoever stops first
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              res.on('data', (chunk: Buffer) => {
                if (done) return;
                seen += chunk.length;
                if (seen > opts.maxBodyBytes) {
                  done = true;
                  controller.error(new Error(`the response body is over ${opts.maxBodyBytes} bytes`));
                  res.destroy();
                  return;
                }
                controller.enqueue(new Uint8Array(chunk));
              });
              res.on('end', () => {
                if (!done) (done = true), controller.close();
              });
              res.on('error', (err) => {
                if (!done) (done = true), controller.error(err);
              });
            },
            cancel() {
              done = true;
              res.destroy();
            },
          });
          const status = res.statusCode ?? 502;
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) v.forEach((x) => h.append(k, x));
            else if (v !== undefined) h.set(k, v);
          }
          const nullBody = status === 204 || status === 304 || method === 'HEAD' || (status >= 100 && status < 200);
          if (nullBody) res.resume();
          resolve(new Response(nullBody ? null : stream, { status, headers: h }));
        },
      );
      const connectTimer = setTimeout(() => req.destroy(new NetworkError(`could not connect to ${url.host} within ${opts.connectTimeoutMs} ms`, 'timeout')), opts.connectTimeoutMs);
      req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer)));
      req.on('error', (err) => {
        clearTimeout(connectTimer);
        if (err instanceof NetworkError || (err as Error).name === 'AbortError') reject(err);
        else reject(new NetworkError(`${url.host}: ${(err as NodeJS.ErrnoException).code ?? err.message}`, 'unreachable'));
      });
      req.end(body);
    });
  };
}
