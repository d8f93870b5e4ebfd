import { Command } from 'commander';
import type { RebuildOptions } from '../actions/projections-rebuild';
import type { GlobalOptions } from '../support/cli-config';

const NEXT_PROJECTIONS_FILE = 'projections.next.db';

export function registerProjectionsRebuild(projections: Command): void {
  projections
    .command('rebuild')
    .description('rebuild projections from the event log, beside the live ones, then swap them in')
    .argument('[name...]', 'projections to rebuild (default: all)')
    .option('--handover-timeout <seconds>', 'how long to wait for a running service to swap the result in', '600')
    .addHelpText(
      'after',
      `
On the embedded default the new projections are built into ${NEXT_PROJECTIONS_FILE} while
a running service keeps answering from the live ones; the service then applies the events
written meanwhile and swaps the new file in between two write batches. With no service
running, the CLI swaps the file in itself. Progress goes to stderr.

Examples:
  strata projections rebuild
  strata projections rebuild text --data-dir /var/lib/strata`,
    )
    .action(async (args: string[], opts: RebuildOptions, cmd: Command) => {
      const { projectionsRebuild } = await import('../actions/projections-rebuild');
      await projectionsRebuild(args, opts, cmd.optsWithGlobals<GlobalOptions>());
    });
}
