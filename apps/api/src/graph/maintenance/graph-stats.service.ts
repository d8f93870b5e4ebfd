import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel, GraphStats } from '@strata/graph-store/graph-read-model.port';

export interface GraphStatsResponse extends GraphStats {
  embedding_dimension: number | null;
  embedding_model: string | null;
  generated_at: number;
}

/** `GET /stats` (REFERENCE §8.1): counts over the read model, type keys canonical PascalCase. */
@Injectable()
export class GraphStatsService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async stats(org: string): Promise<GraphStatsResponse> {
    const [stats, config] = await Promise.all([this.graph.stats(org), this.graph.embeddingConfig(org)]);
    return {
      ...stats,
      embedding_dimension: config?.dimensions ?? null,
      embedding_model: config?.model ?? null,
      generated_at: this.clock.now(),
    };
  }
}
