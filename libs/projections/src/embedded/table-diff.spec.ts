import { compareValues, describeDiff, diffSortedRows, showValue } from './table-diff';

const cols = ['org', 'uid', 'salience'];

describe('diffSortedRows', () => {
  it('finds nothing when both dumps hold the same rows', () => {
    const rows = [['o', 'a', 0.5], ['o', 'b', 0.7]];
    const d = diffSortedRows('nodes', cols, [0, 1], rows, rows.map((r) => [...r]));
    expect(d).toMatchObject({ differing: 0, expectedRows: 2, actualRows: 2, first: [] });
  });

  it('reports a changed column under its key', () => {
    const d = diffSortedRows('nodes', cols, [0, 1], [['o', 'a', 0.5]], [['o', 'a', 0.9]]);
    expect(d.first).toEqual([{ kind: 'changed', key: ['o', 'a'], columns: [{ column: 'salience', expected: 0.5, actual: 0.9 }] }]);
  });

  it('tells rows missing from the actual side from unexpected ones, in key order', () => {
    const expected = [['o', 'a', 1], ['o', 'c', 1]];
    const actual = [['o', 'b', 1], ['o', 'c', 1], ['o', 'd', 1]];
    const d = diffSortedRows('nodes', cols, [0, 1], expected, actual);
    expect(d.first.map((x) => [x.kind, x.key[1]])).toEqual([
      ['missing', 'a'],
      ['unexpected', 'b'],
      ['unexpected', 'd'],
    ]);
    expect(d.differing).toBe(3);
  });

  it('keeps only the first differences but counts them all', () => {
    const expected = Array.from({ length: 50 }, (_, i) => ['o', `u${String(i).padStart(2, '0')}`, 1]);
    const actual = expected.map((r) => [r[0], r[1], 2]);
    const d = diffSortedRows('nodes', cols, [0, 1], expected, actual, 3);
    expect(d.first).toHaveLength(3);
    expect(d.differing).toBe(50);
    expect(describeDiff(d).at(-1)).toBe('nodes: … 47 more differing rows');
  });

  it('compares blobs by content', () => {
    const d = diffSortedRows('embeddings', ['uid', 'vector'], [0], [['a', Buffer.from([1, 2])]], [['a', Buffer.from([1, 3])]]);
    expect(d.differing).toBe(1);
    expect(diffSortedRows('embeddings', ['uid', 'vector'], [0], [['a', Buffer.from([1, 2])]], [['a', Buffer.from([1, 2])]]).differing).toBe(0);
  });
});

describe('compareValues', () => {
  it("orders like SQLite: NULL, numbers, text by bytes, blobs", () => {
    const sorted = ['b', Buffer.from('a'), 2, null, 'B', 1.5].sort(compareValues);
    expect(sorted).toEqual([null, 1.5, 2, 'B', 'b', Buffer.from('a')]);
  });
});

describe('describeDiff', () => {
  it('names both sides and shortens long values', () => {
    const d = diffSortedRows('nodes', ['uid', 'doc'], [0], [['a', 'x'.repeat(200)]], [['a', 'y']]);
    const [line] = describeDiff(d);
    expect(line).toMatch(/^nodes \("a"\): doc is "y" in live, "x+… in rebuilt$/);
    expect(showValue(null)).toBe('NULL');
  });
});
