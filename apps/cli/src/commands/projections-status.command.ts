import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { GlobalOptions } from '../support/cli-config';

export function registerProjectionsStatus(projections: Command, clock: Clock): void {
  projections
    .command('status')
    .description("every projection's version, checkpoint, the log's head, lag and last error (vectors included)")
    .option('--json', 'print JSON instead of a table: one object per projection, each with the service and rebuild running on the data dir')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { projectionsStatus } = await import('../actions/projections-status');
      await projectionsStatus(opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
