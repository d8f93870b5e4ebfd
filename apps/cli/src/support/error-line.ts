import { DomainError } from '@strata/domain/errors';
import { CliError } from './cli-error';

/** Longest error line printed; the rest is cut (STRATA_DEBUG=1 prints the whole error and its stack). */
const MAX_CHARS = 1000;

/**
 * Text made into one printable line: line breaks (with the blanks around them), tabs and other
 * control characters become one space, so a message that quotes its input ("not json\n") or a
 * library's several-line message still prints as one line.
 */
export function oneLine(text: string): string {
  const line = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim();
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
}

function describe(err: unknown): string {
  if (err instanceof CliError) return err.message;
  if (err instanceof DomainError) {
    const f = err.context.field;
    const field = typeof f === 'string' && !err.message.includes(f) ? ` (${f})` : '';
    return `${err.message}${field} [${err.code}]`;
  }
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'SQLITE_BUSY') return 'the data directory is busy (another process holds a write lock); try again';
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return `permission denied: ${e.message}`;
  return e?.message ?? String(err);
}

/**
 * The one line an operator can act on, for any failure: every error of every command goes
 * through here (main), so none can print more than one line. Details only with STRATA_DEBUG=1.
 */
export function errorLine(err: unknown): string {
  return oneLine(describe(err)) || 'unknown error';
}
