import { Provider } from '@nestjs/common';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/**
 * Stand-in until the platform provides LANGUAGE_MODELS with its adapters: only what the
 * configuration says, no chat model. Under `openai`/`anthropic` the synthesis run then
 * answers 501 (no adapter), never a structural article passed off as the model's.
 * Delete this file once platform.module.ts provides the token.
 */
export const CONFIGURED_LANGUAGE_MODELS: Provider = {
  provide: LANGUAGE_MODELS,
  inject: [STRATA_CONFIG],
  useFactory: (cfg: StrataConfig): LanguageModels => ({ provider: cfg.llm.provider, model: cfg.llm.model, chat: null }),
};
