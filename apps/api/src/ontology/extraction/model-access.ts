import { DomainError } from '@strata/domain/errors';
import { LanguageModels } from '@strata/ai/llm/chat-model.port';

/**
 * The ontology's model-backed routes need a provider (501 `llm_not_configured` when unset).
 * Under `offline` they take their deterministic path; a vendor provider needs its chat adapter.
 */
export function assertModelAvailable(models: LanguageModels): 'offline' | 'chat' {
  if (models.provider === null) throw new DomainError(501, 'llm_not_configured', 'no language-model provider is configured (STRATA_LLM_PROVIDER)');
  if (models.provider === 'offline') return 'offline';
  if (!models.chat) throw new DomainError(501, 'not_implemented', `the ${models.provider} chat adapter is not available in this deployment`);
  return 'chat';
}
