import {
  Answer,
  ChatProtocol,
  RecordedChatRequest,
  ScriptedChatServer,
  ScriptedChatServerOptions,
  SseEvent,
  pieces,
} from './scripted-chat-server';

export type { RecordedChatRequest, ScriptedChatReply, ScriptedChatServerOptions, ScriptedUsage } from './scripted-chat-server';

/**
 * A local server speaking OpenAI chat completions (`POST /v1/chat/completions`), for tests of
 * anything that calls a language model with STRATA_LLM_PROVIDER=openai. Real `node:http` on
 * 127.0.0.1; nothing leaves the machine.
 *
 *   const llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
 *   // STRATA_LLM_PROVIDER=openai STRATA_LLM_URL=<llm.baseUrl> STRATA_LLM_KEY=test STRATA_LLM_MODEL=scripted
 *   llm.enqueue(
 *     { type: 'text', text: 'Hello' },                                   // assistant text (SSE when the request streams)
 *     { type: 'json', value: { nodes: [] } },                            // structured output (content = the JSON text)
 *     { type: 'tool_calls', calls: [{ name: 'search', arguments: { q: 'x' } }] },
 *     { type: 'text', text: 'cut', stop: 'max_tokens', stream: false },  // plain JSON, finish_reason "length"
 *     { type: 'error', status: 429, retryAfter: '2' },                   // status + Retry-After (seconds or HTTP date)
 *     { type: 'error', status: 500, echoRequest: true },                 // a body quoting the key and the messages
 *     { type: 'hang' },                                                  // never answers: the client's timeout fires
 *     { type: 'malformed' },                                             // a 200 that is not JSON ({stream:true}: bad SSE data)
 *     { type: 'drop' },                                                  // connection closed: a connection error
 *   );
 *   llm.requests[0].headers.authorization; llm.requests[0].body.messages   // everything received, in order
 *   await llm.close();
 *
 * With the queue empty, `defaultReply(request)` answers (default: text "ok"); a reply for a
 * request with `response_format` can be derived from `request.body.response_format.json_schema`.
 * Usage is `{prompt_tokens, completion_tokens}`: the reply's `usage` or ⌈characters / 4⌉
 * (`noUsage` leaves it out). Streams send text in 8-character deltas, tool-call arguments in
 * two pieces, then the finish reason, then a usage chunk with no choices, then `[DONE]`.
 * Schema-failing structured output: `{ type: 'json', value: <what the schema refuses> }`; output
 * that is not JSON at all: `{ type: 'text', text: 'Sure! {' }`.
 */
export class ScriptedOpenAIChatServer extends ScriptedChatServer {
  static async start(options: ScriptedChatServerOptions = {}): Promise<ScriptedOpenAIChatServer> {
    const server = new ScriptedOpenAIChatServer(OPENAI, options);
    await server.listen();
    return server;
  }

  /** `http://127.0.0.1:<port>/v1` (what STRATA_LLM_URL takes) */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }
}

const FINISH = { end: 'stop', max_tokens: 'length', tool_use: 'tool_calls' } as const;

function usageOf(a: Answer) {
  return a.usage ? { prompt_tokens: a.usage.input, completion_tokens: a.usage.output, total_tokens: a.usage.input + a.usage.output } : undefined;
}

const OPENAI: ChatProtocol = {
  matches: (path) => path.endsWith('/chat/completions'),
  authorized: (headers, key) => headers.authorization === `Bearer ${key}`,
  errorBody: (status, message) => ({
    error: { message, type: status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_error' : 'server_error', code: status === 401 ? 'invalid_api_key' : null },
  }),
  json: (a: Answer, req: RecordedChatRequest) => ({
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 0,
    model: req.body?.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: a.text || (a.calls.length ? null : ''),
          ...(a.calls.length
            ? { tool_calls: a.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }
            : {}),
        },
        finish_reason: FINISH[a.stop],
      },
    ],
    ...(a.usage ? { usage: usageOf(a) } : {}),
  }),
  sse: (a: Answer, req: RecordedChatRequest) => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: req.body?.model, choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const out: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
    for (const p of pieces(a.text)) out.push(chunk({ content: p }));
    a.calls.forEach((c, index) => {
      const args = JSON.stringify(c.arguments);
      const half = Math.ceil(args.length / 2);
      out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
      out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    out.push(chunk({}, FINISH[a.stop]));
    if (a.usage && req.body?.stream_options?.include_usage) {
      out.push({ data: { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model: req.body?.model, choices: [], usage: usageOf(a) } });
    }
    out.push({ data: '[DONE]' });
    return out;
  },
  malformedSse: () => 'data: {"choices": [ {"delta": \n\n',
};
