import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { RebuildOptions } from '../actions/projections-rebuild';
import type { GlobalOptions } from '../support/cli-config';
import { SQLITE_PROJECTION_LIST as SQLITE_NAMES } from '../actions/projection-names';

const NEXT_PROJECTIONS_FILE = 'projections.next.db';
const VECTORS_NEXT_DIR = 'vectors.next';

export function registerProjectionsRebuild(projections: Command, clock: Clock): void {
  projections
    .command('rebuild')
    .description('rebuild projections from the event log, beside the live ones, then swap them in')
    .argument('[name...]', `projections to rebuild: ${SQLITE_NAMES}, vectors (default: all)`)
    .option('--handover-timeout <seconds>', 'how long to wait for a running service to take the result', '600')
    .addHelpText(
      'after',
      `
On the embedded default the SQLite projections (${SQLITE_NAMES}) are built into
${NEXT_PROJECTIONS_FILE} and the vector index ("vectors") into ${VECTORS_NEXT_DIR}/, from the
log, while a running service keeps answering from the live ones; the service then applies
the events written meanwhile and swaps the new ones in between two writes. With no service
running, the CLI swaps them in itself. Vectors from providers and clients are in the log, and
the built-in embedder runs locally: a rebuild never calls an embedding provider. Use the
service's STRATA_EMBEDDING_* settings (its default configuration applies). Progress goes to
stderr.

In servers mode (STRATA_STORE=servers) the projection worker rebuilds graph, text and vectors
(the Qdrant collections) from the log under its lease; the command asks it to.

Examples:
  strata projections rebuild
  strata projections rebuild vectors
  strata projections rebuild text --data-dir /var/lib/strata`,
    )
    .action(async (args: string[], opts: RebuildOptions, cmd: Command) => {
      const { projectionsRebuild } = await import('../actions/projections-rebuild');
      await projectionsRebuild(args, opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
