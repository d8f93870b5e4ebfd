import { DomainError } from '@strata/domain/errors';
import { CliError } from './cli-error';
import { errorLine, oneLine } from './error-line';

describe('errorLine', () => {
  it('prints a message that quotes its input (line breaks included) as one line', () => {
    let err: unknown;
    try {
      JSON.parse('not json\n');
    } catch (e) {
      err = e;
    }
    const line = errorLine(err);
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toMatch(/"not json " is not valid JSON/);
  });

  it('joins the lines of every kind of error, and drops control characters', () => {
    expect(errorLine(new CliError('first\r\n  second'))).toBe('first second');
    expect(errorLine(new DomainError(400, 'invalid_field', 'bad\nvalue', { field: 'x' }))).toBe('bad value (x) [invalid_field]');
    expect(errorLine(new Error('a\u2028b\tc\u001b[31md'))).toBe('a b c [31md');
    expect(errorLine('plain\n')).toBe('plain');
    expect(errorLine(new Error('\n'))).toBe('unknown error');
  });

  it('keeps the known one-line wordings', () => {
    expect(errorLine(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toMatch(/^the data directory is busy/);
  });

  it('cuts a very long line', () => {
    const line = oneLine('x'.repeat(5000));
    expect(line).toHaveLength(1000);
    expect(line.endsWith('…')).toBe(true);
  });
});
