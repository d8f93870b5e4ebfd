import { readPurgeCutoff } from './purge-cutoff';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';

const NOW = 1_700_000_000;


describe('readPurgeCutoff (REFERENCE §7.3)', () => {
  it('has no cut-off when neither before nor older_than_secs is given', () => {
    expect(readPurgeCutoff({}, NOW)).toBeNull();
    expect(readPurgeCutoff({ before: null }, NOW)).toBeNull();
  });

  it('takes before (and its alias older_than) as absolute Unix seconds', () => {
    expect(readPurgeCutoff({ before: 1_650_000_000.5 }, NOW)).toBe(1_650_000_000.5);
    expect(readPurgeCutoff({ older_than: 1_650_000_000 }, NOW)).toBe(1_650_000_000);
  });

  it('takes older_than_secs relative to now', () => {
    expect(readPurgeCutoff({ older_than_secs: 3600 }, NOW)).toBe(NOW - 3600);
    expect(readPurgeCutoff({ older_than_secs: 0 }, NOW)).toBe(NOW);
  });

  it.each([
    [{ before: 1, older_than_secs: 2 }],
    [{ before: 1, older_than: 1 }],
    [{ older_than: 1, older_than_secs: 2 }],
  ])('refuses more than one cut-off field: %j', (body) => {
    const e = errorOf(() => readPurgeCutoff(body, NOW));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_field');
  });

  it.each([
    [{ before: 'yesterday' }, 'before'],
    [{ before: -1 }, 'before'],
    [{ older_than_secs: -60 }, 'older_than_secs'],
    [{ older_than_secs: true }, 'older_than_secs'],
  ])('rejects %j with invalid_field naming %s', (body, field) => {
    const e = errorOf(() => readPurgeCutoff(body, NOW));
    expect(e.code).toBe('invalid_field');
    expect(e.context.field).toBe(field);
  });
});
