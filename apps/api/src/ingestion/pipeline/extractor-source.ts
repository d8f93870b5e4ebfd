import { Inject, Injectable } from '@nestjs/common';
import { LlmNotConfiguredError } from '@strata/ai/errors';
import { MeteredLanguageModels } from '@strata/ai';
import { Extractor, ModelExtractor, OfflineExtractor } from '@strata/extraction';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/** The extractor of the configured provider (REFERENCE §9.6), or 501 `llm_not_configured`. */
@Injectable()
export class ExtractorSource {
  private readonly offline = new OfflineExtractor();

  constructor(
    private readonly models: MeteredLanguageModels,
    @Inject(STRATA_CONFIG) private readonly cfg: StrataConfig,
  ) {}

  /**
   * The extractor for work done for `org` (its model calls are metered to it). Throws 501 when
   * no provider can extract: checked before anything is written.
   */
  extractor(org: string, requestId?: string): Extractor {
    if (this.models.provider === 'offline') return this.offline;
    const chat = this.models.forOrganization(org, { ...(requestId ? { requestId } : {}), purpose: 'extraction' });
    if (chat) return new ModelExtractor(chat);
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
