#!/usr/bin/env node
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { systemClock } from '@strata/domain/time';
import { buildProgram } from './program';
import { CliError } from './support/cli-error';
import { errorLine } from './support/error-line';
import { exitQuietlyOnEpipe } from './support/output';

function exitCodeOf(err: unknown): number {
  return err instanceof CliError ? err.exitCode : 1;
}

/** Exits once stdout has flushed (a pipe may still hold output). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

async function main(argv: string[]): Promise<void> {
  exitQuietlyOnEpipe();
  // the one clock of the process: every command reads time from it
  const program = buildProgram(systemClock);
  try {
    await program.parseAsync(argv);
    exit(Number(process.exitCode ?? 0));
  } catch (err) {
    if (err instanceof CommanderError) return exit(err.exitCode);
    process.stderr.write(`strata: ${errorLine(err)}\n`);
    if (process.env.STRATA_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
    exit(exitCodeOf(err));
  }
}

void main(process.argv);
