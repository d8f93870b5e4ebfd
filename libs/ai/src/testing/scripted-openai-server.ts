import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One scripted answer. Unscripted requests get `{ type: 'embeddings' }`. `hold`: the answer is
 * held back until the promise settles (a slow provider, released by the test when it wants).
 */
export type ScriptedResponse =
  /** a correct OpenAI embeddings answer for the request's inputs */
  | { type: 'embeddings'; hold?: Promise<unknown>; /** wrong-length vectors on purpose */ dimensions?: number; /** return `data` reversed (clients must sort by index) */ reversed?: boolean }
  /** an OpenAI-style error body `{error:{message,type,code}}` */
  | { type: 'error'; status: number; message?: string; headers?: Record<string, string>; hold?: Promise<unknown> }
  /** anything else, verbatim */
  | { type: 'raw'; status: number; body: string; headers?: Record<string, string>; hold?: Promise<unknown> }
  /** accept the request and never answer (until the server closes) */
  | { type: 'hang' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** parsed JSON body (or the raw text when it is not JSON) */
  body: unknown;
}

export interface ScriptedOpenAIServerOptions {
  /** when set, requests without `Authorization: Bearer <apiKey>` get 401 like OpenAI */
  apiKey?: string;
  /** dimensions of unscripted embeddings when the request does not ask (default 8) */
  defaultDimensions?: number;
}

/**
 * A local HTTP server speaking the OpenAI embeddings protocol (`POST …/embeddings`), for
 * tests of real HTTP clients: script responses, held-back answers, status codes and malformed bodies,
 * and read back every request it received. Listens on 127.0.0.1 only.
 *
 *   const server = await ScriptedOpenAIServer.start({ apiKey: 'k' });
 *   server.enqueue({ type: 'error', status: 429, headers: { 'retry-after': '0' } });
 *   … new OpenAIEmbeddingProvider({ baseUrl: server.baseUrl, apiKey: 'k', … })
 *   await server.close();
 */
export class ScriptedOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedResponse[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    private readonly options: ScriptedOpenAIServerOptions,
  ) {}

  static async start(options: ScriptedOpenAIServerOptions = {}): Promise<ScriptedOpenAIServer> {
    let instance: ScriptedOpenAIServer | undefined;
    const server = createServer((req, res) => void instance!.handle(req, res));
    instance = new ScriptedOpenAIServer(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return instance;
  }

  /** `http://127.0.0.1:<port>/v1` */
  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Queue answers for the next requests, in order. */
  enqueue(...responses: ScriptedResponse[]): this {
    this.queue.push(...responses);
    return this;
  }

  /** The deterministic vector this server returns for `input` (to check results). */
  static vectorFor(input: string, dimensions: number): number[] {
    const out: number[] = [];
    let block = Buffer.alloc(0);
    for (let i = 0; out.length < dimensions; i++) {
      if (block.length === 0) block = createHash('sha256').update(`${input}\u0000${i}`).digest();
      out.push(Math.round((block.readUInt16BE(0) / 65535 - 0.5) * 1e6) / 1e6);
      block = block.subarray(2);
    }
    return out;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text */
    }
    const path = (req.url ?? '/').split('?')[0];
    this.requests.push({ method: req.method ?? '', path, headers: { ...req.headers }, body });

    if (req.method !== 'POST' || !path.endsWith('/embeddings')) {
      return send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    if (this.options.apiKey && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return send(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }

    const step = this.queue.shift() ?? { type: 'embeddings' };
    if (step.type === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (step.hold) await step.hold.catch(() => undefined);
    if (res.destroyed) return;

    if (step.type === 'error') {
      return send(res, step.status, { error: { message: step.message ?? `scripted ${step.status}`, type: 'server_error', code: null } }, step.headers);
    }
    if (step.type === 'raw') {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.body);
      return;
    }

    const request = (body ?? {}) as { input?: unknown; model?: unknown; dimensions?: unknown };
    const inputs = typeof request.input === 'string' ? [request.input] : request.input;
    if (!Array.isArray(inputs) || inputs.some((x) => typeof x !== 'string') || typeof request.model !== 'string') {
      return send(res, 400, { error: { message: "'input' must be a string or an array of strings and 'model' is required", type: 'invalid_request_error' } });
    }
    const asked = typeof request.dimensions === 'number' ? request.dimensions : (this.options.defaultDimensions ?? 8);
    const dims = step.dimensions ?? asked;
    const data = inputs.map((input: string, index: number) => ({
      object: 'embedding',
      index,
      embedding: ScriptedOpenAIServer.vectorFor(input, dims),
    }));
    if (step.reversed) data.reverse();
    const tokens = inputs.reduce((n: number, s: string) => n + Math.ceil(s.length / 4), 0);
    send(res, 200, { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
