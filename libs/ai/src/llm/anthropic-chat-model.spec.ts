import { FixedClock } from '@strata/domain/time';
import { UpstreamError } from '../errors';
import { ScriptedAnthropicServer } from '../testing/scripted-anthropic-server';
import { AnthropicChatModel } from './anthropic-chat-model';
import type { ChatModelOptions } from './chat-model-options';

describe('AnthropicChatModel against a scripted Messages API server', () => {
  let server: ScriptedAnthropicServer;
  let waits: number[];
  const model = (extra: Partial<ChatModelOptions> = {}) =>
    new AnthropicChatModel({
      url: server.baseUrl,
      apiKey: 'sk-ant-test',
      model: 'scripted',
      clock: new FixedClock(),
      wait: async (ms) => void waits.push(ms),
      ...extra,
    });

  beforeEach(async () => {
    waits = [];
    server = await ScriptedAnthropicServer.start({ apiKey: 'sk-ant-test' });
  });
  afterEach(() => server.close());

  it('posts {model, system, messages, max_tokens, stream} with x-api-key and anthropic-version, and streams text', async () => {
    server.enqueue({ type: 'text', text: 'Streaming from the Messages API', usage: { input: 21, output: 9 } });
    const deltas: string[] = [];
    const res = await model().chat({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }], onTextDelta: (t) => deltas.push(t) });
    expect(res).toEqual({ text: 'Streaming from the Messages API', toolCalls: [], stopReason: 'end', usage: { inputTokens: 21, outputTokens: 9 } });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(res.text);
    const [req] = server.requests;
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('sk-ant-test');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toEqual({ model: 'scripted', system: 'be brief', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4096, stream: true });
  });

  it('accepts a plain JSON answer and maps max_tokens', async () => {
    server.enqueue({ type: 'text', text: 'cut', stop: 'max_tokens', stream: false, usage: { input: 2, output: 5 } });
    const res = await model({ maxTokens: 10 }).chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(res).toEqual({ text: 'cut', toolCalls: [], stopReason: 'max_tokens', usage: { inputTokens: 2, outputTokens: 5 } });
    expect(server.requests[0].body.max_tokens).toBe(10);
  });

  it.each([true, false])('asks for structured output as a forced tool call and returns its input as the JSON (stream %s)', async (stream) => {
    server.enqueue({ type: 'json', value: { nodes: [{ label: 'A' }] }, stream });
    const schema = { type: 'object', properties: { nodes: { type: 'array' } }, required: ['nodes'] };
    const res = await model().chat({ messages: [{ role: 'user', content: 'extract' }], output: { name: 'extraction', schema } });
    expect(res).toMatchObject({ json: { nodes: [{ label: 'A' }] }, text: '{"nodes":[{"label":"A"}]}', toolCalls: [], stopReason: 'end' });
    expect(server.requests[0].body.tools).toEqual([{ name: 'extraction', description: expect.any(String), input_schema: schema }]);
    expect(server.requests[0].body.tool_choice).toEqual({ type: 'tool', name: 'extraction' });
  });

  it('wraps an output schema that is not an object, and unwraps the answer', async () => {
    server.enqueue({ type: 'json', value: { value: ['a', 'b'] } });
    const res = await model().chat({ messages: [{ role: 'user', content: 'list' }], output: { name: 'labels', schema: { type: 'array', items: { type: 'string' } } } });
    expect(res.json).toEqual(['a', 'b']);
    expect(server.requests[0].body.tools[0].input_schema).toEqual({ type: 'object', properties: { value: { type: 'array', items: { type: 'string' } } }, required: ['value'] });
  });

  it.each([true, false])('offers tools, reads tool_use blocks and sends tool_result blocks back (stream %s)', async (stream) => {
    server.enqueue({ type: 'tool_calls', text: 'Let me look.', calls: [{ id: 'toolu_1', name: 'search', arguments: { q: 'graphs' } }, { id: 'toolu_2', name: 'count', arguments: {} }], stream }, { type: 'text', text: 'done', stream });
    const m = model();
    const tools = [{ name: 'search', description: 'find things', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }];
    const first = await m.chat({ messages: [{ role: 'user', content: 'look' }], tools });
    expect(first).toMatchObject({
      text: 'Let me look.',
      stopReason: 'tool_use',
      toolCalls: [
        { id: 'toolu_1', name: 'search', arguments: { q: 'graphs' } },
        { id: 'toolu_2', name: 'count', arguments: {} },
      ],
    });
    expect(server.requests[0].body.tools).toEqual([{ name: 'search', description: 'find things', input_schema: tools[0].inputSchema }]);
    expect(server.requests[0].body).not.toHaveProperty('tool_choice');

    const second = await m.chat({
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'toolu_1', content: '3 hits' },
        { role: 'tool', toolCallId: 'toolu_2', content: 'no such thing', isError: true },
      ],
      tools,
    });
    expect(second.stopReason).toBe('end');
    expect(server.requests[1].body.messages).toEqual([
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'graphs' } },
          { type: 'tool_use', id: 'toolu_2', name: 'count', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '3 hits' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such thing', is_error: true },
        ],
      },
    ]);
  });

  it.each([
    ['a body that is not JSON', { type: 'malformed' as const }],
    ['an SSE event that is not JSON', { type: 'malformed' as const, stream: true }],
  ])('fails with UpstreamError on %s, without retrying', async (_what, reply) => {
    server.enqueue(reply);
    const err = await model().chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/anthropic returned malformed JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('a wrong key is a 502 naming the status and a short reason', async () => {
    const err = await model({ apiKey: 'sk-ant-wrong' }).chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe('anthropic answered HTTP 401: authentication failed (check STRATA_LLM_KEY) (authentication_error)');
    expect(err.context).toEqual({ provider: 'anthropic', upstream_status: 401 });
  });
});
