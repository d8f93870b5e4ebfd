import { UpstreamError } from '../errors';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, JsonSchema, ToolCall, ToolSpec } from './chat-model.port';
import { ChatModelOptions, estimatedUsage, modelFor, parseArguments } from './chat-model-options';
import { readSse } from './transport/sse';
import type { LlmResponse } from './transport/http-post';
import { LlmTransport, ReadProgress, deliver } from './transport/llm-transport';
import { JsonText, withCachedList } from './transport/json-body';

/** each tool spec's JSON as this protocol sends it, made once per spec */
const ANTHROPIC_TOOLS = new WeakMap<ToolSpec, string>();

export const ANTHROPIC_VERSION = '2023-06-01';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
}
interface AnthropicMessage {
  content?: { type?: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

/** input_schema must describe an object: any other output schema is wrapped as `{value}` */
const WRAPPED = 'value';

/**
 * The Anthropic Messages API: `POST <url>/v1/messages` with `x-api-key` and
 * `anthropic-version`, asking for a stream and accepting a plain JSON answer. Structured
 * output is a forced call of one tool whose input schema is the output schema; its input is
 * the JSON. Hand-written over node:http like OpenAIChatModel (same transport, same reasons).
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic' as const;
  readonly model: string;
  private readonly transport: LlmTransport;
  private readonly endpoint: string;

  constructor(private readonly options: ChatModelOptions) {
    if (!options.url) throw new Error('AnthropicChatModel needs a url');
    if (!options.apiKey) throw new Error('AnthropicChatModel needs an API key');
    if (!options.model) throw new Error('AnthropicChatModel needs a model');
    this.model = options.model;
    this.endpoint = `${options.url.replace(/\/+$/, '')}/v1/messages`;
    this.transport = new LlmTransport({ ...options, provider: 'anthropic', timeoutMs: options.timeoutMs ?? 60_000 });
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    const body = this.body(req);
    return this.transport.post(
      {
        url: this.endpoint,
        headers: { 'x-api-key': this.options.apiKey, 'anthropic-version': ANTHROPIC_VERSION, accept: 'application/json, text/event-stream' },
        body,
        signal: req.signal,
      },
      (res, progress) => this.read(res, req, progress),
    );
  }

  private body(req: ChatRequest): JsonText {
    const output = req.output ? { name: req.output.name, schema: objectSchema(req.output.schema) } : null;
    const body = {
      model: modelFor(this.options, req.model),
      ...(req.system ? { system: req.system } : {}),
      messages: toAnthropic(req.messages),
      ...(output ? { tools: [{ name: output.name, description: `Answer with the ${output.name} as this tool's input.`, input_schema: output.schema }] } : {}),
      ...(output ? { tool_choice: { type: 'tool', name: output.name } } : {}),
      max_tokens: req.maxOutputTokens ?? this.options.maxTokens ?? 4096,
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      stream: true,
    };
    return withCachedList(body, 'tools', output ? [] : (req.tools ?? []), ANTHROPIC_TOOLS, (t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  }

  private async read(res: LlmResponse, req: ChatRequest, progress: ReadProgress): Promise<ChatResponse> {
    let message: AnthropicMessage;
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      message = await readStream(res, req, progress);
    } else {
      message = parseObject(await res.text()) as AnthropicMessage;
      if (!Array.isArray(message.content)) throw new UpstreamError('anthropic answered without content', 'anthropic', res.status);
      const text = message.content.filter((b) => b?.type === 'text').map((b) => b.text ?? '').join('');
      deliver(progress, req.onTextDelta, text);
    }
    return this.response(message, req);
  }

  private response(message: AnthropicMessage, req: ChatRequest): ChatResponse {
    const blocks = message.content ?? [];
    const text = blocks.filter((b) => b?.type === 'text').map((b) => b.text ?? '').join('');
    const uses = blocks.filter((b) => b?.type === 'tool_use');
    const usage = message.usage;
    const stop = message.stop_reason;
    if (req.output) {
      // the forced call is the answer, not a tool call the caller has to run
      const call = uses.find((b) => b.name === req.output!.name);
      const wrapped = objectSchema(req.output.schema) !== req.output.schema;
      const json = call ? (wrapped ? (call.input as Record<string, unknown> | undefined)?.[WRAPPED] : call.input) : undefined;
      const jsonText = json === undefined ? text : JSON.stringify(json);
      return {
        text: jsonText,
        json,
        toolCalls: [],
        stopReason: stop === 'max_tokens' ? 'max_tokens' : call ? 'end' : stopOf(stop),
        usage: usageOf(usage, req, jsonText),
      };
    }
    const toolCalls: ToolCall[] = uses.map((b, i) => ({ id: b.id ?? `toolu_${i}`, name: b.name ?? '', arguments: b.input ?? {} }));
    return { text, toolCalls, stopReason: toolCalls.length ? 'tool_use' : stopOf(stop), usage: usageOf(usage, req, text) };
  }
}

function stopOf(stop: string | null | undefined): ChatResponse['stopReason'] {
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'end';
  if (stop === 'tool_use') return 'tool_use';
  if (stop === 'max_tokens') return 'max_tokens';
  return 'other';
}

function usageOf(u: AnthropicUsage | undefined, req: ChatRequest, text: string) {
  if (typeof u?.input_tokens === 'number' || typeof u?.output_tokens === 'number') return { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 };
  return estimatedUsage(req, text);
}

function objectSchema(schema: JsonSchema): JsonSchema {
  return schema.type === 'object' ? schema : { type: 'object', properties: { [WRAPPED]: schema }, required: [WRAPPED] };
}

/** Port messages as Messages API turns: tool results go back as user `tool_result` blocks, and consecutive turns of one role are merged. */
function toAnthropic(messages: ChatMessage[]): { role: 'user' | 'assistant'; content: string | Block[] }[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content }]);
    else if (m.role === 'assistant') {
      push('assistant', [
        ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
        ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: typeof c.arguments === 'object' && c.arguments !== null ? c.arguments : {} })),
      ]);
    } else push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) }]);
  }
  // a turn that is one text block is sent as a plain string, as most clients do
  return out.map((t) => (t.content.length === 1 && t.content[0].type === 'text' ? { role: t.role, content: t.content[0].text } : t));
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw new UpstreamError('anthropic returned malformed JSON', 'anthropic');
}

/** Builds the final message from `message_start`, `content_block_*` and `message_delta` events. */
async function readStream(res: LlmResponse, req: ChatRequest, progress: ReadProgress): Promise<AnthropicMessage> {
  const blocks: { type?: string; text?: string; id?: string; name?: string; input?: unknown; json?: string }[] = [];
  const message: AnthropicMessage = { content: [], stop_reason: null, usage: undefined };
  const body = res.body;
  for await (const sse of readSse(body)) {
    const e = parseObject(sse.data) as {
      type?: string;
      index?: number;
      message?: AnthropicMessage;
      content_block?: { type?: string; text?: string; id?: string; name?: string; input?: unknown };
      delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
      usage?: AnthropicUsage;
    };
    switch (e.type) {
      case 'message_start':
        message.usage = { ...e.message?.usage };
        break;
      case 'content_block_start':
        blocks[e.index ?? blocks.length] = { ...e.content_block, json: '' };
        break;
      case 'content_block_delta': {
        const b = blocks[e.index ?? blocks.length - 1];
        if (!b) break;
        if (e.delta?.type === 'text_delta' && e.delta.text) {
          b.text = (b.text ?? '') + e.delta.text;
          deliver(progress, req.onTextDelta, e.delta.text);
        } else if (e.delta?.type === 'input_json_delta') b.json += e.delta.partial_json ?? '';
        break;
      }
      case 'message_delta':
        if (e.delta?.stop_reason !== undefined) message.stop_reason = e.delta.stop_reason;
        // cumulative counts: the last one is the total
        if (e.usage) message.usage = { ...message.usage, ...e.usage };
        break;
      case 'error':
        throw new UpstreamError('anthropic reported an error in its stream', 'anthropic', res.status);
      default:
        break; // ping, content_block_stop, message_stop
    }
  }
  message.content = blocks
    .filter((b) => b !== undefined)
    .map((b) => (b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, input: b.json ? parseArguments(b.json) : (b.input ?? {}) } : b));
  return message;
}
