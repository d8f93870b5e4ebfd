import { FixedClock } from '@strata/domain/time';
import { UpstreamError } from '../errors';
import { ScriptedAnthropicServer } from '../testing/scripted-anthropic-server';
import type { ScriptedChatServer } from '../testing/scripted-chat-server';
import { ScriptedOpenAIChatServer } from '../testing/scripted-openai-chat-server';
import { AnthropicChatModel } from './anthropic-chat-model';
import type { ChatModel } from './chat-model.port';
import type { ChatModelOptions } from './chat-model-options';
import { validateJson } from './json-schema-validator';
import { OpenAIChatModel } from './openai-chat-model';
import { StructuredOutputError, structuredCall } from './structured-call';

const schema = {
  type: 'object',
  required: ['nodes'],
  additionalProperties: false,
  properties: {
    nodes: {
      type: 'array',
      items: { type: 'object', required: ['label', 'type'], properties: { label: { type: 'string' }, type: { enum: ['Person', 'Place'] }, confidence: { type: 'number' } } },
    },
  },
};
const good = { nodes: [{ label: 'Ada', type: 'Person', confidence: 0.9 }] };
const bad = { nodes: [{ label: 'Ada', type: 'Planet' }] };

describe.each([
  ['openai', () => ScriptedOpenAIChatServer.start(), (o: ChatModelOptions) => new OpenAIChatModel(o)],
  ['anthropic', () => ScriptedAnthropicServer.start(), (o: ChatModelOptions) => new AnthropicChatModel(o)],
] as const)('structuredCall on %s', (_provider, start, create) => {
  let server: ScriptedChatServer & { baseUrl: string };
  let model: ChatModel;
  const request = { system: 'extract', messages: [{ role: 'user' as const, content: 'Ada lived in London.' }], output: { name: 'extraction', schema } };

  beforeEach(async () => {
    server = await start();
    model = create({ url: server.baseUrl, apiKey: 'k', model: 'scripted', clock: new FixedClock(), wait: async () => undefined });
  });
  afterEach(() => server.close());

  it('returns a value that validates at the first attempt', async () => {
    server.enqueue({ type: 'json', value: good, usage: { input: 10, output: 5 } });
    await expect(structuredCall(model, request)).resolves.toEqual({ value: good, usage: { inputTokens: 10, outputTokens: 5 }, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('sends an invalid answer back once with its problems, and takes the second', async () => {
    server.enqueue({ type: 'json', value: bad, usage: { input: 10, output: 5 } }, { type: 'json', value: good, usage: { input: 30, output: 6 } });
    const res = await structuredCall(model, request);
    expect(res).toEqual({ value: good, usage: { inputTokens: 40, outputTokens: 11 }, attempts: 2 });
    const retry = JSON.stringify(server.requests[1].body.messages);
    expect(retry).toContain('Ada lived in London.');
    expect(retry).toContain('$.nodes[0].type: must be one of \\"Person\\", \\"Place\\"');
    expect(retry).toContain('Planet');
  });

  it('a second failure is a StructuredOutputError (not an upstream error) naming the problems', async () => {
    server.enqueue({ type: 'json', value: bad }, { type: 'json', value: { nodes: 'none', extra: 1 } });
    const err = await structuredCall(model, request).catch((e) => e);
    expect(err).toBeInstanceOf(StructuredOutputError);
    expect(err).not.toBeInstanceOf(UpstreamError);
    expect(err.problems).toEqual(['$.nodes: expected array, got string', "$: unexpected property 'extra'"]);
    expect(err.message).toBe("the model's extraction was invalid twice: $.nodes: expected array, got string; $: unexpected property 'extra'");
    expect(err.message).not.toContain('London');
    expect(server.requests).toHaveLength(2);
  });

  it("uses the caller's validator", async () => {
    server.enqueue({ type: 'json', value: good }, { type: 'json', value: good });
    const err = await structuredCall(model, request, () => ['$.nodes: Ada is not allowed']).catch((e) => e);
    expect(err).toBeInstanceOf(StructuredOutputError);
    expect(err.problems).toEqual(['$.nodes: Ada is not allowed']);
  });

  it('an upstream failure is not retried as bad output', async () => {
    server.enqueue({ type: 'error', status: 400 });
    await expect(structuredCall(model, request)).rejects.toBeInstanceOf(UpstreamError);
  });
});

it('structuredCall treats text that does not parse as invalid output (openai)', async () => {
  const server = await ScriptedOpenAIChatServer.start();
  try {
    const model = new OpenAIChatModel({ url: server.baseUrl, apiKey: 'k', model: 'scripted', clock: new FixedClock() });
    server.enqueue({ type: 'text', text: 'Sure! Here is the JSON: {' }, { type: 'text', text: '{"nodes": [', stop: 'max_tokens' });
    const err = await structuredCall(model, { messages: [{ role: 'user', content: 'x' }], output: { name: 'extraction', schema } }).catch((e) => e);
    expect(err).toBeInstanceOf(StructuredOutputError);
    expect(err.problems).toEqual(['the answer was cut off at the token limit before the JSON ended']);
    expect(JSON.stringify(server.requests[1].body.messages)).toContain('the answer is not valid JSON');
  } finally {
    await server.close();
  }
});

describe('validateJson', () => {
  it('checks type, required, properties, items, enum and friends', () => {
    expect(validateJson(schema, good)).toEqual([]);
    expect(validateJson({ type: 'integer' }, 1.5)).toEqual(['$: expected integer, got number']);
    expect(validateJson({ type: ['string', 'null'] }, null)).toEqual([]);
    expect(validateJson({ type: 'array', items: { type: 'string' }, minItems: 2 }, [1])).toEqual(['$: needs at least 2 items', '$[0]: expected string, got integer']);
    expect(validateJson({ type: 'object', required: ['a'], properties: { b: { type: 'boolean' } } }, { b: 'yes' })).toEqual([
      "$: missing required property 'a'",
      '$.b: expected boolean, got string',
    ]);
    expect(validateJson({ enum: ['x'] }, 'y')).toEqual(['$: must be one of "x"']);
    expect(validateJson({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true)).toEqual(['$: matches none of the allowed shapes']);
    expect(validateJson({ type: 'object', additionalProperties: { type: 'number' } }, { a: 1, b: 'x' })).toEqual(['$.b: expected number, got string']);
  });
});
