/**
 * The one server-wide language model (REFERENCE §9.6), as the rest of Strata sees it: a chat
 * call that may be asked for JSON matching a schema or offered tools. The `openai` and
 * `anthropic` adapters speak their vendors' protocols; everything above this port (extraction,
 * synthesis, briefs, ontology, managed agents) is written once against it.
 *
 * The `offline` provider is not a chat model: it has no adapter here. Callers that support it
 * (extraction, synthesis, briefs) take their structural path when `LanguageModels.chat` is null.
 */
export const LANGUAGE_MODELS = Symbol('LANGUAGE_MODELS');
/** optional: how the configured model waits between retries (a test records the back-offs instead of sleeping them) */
export const LLM_RETRY_WAIT = Symbol('LLM_RETRY_WAIT');

export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments */
  inputSchema: JsonSchema;
}

export interface ToolCall {
  id: string;
  name: string;
  /** the parsed arguments; a call whose arguments do not parse as JSON keeps the raw text */
  arguments: unknown;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string; isError?: boolean };

/** What a model call is for: a bounded label of the model metrics (never a prompt or an id). */
export type ModelPurpose = 'extraction' | 'synthesis' | 'ontology' | 'agent' | 'distill' | 'other';

export interface ChatRequest {
  system?: string;
  /** what the call is for (metrics); unset is `other` */
  purpose?: ModelPurpose;
  messages: ChatMessage[];
  /** ask for one JSON value matching `schema` (openai: response_format json_schema; anthropic: a forced tool call) */
  output?: { name: string; schema: JsonSchema };
  /** tools the model may call (managed agents); not combined with `output` */
  tools?: ToolSpec[];
  maxOutputTokens?: number;
  temperature?: number;
  /** another of the configured models (managed agents name one); default: the configured model */
  model?: string;
  /**
   * Stream the answer (`stream:true`) and hand each piece of text over as it arrives (managed
   * agents' `message.delta`). Without it the call may still stream; the result is the same.
   */
  onTextDelta?: (text: string) => void;
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  /** the assistant's text (for `output` requests, the raw JSON text) */
  text: string;
  /** `output` requests: the parsed JSON value, or undefined when the text did not parse */
  json?: unknown;
  toolCalls: ToolCall[];
  stopReason: 'end' | 'tool_use' | 'max_tokens' | 'other';
  usage: TokenUsage;
}

export interface ChatModel {
  readonly provider: 'openai' | 'anthropic';
  readonly model: string;
  /**
   * One call, with the adapter's retries (429, 5xx, connection errors: up to 3, exponential
   * from 1 s, honouring Retry-After) and timeout already applied. Failures throw
   * `UpstreamError` naming the provider, the status and a short reason, never the key, the
   * prompt or the provider's raw body.
   */
  chat(req: ChatRequest): Promise<ChatResponse>;
}

/** Called after every model call with the tokens it used, so usage is metered per organization. */
export type UsageSink = (usage: TokenUsage) => void;

/**
 * What the service was configured with (REFERENCE §9.6), as LANGUAGE_MODELS provides it
 * (PlatformModule, from STRATA_LLM_*). Its `chat` is not metered: work done for an
 * organization takes its chat model from `MeteredLanguageModels.forOrganization(org)`
 * (AccountsCoreModule), which adds every call's tokens to the organization's usage.
 */
export interface LanguageModels {
  /** null when STRATA_LLM_PROVIDER is unset: routes that need a model answer 501 `llm_not_configured` */
  readonly provider: 'openai' | 'anthropic' | 'offline' | null;
  readonly model: string | null;
  /** the chat model for `openai` / `anthropic`; null for `offline` and when unset */
  readonly chat: ChatModel | null;
  /** the models a request may name (STRATA_LLM_MODELS, the default model included); empty without a chat model */
  readonly models?: readonly string[];
}
