import { DomainError } from '@strata/domain/errors';
import { LanguageModels } from '@strata/ai/llm/chat-model.port';

/**
 * The ontology's model-backed routes need a provider (501 `llm_not_configured` when unset).
 * They have their deterministic `offline` path only so far: with a vendor provider they answer
 * 501 `not_implemented` rather than quietly running the offline path in its place.
 */
export function assertModelAvailable(models: LanguageModels): 'offline' {
  if (models.provider === null) throw new DomainError(501, 'llm_not_configured', 'no language-model provider is configured (STRATA_LLM_PROVIDER)');
  if (models.provider === 'offline') return 'offline';
  throw new DomainError(501, 'not_implemented', `the ontology's model-backed routes do not use the ${models.provider} provider yet; STRATA_LLM_PROVIDER=offline runs them deterministically`);
}
