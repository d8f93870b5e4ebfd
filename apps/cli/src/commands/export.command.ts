import { Command } from 'commander';
import type { Clock } from '@strata/domain/time';
import type { ExportOptions } from '../actions/export';
import type { GlobalOptions } from '../support/cli-config';

export function registerExport(program: Command, clock: Clock): void {
  program
    .command('export')
    .description("write an organization's graph as a strata.graph snapshot (the format of GET /export)")
    .requiredOption('--org <id>', 'organization id')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--include-tombstoned', 'include tombstoned nodes and edges')
    .option('--no-embeddings', 'leave stored embedding vectors out')
    .addHelpText('after', '\nExamples:\n  strata export --org 7f3c… > graph.json\n  strata export --org 7f3c… --include-tombstoned -o graph.json')
    .action(async (opts: ExportOptions, cmd: Command) => {
      const { exportGraph } = await import('../actions/export');
      await exportGraph(opts, cmd.optsWithGlobals<GlobalOptions>(), clock);
    });
}
