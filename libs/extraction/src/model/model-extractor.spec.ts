import { ChatModel, ChatRequest, ChatResponse } from '@strata/ai/llm/chat-model.port';
import { UpstreamError } from '@strata/ai/errors';
import { ModelExtractor } from './model-extractor';

/** A chat model that answers from a script and records what it was asked. */
class FakeChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly model = 'fake';
  readonly requests: ChatRequest[] = [];
  /** answers per pass (`extract_<layer>`), in order */
  constructor(private readonly answers: Record<string, ((req: ChatRequest) => unknown)[]>) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.requests.push({ ...req, messages: [...req.messages] });
    const next = this.answers[req.output!.name]?.shift();
    if (!next) throw new Error('no scripted answer left');
    const a = next(req);
    if (a instanceof Error) throw a;
    const text = typeof a === 'string' ? a : JSON.stringify(a);
    return { text, json: typeof a === 'string' ? undefined : a, toolCalls: [], stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

const claim = { node_type: 'Claim', label: 'Revenue grew', quote: 'Revenue grew 12%.', confidence: 0.9, props: { content: 'Revenue grew 12%.' } };

describe('ModelExtractor', () => {
  it('asks for the layer types as JSON schema and returns the validated nodes', async () => {
    const model = new FakeChatModel({ extract_epistemic: [() => ({ nodes: [claim] })] });
    const out = await new ModelExtractor(model).extract({ content: 'Revenue grew 12%.', layers: ['epistemic'], context: { title: 'Q3', participants: [{ name: 'Ana', role: 'CFO' }] } });
    expect(out).toEqual([{ layer: 'epistemic', nodes: [{ ...claim, label: 'Revenue grew' }] }]);
    const req = model.requests[0];
    const schema = req.output!.schema as { properties: { nodes: { items: { properties: { node_type: { enum: string[] } } } } } };
    expect(schema.properties.nodes.items.properties.node_type.enum).toEqual(['Claim', 'Evidence', 'Hypothesis', 'Assumption', 'Pattern', 'Analogy', 'Question']);
    expect((req.messages[0] as { content: string }).content).toContain('Participants: Ana, CFO');
    expect((req.messages[0] as { content: string }).content).toContain('Claim: content (string)');
  });

  it('retries once with the validation error, then succeeds', async () => {
    const model = new FakeChatModel({ extract_epistemic: [() => ({ nodes: [{ ...claim, node_type: 'Goal' }] }), () => ({ nodes: [claim] })] });
    const out = await new ModelExtractor(model).extract({ content: 'x', layers: ['epistemic'] });
    expect(out[0]).toEqual({ layer: 'epistemic', nodes: [claim] });
    const retry = model.requests[1].messages;
    expect(retry).toHaveLength(3);
    expect((retry[2] as { content: string }).content).toContain('node_type must be one of');
  });

  it.each([
    ['props that fail the catalogue twice', [() => ({ nodes: [{ ...claim, props: { content: 5 } }] }), () => ({ nodes: [{ ...claim, props: { certainty_degree: 3 } }] })], /structured output invalid after a retry/],
    ['text that is not JSON twice', [() => 'not json', () => '{"nodes": 1}'], /structured output invalid after a retry: the answer is not an object/],
    ['a provider failure', [() => new UpstreamError('openai answered 503', 'openai', 503)], /^openai answered 503$/],
  ])('fails only the pass on %s', async (_name, answers, error) => {
    const model = new FakeChatModel({ extract_epistemic: [...answers], extract_memory: [() => ({ nodes: [] })] });
    const out = await new ModelExtractor(model).extract({ content: 'x', layers: ['epistemic', 'memory'] });
    expect('error' in out[0] && out[0].error).toMatch(error);
    expect(out[1]).toEqual({ layer: 'memory', nodes: [] });
  });
});
