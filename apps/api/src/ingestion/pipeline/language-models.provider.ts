import { Provider } from '@nestjs/common';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai/llm/chat-model.port';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/**
 * The configured language model as ingestion sees it, until the platform provides
 * LANGUAGE_MODELS with its chat adapters: the `offline` provider needs no adapter, and the
 * `openai` / `anthropic` ones have no chat model here yet (their routes answer 501). Replace
 * by importing the platform's provider and deleting this one.
 */
export const INGESTION_LANGUAGE_MODELS: Provider = {
  provide: LANGUAGE_MODELS,
  inject: [STRATA_CONFIG],
  useFactory: (cfg: StrataConfig): LanguageModels => ({ provider: cfg.llm.provider, model: cfg.llm.model, chat: null }),
};
