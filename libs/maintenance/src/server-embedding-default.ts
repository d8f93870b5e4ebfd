import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { EmbeddingConfig } from '@strata/graph-store/graph-read-model.port';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';

/** The embedding space vectors belong to: provider, model, dimensions, metric. */
export type EmbeddingSpace = Pick<EmbeddingConfig, 'provider' | 'model' | 'dimensions' | 'distance_metric'>;

/**
 * The server's default embedding configuration (STRATA_EMBEDDING_*), in force for every
 * organization that never configured its own (REFERENCE §8.7). Export names it for such an
 * organization's vectors, and import need not adopt a snapshot's configuration that equals it.
 * EmbeddingSettings lives in the retrieval module, which imports this one: looked up, not
 * injected; without it (a context with no retrieval module) there is no default.
 */
@Injectable()
export class ServerEmbeddingDefault {
  private settings: EmbeddingSettings | null | undefined;

  constructor(private readonly modules: ModuleRef) {}

  /** null when the operator turned embeddings off (`none`). */
  get(): EmbeddingSpace | null {
    if (this.settings === undefined) {
      try {
        this.settings = this.modules.get(EmbeddingSettings, { strict: false });
      } catch {
        this.settings = null;
      }
    }
    const d = this.settings?.defaultConfig() ?? null;
    return d && { provider: d.provider, model: d.model, dimensions: d.dimensions, distance_metric: d.distance_metric };
  }
}

/** Whether two configurations describe the same embedding space (vectors of one fit the other). */
export function sameEmbeddingSpace(a: EmbeddingSpace, b: EmbeddingSpace): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimensions === b.dimensions && a.distance_metric === b.distance_metric;
}
