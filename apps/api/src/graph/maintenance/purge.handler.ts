import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { readPurgeCutoff } from '@strata/domain/maintenance';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body } from '@strata/domain/validation';
import { tombstonedUidsSync } from '@strata/graph-store/sqlite/sqlite-maintenance-reads';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../../platform/storage/storage.tokens';
import { CommandContext } from '../../platform/unit-of-work/command-context';
import { UNIT_OF_WORK, UnitOfWork } from '../../platform/unit-of-work/unit-of-work.port';
import { embeddedStorage } from './embedded-only';
import { PurgeCounts, purgeObjects } from './purge-objects';

export class PurgeCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

export type PurgeResult = PurgeCounts & { cutoff: number | null };

/**
 * `POST /purge` (REFERENCE §7.3): nodes and edges tombstoned at or before the cut-off leave
 * the log and every projection for good, in one transaction; the GraphPurged event left
 * behind records who purged what and when. `cutoff` is null when none was given.
 */
@CommandHandler(PurgeCommand)
export class PurgeHandler implements ICommandHandler<PurgeCommand, PurgeResult> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage | null,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ ctx, body }: PurgeCommand): Promise<PurgeResult> {
    const storage = embeddedStorage(this.storage, 'POST /purge');
    const cutoff = readPurgeCutoff(body, this.clock.now());
    return this.uow.run(ctx, async (tx) => {
      const db = storage.graph.db;
      const nodes = tombstonedUidsSync(db, 'nodes', tx.org, cutoff);
      const edges = tombstonedUidsSync(db, 'edges', tx.org, cutoff);
      return { ...(await purgeObjects(tx, nodes, edges, cutoff)), cutoff };
    });
  }
}
