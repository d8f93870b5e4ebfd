import { Command } from 'commander';
import { VERSION } from '@strata/platform/version';
import type { Clock } from '@strata/domain/time';
import { registerAdmin } from './commands/admin.command';
import { registerAudit } from './commands/audit-replay.command';
import { registerEvents } from './commands/events-tail.command';
import { registerExport } from './commands/export.command';
import { registerImport } from './commands/import.command';
import { registerMcp } from './commands/mcp.command';
import { registerProjectionsRebuild } from './commands/projections-rebuild.command';
import { registerProjectionsStatus } from './commands/projections-status.command';
import { registerProjectionsVerify } from './commands/projections-verify.command';
import { oneLine } from './support/error-line';

/** The `strata` command tree; every command answers `--help`. `clock` reaches every action. */
export function buildProgram(clock: Clock): Command {
  const program = new Command('strata')
    .description('Operate a Strata installation: projections, audit trails, the event log, snapshots, accounts')
    .version(VERSION, '-V, --version')
    .option('--data-dir <dir>', 'embedded data directory (default: $STRATA_DATA_DIR or ./data)')
    .showSuggestionAfterError(true)
    // usage errors: commander prints one line; the exit code is handled in main
    .exitOverride()
    // one line, like every other error: commander adds "(Did you mean …?)" on a line of its own
    // and quotes bad values as given (line breaks included)
    .configureOutput({ outputError: (text, write) => write(`strata: ${oneLine(text.replace(/^error: /, ''))}\n`) })
    .addHelpText(
      'after',
      `
The store is chosen like the service's: STRATA_STORE=embedded (default) works on the data
directory; STRATA_STORE=servers with the STRATA_*_URL variables works against the servers.
Data goes to stdout, progress and errors to stderr; a failure exits non-zero.`,
    );
  const projections = program.command('projections').description('projection status, rebuild and verification');
  registerProjectionsStatus(projections, clock);
  registerProjectionsRebuild(projections, clock);
  registerProjectionsVerify(projections, clock);
  registerAudit(program);
  registerEvents(program);
  registerExport(program, clock);
  registerImport(program, clock);
  registerAdmin(program, clock);
  registerMcp(program);
  return program;
}
