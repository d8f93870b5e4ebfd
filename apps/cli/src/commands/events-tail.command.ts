import { Command, Option } from 'commander';
import type { TailOptions } from '../actions/events-tail';
import { AUDIT_FORMATS } from '../audit/audit-format';
import type { GlobalOptions } from '../support/cli-config';

export function registerEvents(program: Command): void {
  const events = program.command('events').description('the event log');
  events
    .command('tail')
    .description('follow new events live (also those other processes append), until interrupted')
    .option('--org <id>', 'only this organization')
    .option('--after <position>', 'start after this log position instead of the head')
    .addOption(new Option('--format <format>', 'output format').choices([...AUDIT_FORMATS]).default('jsonl'))
    .addHelpText('after', '\nExamples:\n  strata events tail\n  strata events tail --org 7f3c… --format table')
    .action(async (opts: TailOptions, cmd: Command) => {
      const { eventsTail } = await import('../actions/events-tail');
      await eventsTail(opts, cmd.optsWithGlobals<GlobalOptions>());
    });
}
