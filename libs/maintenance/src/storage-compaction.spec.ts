import { worthCompacting } from './storage-compaction';

describe('worthCompacting', () => {
  it('compacts a file with free pages, and leaves one without any alone (a clear of an empty organization)', () => {
    expect(worthCompacting(1)).toBe(true);
    expect(worthCompacting(0)).toBe(false);
  });
});
