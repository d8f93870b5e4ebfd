import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { DistanceMetric } from '@strata/vector-index/vector-index.port';
import { STRATA_CONFIG, StrataConfig } from '../config/strata-config';
import { Embedder, EmbedderFactory } from './embedder-factory';

export type EmbeddingProviderName = 'builtin' | 'openai';

/** The embedding configuration in force for an organization. */
export interface EffectiveEmbeddingConfig {
  provider: EmbeddingProviderName;
  model: string;
  dimensions: number;
  distance_metric: DistanceMetric;
  /** null for the server default (never configured through the API) */
  configured_at: number | null;
}

/**
 * Which embedding configuration applies: the organization's own (`EmbeddingConfigured`), else
 * the server default from STRATA_EMBEDDING_* — the built-in lexical embedder unless the
 * operator chose `openai` or `none`. Also hands out the embedder for a configuration.
 */
@Injectable()
export class EmbeddingSettings {
  private readonly embedders = new Map<string, Embedder>();

  constructor(
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly factory: EmbedderFactory,
  ) {}

  /** The server default; null when the operator turned embeddings off (`none`). */
  defaultConfig(): EffectiveEmbeddingConfig | null {
    const c = this.config;
    if (c.embeddingProvider === 'none') return null;
    const dimensions = c.embeddingDimensions;
    const provider: EmbeddingProviderName = c.embeddingProvider;
    return { provider, model: this.factory.modelName(provider, c.embeddingModel), dimensions, distance_metric: 'cosine', configured_at: null };
  }

  async effective(org: string): Promise<EffectiveEmbeddingConfig | null> {
    const stored = await this.graph.embeddingConfig(org);
    return stored ? this.fromStored(stored) : this.defaultConfig();
  }

  /** Synchronous twin for the embedded projection (SQLite read model). */
  effectiveSync(stored: { provider: string; model: string; dimensions: number; distance_metric: DistanceMetric; configured_at: number } | null) {
    return stored ? this.fromStored(stored) : this.defaultConfig();
  }

  /** Whether this server can run a provider (openai needs STRATA_EMBEDDING_URL). */
  providerAvailable(provider: EmbeddingProviderName): boolean {
    return provider === 'builtin' || this.config.embeddingUrl !== null;
  }

  /** The embedder of a configuration, or null when this server cannot run its provider. */
  embedder(cfg: EffectiveEmbeddingConfig | null): Embedder | null {
    if (!cfg || !this.providerAvailable(cfg.provider)) return null;
    const key = `${cfg.provider}\u0000${cfg.model}\u0000${cfg.dimensions}`;
    let e = this.embedders.get(key);
    if (!e) {
      e = this.factory.create(cfg.provider, cfg.model, cfg.dimensions);
      this.embedders.set(key, e);
    }
    return e;
  }

  /** 501 for vector operations nothing can answer (REFERENCE §1.10). */
  notConfigured(cfg: EffectiveEmbeddingConfig | null, what: string): DomainError {
    return new DomainError(501, 'embedding_not_configured', `${what}: configure embeddings with POST /embeddings/configure`, {
      embedding_model: cfg?.model ?? null,
      distance_metric: cfg?.distance_metric ?? null,
    });
  }

  private fromStored(s: { provider: string; model: string; dimensions: number; distance_metric: DistanceMetric; configured_at: number }): EffectiveEmbeddingConfig {
    return {
      provider: s.provider === 'openai' ? 'openai' : 'builtin',
      model: s.model,
      dimensions: s.dimensions,
      distance_metric: s.distance_metric,
      configured_at: s.configured_at,
    };
  }
}
