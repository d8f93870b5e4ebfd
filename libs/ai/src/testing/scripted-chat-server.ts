import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/**
 * The shared machinery of ScriptedOpenAIChatServer and ScriptedAnthropicServer (read their
 * file headers for the API): a real `node:http` server on 127.0.0.1, a queue of scripted
 * replies, a default reply, and the record of every request. Each protocol renders the same
 * scripted replies in its own wire format.
 */

export interface ScriptedUsage {
  input: number;
  output: number;
}

interface Common {
  /** SSE (true) or one JSON body (false); default: what the request asked (`stream`) */
  stream?: boolean;
  /** token counts to report; default ⌈characters / 4⌉ of the request's messages and of the answer */
  usage?: ScriptedUsage;
  /** report no usage at all (servers that omit it) */
  noUsage?: boolean;
  /** answer only once this settles (a slow provider the test releases) */
  hold?: Promise<unknown>;
}

/** One scripted answer. */
export type ScriptedChatReply =
  /** assistant text; `stop: 'max_tokens'` reports a cut-off answer */
  | ({ type: 'text'; text: string; stop?: 'end' | 'max_tokens' } & Common)
  /** a structured-output answer: openai `content` = the JSON text; anthropic the forced tool call's `input` */
  | ({ type: 'json'; value: unknown } & Common)
  /** the model calls tools (ids default to `call_<n>`); optional text before the calls */
  | ({ type: 'tool_calls'; calls: { id?: string; name: string; arguments: unknown }[]; text?: string } & Common)
  /**
   * an HTTP error in the vendor's error shape. `retryAfter` sets the header (seconds or an HTTP
   * date); `echoRequest` puts the received key and messages into the body, like a careless
   * provider, to prove clients never repeat it; `body` replaces the body verbatim
   */
  | { type: 'error'; status: number; retryAfter?: string; echoRequest?: boolean; body?: string; hold?: Promise<unknown> }
  /** accept the request and never answer (until the client gives up or the server closes) */
  | { type: 'hang' }
  /** a 200 whose body does not parse (`stream: true`: an SSE event whose data does not parse) */
  | { type: 'malformed'; stream?: boolean }
  /** close the connection without answering (a connection error) */
  | { type: 'drop' }
  /** anything else, verbatim */
  | { type: 'raw'; status: number; body: string; headers?: Record<string, string> };

export interface RecordedChatRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** parsed JSON body (or the raw text when it is not JSON) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read vendor bodies freely
  body: any;
  /** set once the client closed the connection before the answer was complete (an aborted request) */
  abandoned?: boolean;
}

export interface ScriptedChatServerOptions {
  /** when set, requests without this key (as the vendor sends it) get 401 */
  apiKey?: string;
  /** the answer when the queue is empty (default: text "ok") */
  defaultReply?: (request: RecordedChatRequest) => ScriptedChatReply;
}

/** A reply with content, normalised for rendering. */
export interface Answer {
  text: string;
  calls: { id: string; name: string; arguments: unknown }[];
  json?: { value: unknown };
  stop: 'end' | 'max_tokens' | 'tool_use';
  usage: ScriptedUsage | null;
}

export interface SseEvent {
  event?: string;
  data: unknown;
}

/** What differs between vendors. */
export interface ChatProtocol {
  /** does `path` name the chat endpoint */
  matches(path: string): boolean;
  authorized(headers: IncomingMessage['headers'], apiKey: string): boolean;
  /** a request the vendor would refuse before answering (a missing header), as a message */
  rejects?(req: RecordedChatRequest): string | null;
  errorBody(status: number, message: string): unknown;
  json(answer: Answer, req: RecordedChatRequest): unknown;
  sse(answer: Answer, req: RecordedChatRequest): SseEvent[];
  /** text of a piece of SSE whose data does not parse */
  malformedSse(): string;
}

export abstract class ScriptedChatServer {
  readonly requests: RecordedChatRequest[] = [];
  private readonly queue: ScriptedChatReply[] = [];
  private readonly sockets = new Set<Socket>();
  private server!: Server;

  protected constructor(
    private readonly protocol: ChatProtocol,
    private readonly options: ScriptedChatServerOptions,
  ) {}

  protected async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  protected get origin(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Queue answers for the next requests, in order. */
  enqueue(...replies: ScriptedChatReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** replies still queued */
  get pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
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
    const recorded: RecordedChatRequest = { method: req.method ?? '', path: (req.url ?? '/').split('?')[0], headers: { ...req.headers }, body };
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableEnded) recorded.abandoned = true;
    });
    const p = this.protocol;
    if (req.method !== 'POST' || !p.matches(recorded.path)) return send(res, 404, p.errorBody(404, `no route ${req.method} ${recorded.path}`));
    if (this.options.apiKey && !p.authorized(req.headers, this.options.apiKey)) return send(res, 401, p.errorBody(401, 'invalid api key'));
    const refused = p.rejects?.(recorded);
    if (refused) return send(res, 400, p.errorBody(400, refused));
    if (!body || typeof body !== 'object') return send(res, 400, p.errorBody(400, 'the body must be a JSON object'));

    const reply = this.queue.shift() ?? this.options.defaultReply?.(recorded) ?? { type: 'text', text: 'ok' };
    if (reply.type === 'hang') return;
    if (reply.type === 'drop') {
      req.socket.destroy();
      return;
    }
    if ('hold' in reply && reply.hold) await reply.hold.catch(() => undefined);
    if (res.destroyed) return;
    switch (reply.type) {
      case 'raw':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body);
        return;
      case 'malformed':
        if (reply.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(p.malformedSse());
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"choices": [ {"message": ');
        }
        return;
      case 'error': {
        const headers: Record<string, string> = reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {};
        if (reply.body !== undefined) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...headers });
          res.end(reply.body);
          return;
        }
        const message = reply.echoRequest
          ? `scripted ${reply.status}: you sent key ${JSON.stringify(recorded.headers['authorization'] ?? recorded.headers['x-api-key'])} and messages ${JSON.stringify((body as { messages?: unknown }).messages)}`
          : `scripted ${reply.status}`;
        return send(res, reply.status, p.errorBody(reply.status, message), headers);
      }
      default: {
        const answer = toAnswer(reply, recorded);
        const stream = reply.stream ?? (body as { stream?: unknown }).stream === true;
        if (!stream) return send(res, 200, p.json(answer, recorded));
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const e of p.sse(answer, recorded)) {
          res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
        }
        res.end();
      }
    }
  }
}

function toAnswer(reply: Extract<ScriptedChatReply, { type: 'text' | 'json' | 'tool_calls' }>, req: RecordedChatRequest): Answer {
  const base = { text: '', calls: [] as Answer['calls'], stop: 'end' as Answer['stop'] };
  let a: Omit<Answer, 'usage'>;
  if (reply.type === 'text') a = { ...base, text: reply.text, stop: reply.stop ?? 'end' };
  else if (reply.type === 'json') a = { ...base, text: JSON.stringify(reply.value), json: { value: reply.value } };
  else a = { ...base, text: reply.text ?? '', calls: reply.calls.map((c, i) => ({ id: c.id ?? `call_${i + 1}`, name: c.name, arguments: c.arguments })), stop: 'tool_use' };
  const out = a.text.length + a.calls.reduce((n, c) => n + JSON.stringify(c.arguments).length, 0);
  const usage = reply.noUsage
    ? null
    : (reply.usage ?? { input: Math.ceil(JSON.stringify(req.body?.messages ?? []).length / 4), output: Math.max(1, Math.ceil(out / 4)) });
  return { ...a, usage };
}

/** `text` in pieces of about `size` characters (how a stream delivers it). */
export function pieces(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
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
