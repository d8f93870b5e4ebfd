import { UpstreamError } from '../errors';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ToolCall, ToolSpec } from './chat-model.port';
import { ChatModelOptions, estimatedUsage, modelFor, parseArguments, parseJsonText } from './chat-model-options';
import { readSse } from './transport/sse';
import type { LlmResponse } from './transport/http-post';
import { LlmTransport, ReadProgress, deliver } from './transport/llm-transport';
import { JsonText, withCachedList } from './transport/json-body';

/** each tool spec's JSON as this protocol sends it, made once per spec */
const OPENAI_TOOLS = new WeakMap<ToolSpec, string>();

interface OpenAIToolCall {
  id?: string;
  index?: number;
  type?: string;
  function?: { name?: string; arguments?: string };
}
interface OpenAIMessage {
  content?: string | null;
  tool_calls?: OpenAIToolCall[];
}
interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}
interface OpenAICompletion {
  choices?: { message?: OpenAIMessage; delta?: OpenAIMessage; finish_reason?: string | null }[];
  usage?: OpenAIUsage | null;
  error?: unknown;
}

/**
 * Chat completions on any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp, Ollama,
 * OpenRouter): `POST <url>/chat/completions` with a bearer key, asking for a stream and
 * accepting a plain JSON answer from servers that ignore `stream`. Hand-written over node:http,
 * not the `openai` SDK: retries, back-off and what an error may say are ours (see LlmTransport),
 * and the SDK's retry loop, real-timer sleeps and error messages quoting the provider's body
 * would have to be switched off piece by piece.
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly model: string;
  private readonly transport: LlmTransport;
  private readonly endpoint: string;

  constructor(private readonly options: ChatModelOptions) {
    if (!options.url) throw new Error('OpenAIChatModel needs a url');
    if (!options.apiKey) throw new Error('OpenAIChatModel needs an API key');
    if (!options.model) throw new Error('OpenAIChatModel needs a model');
    this.model = options.model;
    this.endpoint = `${options.url.replace(/\/+$/, '')}/chat/completions`;
    this.transport = new LlmTransport({ ...options, provider: 'openai', timeoutMs: options.timeoutMs ?? 60_000 });
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    const body = this.body(req);
    return this.transport.post(
      { url: this.endpoint, headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json, text/event-stream' }, body, signal: req.signal },
      (res, progress) => this.read(res, req, progress),
    );
  }

  /** The request body (REFERENCE §16.2), exported for tests through `chat`'s recorded request. */
  private body(req: ChatRequest): JsonText {
    const messages: Record<string, unknown>[] = [];
    if (req.system) messages.push({ role: 'system', content: req.system });
    for (const m of req.messages) messages.push(toOpenAI(m));
    const tools = req.tools ?? [];
    const body = {
      model: modelFor(this.options, req.model),
      messages,
      ...(tools.length ? { tool_choice: 'auto' } : {}),
      ...(req.output
        ? { response_format: { type: 'json_schema', json_schema: { name: req.output.name, schema: req.output.schema, strict: true } } }
        : {}),
      max_tokens: req.maxOutputTokens ?? this.options.maxTokens ?? 4096,
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
    return withCachedList(body, 'tools', tools, OPENAI_TOOLS, (t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
  }

  private async read(res: LlmResponse, req: ChatRequest, progress: ReadProgress): Promise<ChatResponse> {
    const acc = new Accumulator();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for await (const msg of readSse(res.body)) {
        if (msg.data === '[DONE]') break;
        const chunk = parseChunk(msg.data);
        if (chunk.error !== undefined) throw new UpstreamError('openai reported an error in its stream', 'openai', res.status);
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.content) {
          acc.text += delta.content;
          deliver(progress, req.onTextDelta, delta.content);
        }
        for (const tc of delta?.tool_calls ?? []) acc.toolDelta(tc);
        if (chunk.choices?.[0]?.finish_reason) acc.finish = chunk.choices[0].finish_reason;
        if (chunk.usage) acc.usage = chunk.usage;
      }
    } else {
      const text = await res.text();
      const body = parseChunk(text);
      const choice = body.choices?.[0];
      if (!choice?.message) throw new UpstreamError('openai answered without a message', 'openai', res.status);
      acc.text = choice.message.content ?? '';
      // a non-streamed answer arrives whole: a caller that streams still sees its text
      deliver(progress, req.onTextDelta, acc.text);
      (choice.message.tool_calls ?? []).forEach((tc, index) => acc.toolDelta({ ...tc, index }));
      acc.finish = choice.finish_reason ?? null;
      acc.usage = body.usage ?? null;
    }
    return acc.response(req);
  }
}

function toOpenAI(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content || (m.toolCalls?.length ? null : ''),
        ...(m.toolCalls?.length
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
              })),
            }
          : {}),
      };
    case 'tool':
      // chat completions has no error flag on a tool result: say it in the content
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.isError ? `Error: ${m.content}` : m.content };
  }
}

function parseChunk(text: string): OpenAICompletion {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as OpenAICompletion;
  } catch {
    /* below */
  }
  throw new UpstreamError('openai returned malformed JSON', 'openai');
}

/** Text, tool calls (streamed in pieces by index), finish reason and usage as they arrive. */
class Accumulator {
  text = '';
  finish: string | null = null;
  usage: OpenAIUsage | null = null;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();

  toolDelta(tc: OpenAIToolCall): void {
    const index = tc.index ?? this.calls.size;
    const call = this.calls.get(index) ?? { id: '', name: '', args: '' };
    if (tc.id) call.id = tc.id;
    if (tc.function?.name) call.name += tc.function.name;
    if (tc.function?.arguments) call.args += tc.function.arguments;
    this.calls.set(index, call);
  }

  response(req: ChatRequest): ChatResponse {
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: parseArguments(c.args) }));
    const stopReason: ChatResponse['stopReason'] =
      toolCalls.length || this.finish === 'tool_calls' || this.finish === 'function_call'
        ? 'tool_use'
        : this.finish === 'stop'
          ? 'end'
          : this.finish === 'length'
            ? 'max_tokens'
            : 'other';
    return {
      text: this.text,
      ...(req.output ? { json: parseJsonText(this.text) } : {}),
      toolCalls,
      stopReason,
      usage:
        typeof this.usage?.prompt_tokens === 'number' || typeof this.usage?.completion_tokens === 'number'
          ? { inputTokens: this.usage.prompt_tokens ?? 0, outputTokens: this.usage.completion_tokens ?? 0 }
          : estimatedUsage(req, this.text),
    };
  }
}
