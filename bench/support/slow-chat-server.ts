import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat-completions server on loopback for the benchmarks: every answer
 * comes `delayMs` after its request, as one JSON body (the adapter accepts a plain answer when
 * it asked for a stream). The extraction answer names one Concept per pass, quoted from the
 * chunk (a Claim for the epistemic pass, a Concept otherwise). It counts requests and the most it held at once.
 */
export class SlowChatServer {
  requests = 0;
  maxInFlight = 0;
  private inFlight = 0;

  private constructor(
    private readonly server: Server,
    private readonly delayMs: number,
  ) {}

  static async start(delayMs: number): Promise<SlowChatServer> {
    let self!: SlowChatServer;
    const server = createServer((req, res) => void self.handle(req, res));
    self = new SlowChatServer(server, delayMs);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return self;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const piece of req) raw += piece;
    this.requests++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, this.delayMs));
    this.inFlight--;
    const part = /Part \d+/.exec(raw)?.[0] ?? 'Part';
    // one node of a type the pass's layer allows (an answer of the wrong type would be asked for again)
    const node = raw.includes('Layer: epistemic')
      ? { node_type: 'Claim', label: `A claim of ${part}`, quote: part, confidence: 0.9, props: { content: `A claim of ${part}` } }
      : { node_type: 'Concept', label: `Topic of ${part}`, quote: part, confidence: 0.9, props: { name: `Topic of ${part}` } };
    const value = { nodes: [node] };
    const body = {
      id: `chatcmpl-${this.requests}`,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(value) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 30 },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}
