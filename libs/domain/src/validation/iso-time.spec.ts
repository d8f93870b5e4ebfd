import { parseIsoDateTime } from './iso-time';

describe('parseIsoDateTime', () => {
  it('reads dates and date-times, with Z, an offset, or no zone (UTC)', () => {
    expect(parseIsoDateTime('2031-02-28T10:00:00Z')).toBe(Date.parse('2031-02-28T10:00:00Z'));
    expect(parseIsoDateTime('2031-02-28T10:00:00.123Z')).toBe(Date.parse('2031-02-28T10:00:00.123Z'));
    expect(parseIsoDateTime('2031-02-28T10:00:00.1234567z')).toBe(Date.parse('2031-02-28T10:00:00.123Z'));
    expect(parseIsoDateTime('2031-02-28T10:00+02:00')).toBe(Date.parse('2031-02-28T08:00:00Z'));
    expect(parseIsoDateTime('2031-02-28T10:00:00-0530')).toBe(Date.parse('2031-02-28T15:30:00Z'));
    expect(parseIsoDateTime('2031-02-28 10:00:00')).toBe(Date.parse('2031-02-28T10:00:00Z'));
    expect(parseIsoDateTime('2031-02-28')).toBe(Date.parse('2031-02-28T00:00:00Z'));
    expect(parseIsoDateTime('2032-02-29T00:00:00Z')).toBe(Date.parse('2032-02-29T00:00:00Z'));
    expect(parseIsoDateTime('2000-02-29')).toBe(Date.parse('2000-02-29T00:00:00Z'));
    expect(parseIsoDateTime('0050-01-01')).toBe(Date.parse('0050-01-01T00:00:00Z'));
  });

  it('refuses impossible calendar dates and times instead of rolling them over', () => {
    for (const s of [
      '2031-02-31T10:00:00Z',
      '2031-02-29T00:00:00Z',
      '1900-02-29',
      '2031-04-31',
      '2031-13-01',
      '2031-00-10',
      '2031-01-00',
      '2031-01-01T24:00:00Z',
      '2031-01-01T10:60:00Z',
      '2031-01-01T10:00:60Z',
      '2031-01-01T10:00:00+24:00',
      '2031-01-01T10:00:00+01:60',
    ])
      expect([s, parseIsoDateTime(s)]).toEqual([s, null]);
  });

  it('refuses what is not ISO 8601', () => {
    for (const s of ['tomorrow', '2031-1-1', '31-01-01', '2031-01-01T10', '2031-01-01T10:00:00ZZ', 'Feb 3 2031', '2031-01-01Tfoo', ' 2031-01-01', ''])
      expect([s, parseIsoDateTime(s)]).toEqual([s, null]);
  });
});
