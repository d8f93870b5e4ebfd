import { Inject, Injectable } from '@nestjs/common';
import { EmbeddingProvider, LexicalEmbedder, OpenAIEmbeddingProvider } from '@strata/ai';
import { STRATA_CONFIG, StrataConfig } from '../config/strata-config';
import { CLOCK, Clock } from '@strata/domain/time';

/** An embedding provider; the built-in one also embeds synchronously (no I/O). */
export interface Embedder extends EmbeddingProvider {
  embedSync?(texts: string[]): number[][];
}

const BUILTIN_MODEL = new LexicalEmbedder({ dimensions: 1 }).model;
const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';

/** Creates embedders for a configuration: the built-in lexical one, or OpenAI-compatible HTTP from STRATA_EMBEDDING_*. */
@Injectable()
export class EmbedderFactory {
  constructor(
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The model a configuration really runs (the built-in embedder has exactly one). */
  modelName(provider: 'builtin' | 'openai', requested: string | null): string {
    if (provider === 'builtin') return BUILTIN_MODEL;
    return requested ?? this.config.embeddingModel ?? DEFAULT_OPENAI_MODEL;
  }

  create(provider: 'builtin' | 'openai', model: string, dimensions: number): Embedder {
    if (provider === 'builtin') {
      const lexical = new LexicalEmbedder({ dimensions });
      return Object.assign(lexical, { embedSync: (texts: string[]) => texts.map((t) => lexical.embedVector(t)) });
    }
    if (!this.config.embeddingUrl) throw new Error('internal: openai embedder without STRATA_EMBEDDING_URL');
    return new OpenAIEmbeddingProvider({
      baseUrl: this.config.embeddingUrl,
      apiKey: this.config.embeddingKey ?? undefined,
      model,
      dimensions,
      clock: this.clock,
    });
  }
}
