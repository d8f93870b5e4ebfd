import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { readPurgeCutoff } from '@strata/domain/maintenance';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { MAINTENANCE_STORE, MaintenanceStore } from '@strata/maintenance/maintenance-store';
import { PurgeCounts, purgeObjects } from '@strata/maintenance/purge-objects';

export class PurgeCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

export type PurgeResult = PurgeCounts & { cutoff: number | null };

/**
 * `POST /purge` (REFERENCE §7.3): nodes and edges tombstoned at or before the cut-off leave
 * the log and every projection for good, in one transaction; the GraphPurged event left
 * behind records who purged what and when. `cutoff` is null when none was given. In servers
 * mode the streams are deleted in KurrentDB and the worker removes the rows from MongoDB,
 * Meilisearch and Qdrant when it projects GraphPurged.
 */
@CommandHandler(PurgeCommand)
export class PurgeHandler implements ICommandHandler<PurgeCommand, PurgeResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(MAINTENANCE_STORE) private readonly store: MaintenanceStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ ctx, body }: PurgeCommand): Promise<PurgeResult> {
    const cutoff = readPurgeCutoff(body, this.clock.now());
    return this.uow.run(ctx, async (tx) => {
      const [nodes, edges] = await Promise.all([this.store.tombstonedUids('nodes', tx.org, cutoff), this.store.tombstonedUids('edges', tx.org, cutoff)]);
      return { ...(await purgeObjects(tx, nodes, edges, cutoff)), cutoff };
    });
  }
}
