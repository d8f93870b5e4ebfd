import { FixedClock } from '@strata/domain/time';
import { UpstreamError } from '../errors';
import { ScriptedOpenAIChatServer } from '../testing/scripted-openai-chat-server';
import type { ChatModelOptions } from './chat-model-options';
import { OpenAIChatModel } from './openai-chat-model';

describe('OpenAIChatModel against a scripted chat-completions server', () => {
  let server: ScriptedOpenAIChatServer;
  let waits: number[];
  const model = (extra: Partial<ChatModelOptions> = {}) =>
    new OpenAIChatModel({
      url: server.baseUrl,
      apiKey: 'sk-test-key',
      model: 'scripted',
      clock: new FixedClock(),
      wait: async (ms) => void waits.push(ms),
      ...extra,
    });

  beforeEach(async () => {
    waits = [];
    server = await ScriptedOpenAIChatServer.start({ apiKey: 'sk-test-key' });
  });
  afterEach(() => server.close());

  it('posts the §16.2 body with the bearer key, streams, and maps text, stop and usage', async () => {
    server.enqueue({ type: 'text', text: 'Hello there, streaming world', usage: { input: 12, output: 7 } });
    const deltas: string[] = [];
    const res = await model({ maxTokens: 1000 }).chat({
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
      onTextDelta: (t) => deltas.push(t),
    });
    expect(res).toEqual({ text: 'Hello there, streaming world', toolCalls: [], stopReason: 'end', usage: { inputTokens: 12, outputTokens: 7 } });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, streaming world');
    const [req] = server.requests;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test-key');
    expect(req.body).toEqual({
      model: 'scripted',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 1000,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(req.body).not.toHaveProperty('tools');
  });

  it('accepts a plain JSON answer, and hands its text to onTextDelta whole', async () => {
    server.enqueue({ type: 'text', text: 'cut off', stop: 'max_tokens', stream: false, usage: { input: 3, output: 4 } });
    const deltas: string[] = [];
    const res = await model().chat({ messages: [{ role: 'user', content: 'x' }], onTextDelta: (t) => deltas.push(t) });
    expect(res).toMatchObject({ text: 'cut off', stopReason: 'max_tokens', usage: { inputTokens: 3, outputTokens: 4 } });
    expect(deltas).toEqual(['cut off']);
  });

  it.each([true, false])('asks for structured output with response_format json_schema and parses it (stream %s)', async (stream) => {
    server.enqueue({ type: 'json', value: { nodes: [{ label: 'A' }] }, stream });
    const schema = { type: 'object', properties: { nodes: { type: 'array' } }, required: ['nodes'] };
    const res = await model().chat({ messages: [{ role: 'user', content: 'extract' }], output: { name: 'extraction', schema } });
    expect(res.json).toEqual({ nodes: [{ label: 'A' }] });
    expect(res.text).toBe('{"nodes":[{"label":"A"}]}');
    expect(server.requests[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'extraction', schema, strict: true } });
  });

  it.each([true, false])('offers tools, reads tool calls and sends tool turns back (stream %s)', async (stream) => {
    server.enqueue(
      { type: 'tool_calls', calls: [{ id: 'c1', name: 'search', arguments: { q: 'graphs' } }, { name: 'count', arguments: {} }], stream },
      { type: 'text', text: 'done', stream },
    );
    const m = model();
    const tools = [{ name: 'search', description: 'find things', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const first = await m.chat({ messages: [{ role: 'user', content: 'look' }], tools });
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolCalls).toEqual([
      { id: 'c1', name: 'search', arguments: { q: 'graphs' } },
      { id: 'call_2', name: 'count', arguments: {} },
    ]);
    expect(server.requests[0].body.tools).toEqual([{ type: 'function', function: { name: 'search', description: 'find things', parameters: tools[0].inputSchema } }]);
    expect(server.requests[0].body.tool_choice).toBe('auto');

    await m.chat({
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'c1', content: '3 hits' },
        { role: 'tool', toolCallId: 'call_2', content: 'no such thing', isError: true },
      ],
      tools,
    });
    expect(server.requests[1].body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"graphs"}' } },
          { id: 'call_2', type: 'function', function: { name: 'count', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '3 hits' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: no such thing' },
    ]);
  });

  it('keeps unparsable tool arguments as raw text', async () => {
    server.enqueue({ type: 'raw', status: 200, body: JSON.stringify({ choices: [{ message: { content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{oops' } }] }, finish_reason: 'tool_calls' }] }) });
    const res = await model().chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(res.toolCalls).toEqual([{ id: 'a', name: 't', arguments: '{oops' }]);
  });

  it('estimates usage as ⌈characters / 4⌉ when the server reports none', async () => {
    server.enqueue({ type: 'text', text: '12345678', noUsage: true });
    const res = await model().chat({ system: 'abcd', messages: [{ role: 'user', content: 'efgh' }] });
    expect(res.usage).toEqual({ inputTokens: 2, outputTokens: 2 });
  });

  it('names another configured model, and refuses one that is not configured', async () => {
    const m = model({ models: ['scripted', 'bigger'] });
    await m.chat({ model: 'bigger', messages: [{ role: 'user', content: 'x' }] });
    expect(server.requests[0].body.model).toBe('bigger');
    await expect(m.chat({ model: 'other', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/not one of the configured models/);
  });

  it.each([
    ['a body that is not JSON', { type: 'malformed' as const }],
    ['an SSE event that is not JSON', { type: 'malformed' as const, stream: true }],
  ])('fails with UpstreamError on %s, without retrying', async (_what, reply) => {
    server.enqueue(reply);
    const err = await model().chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/openai returned malformed JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('a wrong key is a 502 naming the status and a short reason', async () => {
    const err = await model({ apiKey: 'sk-wrong' }).chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.status).toBe(502);
    expect(err.message).toBe('openai answered HTTP 401: authentication failed (check STRATA_LLM_KEY) (invalid_request_error)');
    expect(err.context).toEqual({ provider: 'openai', upstream_status: 401 });
    expect(waits).toEqual([]);
  });
});
