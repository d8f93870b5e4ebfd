import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { ImportOptions } from '../actions/import';
import type { GlobalOptions } from '../support/cli-config';

export function registerImport(program: Command, clock: Clock): void {
  program
    .command('import')
    .description('import a strata.graph snapshot into an organization (the rules of POST /import: additive, all or nothing)')
    .requiredOption('--org <id>', 'organization id')
    .option('-i, --input <file>', 'read the snapshot from a file instead of stdin')
    .addHelpText(
      'after',
      `
Objects that already exist are skipped, so importing the same snapshot twice writes nothing
the second time. On the embedded default the service must be stopped (or use POST /import).
The snapshot is validated whole before anything is written and then appended in one
transaction, so it is held in memory: count about 9 times its size. Progress (megabytes
read, objects staged, the write and the commit) goes to stderr.

Examples:
  strata import --org 9a1e… < graph.json
  strata export --org 7f3c… | strata import --org 9a1e… --data-dir /srv/other`,
    )
    .action(async (opts: ImportOptions, cmd: Command) => {
      const { importGraph } = await import('../actions/import');
      await importGraph(opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
