import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/**
 * The language models synthesis uses: the platform's LANGUAGE_MODELS once a module provides
 * it (looked up when first needed, so whichever module provides it is found), else a
 * stand-in built from the configuration alone, with no chat model — enough for `offline`
 * and for the 501 when unset; under `openai`/`anthropic` without an adapter the run answers
 * 501 rather than pass structural text off as the model's. Delete the stand-in (and inject
 * LANGUAGE_MODELS directly) once the platform always provides the token.
 */
@Injectable()
export class SynthesisModels {
  private resolved: LanguageModels | null = null;

  constructor(
    private readonly modules: ModuleRef,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
  ) {}

  current(): LanguageModels {
    if (!this.resolved) {
      try {
        this.resolved = this.modules.get<LanguageModels>(LANGUAGE_MODELS, { strict: false });
      } catch {
        this.resolved = { provider: this.config.llm.provider, model: this.config.llm.model, chat: null };
      }
    }
    return this.resolved;
  }
}
