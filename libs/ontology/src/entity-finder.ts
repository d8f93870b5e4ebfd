import { Injectable } from '@nestjs/common';
import { MeteredLanguageModels } from '@strata/ai';
import { structuredCall } from '@strata/ai/llm/structured-call';
import { EntityCategory, NamedEntity, namedEntities } from '@strata/ai/offline/named-entities';
import { DomainError } from '@strata/domain/errors';

const CATEGORIES: readonly EntityCategory[] = ['person', 'organization', 'place'];

/** What the model is asked to return: the named entities of the text, each once. */
export const ENTITIES_OUTPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entities'],
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'category'],
        properties: { text: { type: 'string', minLength: 1, maxLength: 300 }, category: { type: 'string', enum: [...CATEGORIES] } },
      },
    },
  },
} as const;

const SYSTEM =
  'You find the named entities of a text: people, organizations and places. Give each once, with its name exactly as the text writes it (so it can be found in the text) and its category.';

/** How one job finds entities: the method and confidence its links and proposals record. */
export interface EntityFinding {
  method: 'offline' | 'llm';
  confidence: number;
  find(text: string, signal?: AbortSignal): Promise<NamedEntity[]>;
}

/** what the offline extractor is sure of (REFERENCE §9.6: every offline node at 0.6) */
const OFFLINE_CONFIDENCE = 0.6;
/** what a model's reading is taken at when it names an entity the text holds */
const MODEL_CONFIDENCE = 0.8;

/**
 * The named entities the ontology's model-backed routes work from (REFERENCE §11, §9.6): the
 * offline NLP library under `offline`, else one structured call to the configured model,
 * metered to the organization. Names the text does not hold are dropped (a model may
 * paraphrase); the rest of the planning is the same deterministic code for every provider.
 */
@Injectable()
export class EntityFinder {
  constructor(private readonly models: MeteredLanguageModels) {}

  /** 501 `llm_not_configured` without a provider: checked before anything is written. */
  assertAvailable(): void {
    if (this.models.provider === null) throw new DomainError(501, 'llm_not_configured', 'no language-model provider is configured (STRATA_LLM_PROVIDER)');
  }

  forJob(org: string, jobId: string): EntityFinding {
    return this.forRequest(org, `job:${jobId}`);
  }

  /** The finding for work attributed to `requestId` (its model calls are metered to `org`). */
  forRequest(org: string, requestId: string): EntityFinding {
    this.assertAvailable();
    const chat = this.models.forOrganization(org, { requestId });
    if (!chat) return { method: 'offline', confidence: OFFLINE_CONFIDENCE, find: async (text) => namedEntities(text) };
    return {
      method: 'llm',
      confidence: MODEL_CONFIDENCE,
      find: async (text, signal) => {
        const { value } = await structuredCall<{ entities: { text: string; category: EntityCategory }[] }>(chat, {
          system: SYSTEM,
          messages: [{ role: 'user', content: `Text:\n"""\n${text}\n"""` }],
          output: { name: 'named_entities', schema: ENTITIES_OUTPUT_SCHEMA as unknown as Record<string, unknown> },
          temperature: 0,
          signal,
        });
        return readEntities(text, value.entities);
      },
    };
  }
}

/** The model's entities that the text holds, each once, in order of first mention. */
export function readEntities(text: string, raw: readonly { text: string; category: EntityCategory }[]): NamedEntity[] {
  const out = new Map<string, NamedEntity>();
  for (const e of raw) {
    const name = e.text.trim();
    const start = text.indexOf(name);
    if (!name || start < 0 || !CATEGORIES.includes(e.category)) continue;
    const key = `${e.category}:${name.toLowerCase()}`;
    if (!out.has(key)) out.set(key, { text: name, category: e.category, start });
  }
  return [...out.values()].sort((a, b) => a.start - b.start || a.text.localeCompare(b.text));
}
