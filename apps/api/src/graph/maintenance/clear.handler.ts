import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EmbeddingConfiguredData, GraphClearedData, Streams } from '@strata/domain/events';
import { streamsWithPrefixSync } from '@strata/event-store/sqlite/sqlite-stream-listing';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../../platform/storage/storage.tokens';
import { CommandContext } from '../../platform/unit-of-work/command-context';
import type { EmbeddedUnitOfWork } from '../../platform/unit-of-work/embedded-unit-of-work';
import { UNIT_OF_WORK, UnitOfWork } from '../../platform/unit-of-work/unit-of-work.port';
import { embeddedStorage } from './embedded-only';
import { deleteStreamsInSlices } from './purge-objects';
import { compactEmbeddedStorage } from './storage-compaction';

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

/** Every stream that holds the organization's graph: its nodes, edges, vectors, series and org-wide facts. */
export function graphStreamsOf(storage: EmbeddedStorage, org: string): string[] {
  const db = storage.events.db;
  // a per-object stream name with an empty uid is the prefix of all of them
  const prefixes = [Streams.node(org, ''), Streams.edge(org, ''), Streams.embedding(org, ''), Streams.series(org, '')];
  return [...prefixes.flatMap((p) => streamsWithPrefixSync(db, p)), Streams.graph(org)];
}

/**
 * `POST /clear` (REFERENCE §8.9): deletes the organization's whole graph from the log (and so
 * from every projection, now and on any rebuild), keeps its embedding configuration by
 * recording it again after the clear, leaves one GraphCleared event with the principal,
 * then compacts both SQLite files.
 */
@CommandHandler(ClearCommand)
export class ClearHandler implements ICommandHandler<ClearCommand, ClearResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage | null,
  ) {}

  async execute({ ctx }: ClearCommand): Promise<ClearResult> {
    const storage = embeddedStorage(this.storage, 'POST /clear');
    const result = await this.uow.run(ctx, async (tx) => {
      const [stats, config] = await Promise.all([tx.reader.stats(tx.org), tx.reader.embeddingConfig(tx.org)]);
      deleteStreamsInSlices(tx, graphStreamsOf(storage, tx.org));
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
        embeddings_removed: stats.embedding_count,
        series_points_removed: stats.series_point_count,
        jobs_cancelled: 0, // no jobs exist yet
      };
      return out;
    });
    // between write batches, so no transaction is open on either file while it runs
    const exclusive = (this.uow as Partial<EmbeddedUnitOfWork>).exclusive;
    if (exclusive) await exclusive.call(this.uow, async () => compactEmbeddedStorage(storage));
    else compactEmbeddedStorage(storage);
    return result;
  }
}
