import type { ChatMessage, ChatModel, ChatRequest, JsonSchema, TokenUsage } from './chat-model.port';
import { validateJson } from './json-schema-validator';

/** Checks one parsed value; returns what is wrong with it (empty when it is good). */
export type OutputValidator = (value: unknown) => string[];

/**
 * The model's output did not parse or did not validate twice in a row (REFERENCE §9.6): the
 * caller's unit of work fails (ingestion lists it under the layer pass's `errors`); it is not
 * an upstream failure by itself. The message names the output and the first problems, never
 * the prompt or the model's text.
 */
export class StructuredOutputError extends Error {
  readonly code = 'structured_output_invalid';
  constructor(
    /** the `output.name` asked for */
    readonly output: string,
    /** the problems of the last attempt */
    readonly problems: string[],
    /** tokens both attempts used */
    readonly usage: TokenUsage,
  ) {
    super(`the model's ${output} was invalid twice: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`);
    this.name = 'StructuredOutputError';
  }
}

export interface StructuredResult<T> {
  value: T;
  /** tokens every attempt used */
  usage: TokenUsage;
  /** 1, or 2 when the first answer was sent back with its problems */
  attempts: number;
}

/** how much of the model's invalid answer is sent back to it */
const MAX_ECHO = 20_000;

/**
 * One JSON value from the model: asks with `request.output`, parses, validates (by default
 * against `request.output.schema` with validateJson), and on failure asks once more with the
 * answer and its problems appended to the conversation. A second failure throws
 * StructuredOutputError; provider failures stay UpstreamError.
 */
export async function structuredCall<T = unknown>(
  model: ChatModel,
  request: ChatRequest & { output: { name: string; schema: JsonSchema } },
  validate: OutputValidator = (v) => validateJson(request.output.schema, v),
): Promise<StructuredResult<T>> {
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let messages: ChatMessage[] = request.messages;
  let problems: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const res = await model.chat({ ...request, messages });
    usage.inputTokens += res.usage.inputTokens;
    usage.outputTokens += res.usage.outputTokens;
    const value = res.json !== undefined ? res.json : parse(res.text);
    problems =
      value === undefined
        ? [res.stopReason === 'max_tokens' ? 'the answer was cut off at the token limit before the JSON ended' : 'the answer is not valid JSON']
        : validate(value);
    if (problems.length === 0) return { value: value as T, usage, attempts: attempt };
    messages = [
      ...request.messages,
      { role: 'assistant', content: res.text.slice(0, MAX_ECHO) },
      {
        role: 'user',
        content: `That ${request.output.name} is invalid:\n${problems.slice(0, 20).map((p) => `- ${p}`).join('\n')}\nAnswer again with the whole ${request.output.name} as JSON matching the schema.`,
      },
    ];
  }
  throw new StructuredOutputError(request.output.name, problems, usage);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
