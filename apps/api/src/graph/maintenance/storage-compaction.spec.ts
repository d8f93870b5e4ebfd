import { worthCompacting } from './storage-compaction';

describe('worthCompacting', () => {
  const page = 4096;
  it('compacts when a quarter of the file is free, or 256 MB', () => {
    expect(worthCompacting({ freePages: 250, pageCount: 1000, pageSize: page })).toBe(true);
    expect(worthCompacting({ freePages: 65_536, pageCount: 10_000_000, pageSize: page })).toBe(true);
  });
  it('does not rewrite a whole file for a clear that freed little or nothing (an empty organization)', () => {
    expect(worthCompacting({ freePages: 0, pageCount: 100_000, pageSize: page })).toBe(false);
    expect(worthCompacting({ freePages: 2_000, pageCount: 100_000, pageSize: page })).toBe(false);
    expect(worthCompacting({ freePages: 0, pageCount: 0, pageSize: page })).toBe(false);
  });
});
