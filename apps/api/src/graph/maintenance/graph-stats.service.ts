import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel, GraphStats } from '@strata/graph-store/graph-read-model.port';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../../platform/storage/storage.tokens';

export interface GraphStatsResponse extends GraphStats {
  embedding_dimension: number | null;
  embedding_model: string | null;
  /** vectors waiting to enter the ANN graph (searched exactly meanwhile) */
  embedding_index_backlog: number;
  generated_at: number;
}

/** `GET /stats` (REFERENCE §8.1): counts over the read model, type keys canonical PascalCase. */
@Injectable()
export class GraphStatsService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage | null = null,
  ) {}

  async stats(org: string): Promise<GraphStatsResponse> {
    const [stats, config] = await Promise.all([this.graph.stats(org), this.graph.embeddingConfig(org)]);
    const vectors = this.storage?.vectorStats(org);
    return {
      ...stats,
      // built-in vectors are computed by the vector projection, not recorded: count the index
      embedding_count: vectors ? Math.max(stats.embedding_count, vectors.count) : stats.embedding_count,
      embedding_index_backlog: vectors?.backlog ?? 0,
      embedding_dimension: config?.dimensions ?? null,
      embedding_model: config?.model ?? null,
      generated_at: this.clock.now(),
    };
  }
}
