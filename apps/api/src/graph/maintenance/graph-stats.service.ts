import { Inject, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CLOCK, Clock } from '@strata/domain/time';
import { EdgeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel, GraphStats } from '@strata/graph-store/graph-read-model.port';
import { VECTORS, VectorCounts, Vectors } from '@strata/platform/embeddings/vectors.port';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';

export interface GraphStatsResponse extends GraphStats {
  embedding_dimension: number | null;
  embedding_model: string | null;
  /** vectors waiting to enter the ANN graph (searched exactly meanwhile) */
  embedding_index_backlog: number;
  generated_at: number;
}

/** Built-in vectors are computed by the vector projection, not recorded: the index's count, when larger, is the truth. */
function vectorsHeld(recorded: number, vectors: VectorCounts | null): number {
  return vectors ? Math.max(recorded, vectors.count) : recorded;
}

/** `GET /stats` (REFERENCE §8.1): counts over the read model, type keys canonical PascalCase. */
@Injectable()
export class GraphStatsService {
  private readonly log = new Logger('GraphStats');
  private vectors: Vectors | null | undefined;
  private settings: EmbeddingSettings | null | undefined;

  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly modules: ModuleRef,
  ) {}

  async stats(org: string): Promise<GraphStatsResponse> {
    const [stats, config, vectors] = await Promise.all([this.graph.stats(org), this.embeddingConfig(org), this.vectorCounts(org)]);
    return {
      ...stats,
      embedding_count: vectorsHeld(stats.embedding_count, vectors),
      embedding_index_backlog: vectors?.backlog ?? 0,
      embedding_dimension: config?.dimensions ?? null,
      embedding_model: config?.model ?? null,
      generated_at: this.clock.now(),
    };
  }

  /**
   * `GET /stats` for a caller the Space rule hides nodes from (REFERENCE §13.1): the same counts
   * without the hidden nodes, the edges touching them, and their versions, aliases, vectors
   * and series points — what the caller could count by reading everything it may read.
   */
  async statsWithout(org: string, hidden: ReadonlySet<string>): Promise<GraphStatsResponse> {
    const out = await this.stats(org);
    if (!hidden.size) return out;
    const uids = [...hidden];
    const nodes = await this.graph.getNodes(org, uids);
    const edges = new Map<string, EdgeRecord>();
    for (const uid of nodes.keys()) for (const e of await this.graph.listEdges(org, { touching: uid, include_tombstoned: true })) edges.set(e.uid, e);
    const less = (m: Record<string, number>, key: string) => {
      if (!m[key]) return;
      if (--m[key] === 0) delete m[key];
    };
    let points = 0;
    let aliases = 0;
    for (const n of nodes.values()) {
      out.total_nodes--;
      if (n.tombstone_at === null) {
        out.live_nodes--;
        less(out.nodes_by_type, n.node_type);
        less(out.nodes_by_layer, n.layer);
      } else out.tombstoned_nodes--;
      aliases += (await this.graph.aliasesOf(org, n.uid)).length;
      if (n.node_type === 'Series') points += await this.graph.seriesPointCount(org, n.uid);
    }
    for (const e of edges.values()) {
      out.total_edges--;
      if (e.tombstone_at === null) {
        out.live_edges--;
        less(out.edges_by_type, e.edge_type);
      } else out.tombstoned_edges--;
    }
    out.total_versions -= await this.graph.versionCount(org, [...nodes.keys()], [...edges.keys()]);
    out.total_aliases -= aliases;
    out.series_point_count -= points;
    out.embedding_count -= await this.vectorsOf(org, [...nodes.keys()]);
    return out;
  }

  /** How many of these nodes hold a vector: the index's answer when there is one, else the recorded ones. */
  private async vectorsOf(org: string, uids: string[]): Promise<number> {
    if (this.vectors === undefined) await this.vectorCounts(org);
    if (this.vectors) {
      try {
        return (await this.vectors.indexed(org, uids)).size;
      } catch {
        /* the recorded embeddings answer */
      }
    }
    let n = 0;
    for (const uid of uids) if (await this.graph.getEmbedding(org, uid)) n++;
    return n;
  }

  /** The vectors an organization holds (what /stats reports), given the recorded count the caller already has. */
  async embeddingCount(org: string, recorded: number): Promise<number> {
    return vectorsHeld(recorded, await this.vectorCounts(org));
  }

  /** The configuration in force: the organization's own, else the server default (builtin unless disabled). */
  private async embeddingConfig(org: string): Promise<Pick<EffectiveEmbeddingConfig, 'model' | 'dimensions'> | null> {
    if (this.settings === undefined) {
      try {
        this.settings = this.modules.get(EmbeddingSettings, { strict: false });
      } catch {
        this.settings = null;
      }
    }
    return this.settings ? this.settings.effective(org) : this.graph.embeddingConfig(org);
  }

  /** The vector index lives in the retrieval module (which imports this one): looked up, not injected. */
  private async vectorCounts(org: string): Promise<VectorCounts | null> {
    if (this.vectors === undefined) {
      try {
        this.vectors = this.modules.get<Vectors>(VECTORS, { strict: false });
      } catch {
        this.vectors = null;
      }
    }
    if (!this.vectors) return null;
    try {
      return await this.vectors.counts(org);
    } catch (err) {
      // the counts of the read model still answer
      this.log.warn(`vector counts unavailable: ${(err as Error).message}`);
      return null;
    }
  }
}
