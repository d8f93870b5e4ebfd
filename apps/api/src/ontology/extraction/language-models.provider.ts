import { Provider } from '@nestjs/common';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai/llm/chat-model.port';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/**
 * The configured language model for this area until the platform provides LANGUAGE_MODELS
 * itself: the provider and model names only, no chat adapter. Delete once it is global.
 */
export const ontologyLanguageModels: Provider = {
  provide: LANGUAGE_MODELS,
  inject: [STRATA_CONFIG],
  useFactory: (cfg: StrataConfig): LanguageModels => ({ provider: cfg.llm.provider, model: cfg.llm.model, chat: null }),
};
