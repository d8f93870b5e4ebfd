import type { Principal } from '@strata/domain/events';
import type { ChatModel, ChatRequest, ChatResponse, LanguageModels, ModelPurpose } from './chat-model.port';

/** One metered call: which model, how many tokens; never what was asked or answered. */
export interface LlmUsageEntry {
  provider: 'openai' | 'anthropic';
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/** Who the call was made for, for the usage record's metadata (default: the system). */
export interface LlmUsageAttribution {
  /** the request (or job) that made the call */
  requestId?: string;
  principal?: Principal;
  agentId?: string | null;
  /** what the calls are for, when the request does not say (metrics) */
  purpose?: ModelPurpose;
}

/** Where metered calls are recorded durably (the accounts' usage: `GET /v1/usage`). */
export interface LlmUsageRecorder {
  record(org: string, entry: LlmUsageEntry, attribution?: LlmUsageAttribution): Promise<void>;
}

/**
 * The language model as code working for an organization gets it: `forOrganization(org)` is
 * a chat model that records every successful call's tokens to the organization's usage
 * before it returns (REFERENCE §9.6), so a caller cannot forget to meter. A call that fails
 * (UpstreamError) used no tokens the provider reported, and records nothing.
 */
export class MeteredLanguageModels {
  constructor(
    private readonly configured: LanguageModels,
    private readonly recorder: LlmUsageRecorder,
  ) {}

  get provider(): LanguageModels['provider'] {
    return this.configured.provider;
  }
  get model(): string | null {
    return this.configured.model;
  }
  /** the models a request may name */
  get models(): readonly string[] {
    return this.configured.models ?? [];
  }

  /**
   * The chat model metered to `org`; null for `offline` and when no provider is configured.
   * `recordedByCaller`: its calls are not recorded here; the caller records each successful
   * call's usage (`usageEntryOf`) in the unit of work that records what the call decided, one
   * commit instead of two (the agent runtime's steps).
   */
  forOrganization(org: string, attribution?: LlmUsageAttribution, opts: { recordedByCaller?: boolean } = {}): ChatModel | null {
    const chat = this.configured.chat;
    return chat ? new MeteredChatModel(chat, opts.recordedByCaller ? null : this.recorder, org, attribution) : null;
  }
}

export class MeteredChatModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    /** null: the caller records the usage (MeteredLanguageModels.forOrganization) */
    private readonly recorder: LlmUsageRecorder | null,
    readonly org: string,
    private readonly attribution?: LlmUsageAttribution,
  ) {}

  get provider(): ChatModel['provider'] {
    return this.inner.provider;
  }
  get model(): string {
    return this.inner.model;
  }

  async chat(req: ChatRequest): Promise<ChatResponse> {
    const purpose = req.purpose ?? this.attribution?.purpose;
    const res = await this.inner.chat(purpose ? { ...req, purpose } : req);
    await this.recorder?.record(this.org, usageEntryOf(this.inner, req, res), this.attribution);
    return res;
  }
}

/** What a successful call records: the provider, the model asked for, the tokens reported. */
export function usageEntryOf(chat: Pick<ChatModel, 'provider' | 'model'>, req: Pick<ChatRequest, 'model'>, res: Pick<ChatResponse, 'usage'>): LlmUsageEntry {
  return { provider: chat.provider, model: req.model ?? chat.model, inputTokens: res.usage.inputTokens, outputTokens: res.usage.outputTokens };
}
