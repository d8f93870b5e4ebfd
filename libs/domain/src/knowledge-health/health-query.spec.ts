import { exceptionId } from './exception-id';
import { readExceptionQuery, readSummaryDays } from './health-query';

describe('readSummaryDays', () => {
  it('defaults to 30 and takes integers 1–365', () => {
    expect(readSummaryDays({})).toBe(30);
    expect(readSummaryDays({ days: '1' })).toBe(1);
    expect(readSummaryDays({ days: '365' })).toBe(365);
  });
  it.each(['0', '366', '-3', '1.5', 'abc'])('refuses %s (400 invalid_field)', (days) => {
    expect(() => readSummaryDays({ days })).toThrow(expect.objectContaining({ code: 'invalid_field', context: { field: 'days' } }));
  });
});

describe('readExceptionQuery (REFERENCE §14.3)', () => {
  it('defaults: open and acknowledged, every kind and severity, limit 50', () => {
    const q = readExceptionQuery({});
    expect(q.status).toEqual(['acknowledged', 'open']);
    expect(q.kind).toHaveLength(10);
    expect(q.severity).toEqual(['high', 'low', 'medium']);
    expect(q.limit).toBe(50);
  });
  it('canonical lists (sorted, without repeats) so the same filters bind the same cursor', () => {
    expect(readExceptionQuery({ kind: 'chunk_failed,claim_unsupported,chunk_failed' }).kind).toEqual(['chunk_failed', 'claim_unsupported']);
  });
  it('clamps limit at 500 and refuses unknown values', () => {
    expect(readExceptionQuery({ limit: '5000' }).limit).toBe(500);
    for (const [f, v] of [['status', 'closed'], ['kind', 'x'], ['severity', 'urgent'], ['limit', '-1'], ['limit', '0']])
      expect(() => readExceptionQuery({ [f]: v })).toThrow(expect.objectContaining({ code: 'invalid_field', context: expect.objectContaining({ field: f }) }));
  });
  it('checks project and space as uids', () => {
    expect(() => readExceptionQuery({ project: 'a b' })).toThrow(expect.objectContaining({ code: 'invalid_uid' }));
    expect(readExceptionQuery({ project: 'p-1', space: 's-1' })).toMatchObject({ project: 'p-1', space: 's-1' });
  });
});

describe('exceptionId', () => {
  it('is deterministic per kind and subject, and differs between them', () => {
    expect(exceptionId('claim_unsupported', 'n1')).toBe(exceptionId('claim_unsupported', 'n1'));
    expect(exceptionId('claim_unsupported', 'n1')).not.toBe(exceptionId('claim_unsupported', 'n2'));
    expect(exceptionId('chunk_failed', 'n1')).not.toBe(exceptionId('chunk_orphaned', 'n1'));
    expect(exceptionId('chunk_failed', 'n1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
