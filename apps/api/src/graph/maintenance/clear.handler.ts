import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EmbeddingConfiguredData, GraphClearedData, Streams } from '@strata/domain/events';
import { JobRegistry } from '@strata/jobs/job-registry';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { MAINTENANCE_STORE, MaintenanceStore } from '@strata/maintenance/maintenance-store';
import { GraphStatsService } from './graph-stats.service';
import { deleteStreamsInSlices } from '@strata/maintenance/purge-objects';

export class ClearCommand {
  constructor(readonly ctx: CommandContext) {}
}

export interface ClearResult {
  cleared: true;
  nodes_removed: number;
  edges_removed: number;
  versions_removed: number;
  aliases_removed: number;
  embeddings_removed: number;
  series_points_removed: number;
  jobs_cancelled: number;
}

/**
 * `POST /clear` (REFERENCE §8.9): cancels the organization's running jobs and forgets all of
 * its jobs, deletes the organization's whole graph from the log (and so
 * from every projection, now and on any rebuild), keeps its embedding configuration by
 * recording it again after the clear, leaves one GraphCleared event with the principal,
 * then lets the storage tidy up (the embedded default compacts both SQLite files). In servers
 * mode the streams are deleted in KurrentDB and the worker empties the organization in
 * MongoDB, Meilisearch and Qdrant when it projects GraphCleared.
 */
@CommandHandler(ClearCommand)
export class ClearHandler implements ICommandHandler<ClearCommand, ClearResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
    private readonly jobs: JobRegistry,
    private readonly graphStats: GraphStatsService,
  ) {}

  async execute({ ctx }: ClearCommand): Promise<ClearResult> {
    // jobs first, so none of them writes into the graph being cleared (they stop between steps)
    const jobsCancelled = await this.jobs.cancelDurableOf(ctx.org);
    this.jobs.forgetStored(ctx.org);
    const result = await this.uow.run(ctx, async (tx) => {
      const [stats, config] = await Promise.all([tx.reader.stats(tx.org), tx.reader.embeddingConfig(tx.org)]);
      const vectors = await this.graphStats.embeddingCount(tx.org, stats.embedding_count);
      deleteStreamsInSlices(tx, await this.store.graphStreams(tx.org));
      const cleared: GraphClearedData = { at: tx.now };
      tx.emit(Streams.graph(tx.org), 'GraphCleared', cleared);
      if (config) {
        const kept: EmbeddingConfiguredData = { ...config, dropped: false };
        tx.emit(Streams.graph(tx.org), 'EmbeddingConfigured', kept);
      }
      const out: ClearResult = {
        cleared: true,
        nodes_removed: stats.total_nodes,
        edges_removed: stats.total_edges,
        versions_removed: stats.total_versions,
        aliases_removed: stats.total_aliases,
        embeddings_removed: vectors,
        series_points_removed: stats.series_point_count,
        jobs_cancelled: jobsCancelled,
      };
      return out;
    });
    await this.store.afterClear();
    return result;
  }
}
