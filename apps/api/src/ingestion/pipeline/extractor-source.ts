import { Inject, Injectable } from '@nestjs/common';
import { LlmNotConfiguredError } from '@strata/ai/errors';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai/llm/chat-model.port';
import { Extractor, ModelExtractor, OfflineExtractor } from '@strata/extraction';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/** The extractor of the configured provider (REFERENCE §9.6), or 501 `llm_not_configured`. */
@Injectable()
export class ExtractorSource {
  private readonly offline = new OfflineExtractor();
  private model: ModelExtractor | null = null;

  constructor(
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
    @Inject(STRATA_CONFIG) private readonly cfg: StrataConfig,
  ) {}

  /** Throws 501 when no provider can extract: checked before anything is written. */
  extractor(): Extractor {
    if (this.models.provider === 'offline') return this.offline;
    if (this.models.chat) return (this.model ??= new ModelExtractor(this.models.chat));
    throw new LlmNotConfiguredError('ingestion');
  }

  /** the provider's name in errors (never its key or URL) */
  get provider(): string {
    return this.models.provider ?? 'none';
  }

  /** chunks of one job extracted at once: the provider's calls in flight */
  get concurrency(): number {
    return this.cfg.llm.concurrency;
  }
}
