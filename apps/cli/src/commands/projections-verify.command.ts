import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { VerifyOptions } from '../actions/projections-verify';
import type { GlobalOptions } from '../support/cli-config';
import { SQLITE_PROJECTION_LIST as SQLITE_NAMES } from '../actions/projection-names';

export function registerProjectionsVerify(projections: Command, clock: Clock): void {
  projections
    .command('verify')
    .description('rebuild into a scratch copy and compare it with the live projections, table by table and vector by vector')
    .argument('[name...]', `projections to verify: ${SQLITE_NAMES}, vectors (default: all)`)
    .option('--limit <n>', 'differences to print per table (and for vectors)', '10')
    .addHelpText(
      'after',
      `
Exits 0 when the live projections equal a fresh rebuild of the log (at the position they
are at), 1 with the first differences otherwise. Safe while the service runs. The vector
index is compared as the service last saved it (every 60 s and at shutdown), exactly: ids,
vectors (float for float), node types and layers. Embedded default only.`,
    )
    .action(async (args: string[], opts: VerifyOptions, cmd: Command) => {
      const { projectionsVerify } = await import('../actions/projections-verify');
      await projectionsVerify(args, opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
