import { Answer, ChatProtocol, RecordedChatRequest, ScriptedChatServer, ScriptedChatServerOptions, SseEvent, pieces } from './scripted-chat-server';

export type { RecordedChatRequest, ScriptedChatReply, ScriptedChatServerOptions, ScriptedUsage } from './scripted-chat-server';

/**
 * A local server speaking the Anthropic Messages API (`POST /v1/messages`), for tests of
 * anything that calls a language model with STRATA_LLM_PROVIDER=anthropic. Real `node:http`
 * on 127.0.0.1; nothing leaves the machine. It refuses (400) a request without
 * `anthropic-version`, and (401) one whose `x-api-key` is not `apiKey` when that is set.
 *
 *   const llm = await ScriptedAnthropicServer.start({ apiKey: 'test' });
 *   // STRATA_LLM_PROVIDER=anthropic STRATA_LLM_URL=<llm.baseUrl> STRATA_LLM_KEY=test STRATA_LLM_MODEL=scripted
 *   llm.enqueue(
 *     { type: 'text', text: 'Hello' },                                   // a text block (SSE when the request streams)
 *     { type: 'json', value: { nodes: [] } },                            // structured output: the forced tool call's input
 *     { type: 'tool_calls', calls: [{ name: 'search', arguments: { q: 'x' } }] },   // tool_use blocks
 *     { type: 'text', text: 'cut', stop: 'max_tokens', stream: false },  // plain JSON, stop_reason "max_tokens"
 *     { type: 'error', status: 529, retryAfter: '2' },                   // status + Retry-After (seconds or HTTP date)
 *     { type: 'error', status: 500, echoRequest: true },                 // a body quoting the key and the messages
 *     { type: 'hang' }, { type: 'malformed' }, { type: 'drop' },         // timeout, bad JSON, connection error
 *   );
 *   llm.requests[0].headers['x-api-key']; llm.requests[0].body.messages   // everything received, in order
 *   await llm.close();
 *
 * The same reply types as ScriptedOpenAIChatServer (see scripted-chat-server.ts). With the queue
 * empty, `defaultReply(request)` answers (default: text "ok"). A `json` reply answers with a
 * `tool_use` block named after the request's `tool_choice.name`; an output schema that is not
 * an object arrives wrapped as `{value}`, so reply `{ type: 'json', value: { value: … } }` then.
 * Usage is `{input_tokens, output_tokens}`: the reply's `usage` or ⌈characters / 4⌉. Streams
 * send message_start, a ping, each block (text in 8-character `text_delta`s, tool input in two
 * `input_json_delta`s), message_delta with the stop reason and output tokens, message_stop.
 * Schema-failing structured output: `{ type: 'json', value: <what the schema refuses> }`.
 */
export class ScriptedAnthropicServer extends ScriptedChatServer {
  static async start(options: ScriptedChatServerOptions = {}): Promise<ScriptedAnthropicServer> {
    const server = new ScriptedAnthropicServer(ANTHROPIC, options);
    await server.listen();
    return server;
  }

  /** `http://127.0.0.1:<port>` (what STRATA_LLM_URL takes; the client adds /v1/messages) */
  get baseUrl(): string {
    return this.origin;
  }
}

const STOP = { end: 'end_turn', max_tokens: 'max_tokens', tool_use: 'tool_use' } as const;

function blocksOf(a: Answer, req: RecordedChatRequest): ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[] {
  if (a.json) {
    const name = req.body?.tool_choice?.name ?? req.body?.tools?.[0]?.name ?? 'output';
    return [{ type: 'tool_use', id: 'toolu_output', name, input: a.json.value }];
  }
  return [...(a.text ? [{ type: 'text' as const, text: a.text }] : []), ...a.calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments }))];
}

const stopOf = (a: Answer) => (a.json ? 'tool_use' : STOP[a.stop]);

const ANTHROPIC: ChatProtocol = {
  matches: (path) => path === '/v1/messages',
  authorized: (headers, key) => headers['x-api-key'] === key,
  rejects: (req) => (req.headers['anthropic-version'] ? null : 'anthropic-version: header is required'),
  errorBody: (status, message) => ({
    type: 'error',
    error: {
      type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status === 400 ? 'invalid_request_error' : 'api_error',
      message,
    },
  }),
  json: (a: Answer, req: RecordedChatRequest) => ({
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model: req.body?.model,
    content: blocksOf(a, req),
    stop_reason: stopOf(a),
    stop_sequence: null,
    ...(a.usage ? { usage: { input_tokens: a.usage.input, output_tokens: a.usage.output } } : {}),
  }),
  sse: (a: Answer, req: RecordedChatRequest) => {
    const ev = (event: string, data: Record<string, unknown>): SseEvent => ({ event, data: { type: event, ...data } });
    const out: SseEvent[] = [
      ev('message_start', {
        message: {
          id: 'msg_scripted', type: 'message', role: 'assistant', model: req.body?.model, content: [], stop_reason: null, stop_sequence: null,
          ...(a.usage ? { usage: { input_tokens: a.usage.input, output_tokens: 1 } } : {}),
        },
      }),
      ev('ping', {}),
    ];
    blocksOf(a, req).forEach((b, index) => {
      if (b.type === 'text') {
        out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        for (const p of pieces(b.text)) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
      } else {
        const json = JSON.stringify(b.input);
        const half = Math.ceil(json.length / 2);
        out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }));
        out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } }));
        out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } }));
      }
      out.push(ev('content_block_stop', { index }));
    });
    out.push(ev('message_delta', { delta: { stop_reason: stopOf(a), stop_sequence: null }, ...(a.usage ? { usage: { output_tokens: a.usage.output } } : {}) }));
    out.push(ev('message_stop', {}));
    return out;
  },
  malformedSse: () => 'event: message_start\ndata: {"type": "message_start", "message": \n\n',
};
