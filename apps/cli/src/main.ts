#!/usr/bin/env node
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { DomainError } from '@strata/domain/errors';
import { buildProgram } from './program';
import { CliError } from './support/cli-error';
import { exitQuietlyOnEpipe } from './support/output';

/** One line an operator can act on; details only with STRATA_DEBUG=1. */
export function errorLine(err: unknown): string {
  if (err instanceof CliError) return err.message;
  if (err instanceof DomainError) {
    const f = err.context.field;
    const field = typeof f === 'string' && !err.message.includes(f) ? ` (${f})` : '';
    return `${err.message}${field} [${err.code}]`;
  }
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'SQLITE_BUSY') return 'the data directory is busy (another process holds a write lock); try again';
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return `permission denied: ${e.message}`;
  return (e?.message ?? String(err)).split('\n')[0];
}

function exitCodeOf(err: unknown): number {
  return err instanceof CliError ? err.exitCode : 1;
}

/** Exits once stdout has flushed (a pipe may still hold output). */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

async function main(argv: string[]): Promise<void> {
  exitQuietlyOnEpipe();
  const program = buildProgram();
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
