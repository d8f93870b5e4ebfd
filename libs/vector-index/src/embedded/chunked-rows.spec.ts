import { ChunkedRows } from './chunked-rows';

const f32 = (n: number) => new Float32Array(n);

describe('ChunkedRows', () => {
  it('keeps stored rows in place when it grows past its first chunk: nothing is copied', () => {
    // 3 components × 4 bytes, 64-byte chunks: 5 rows fit, so a chunk holds 4 (a power of two)
    const rows = new ChunkedRows(3, f32, 4, 1, 64);
    expect(rows.chunkRows).toBe(4);
    rows.ensureCapacity(4);
    rows.set(2, [1, 2, 3]);
    const first = rows.chunk(0);
    rows.ensureCapacity(11);
    expect(rows.capacity).toBe(12);
    expect(rows.chunk(0)).toBe(first);
    expect(Array.from(rows.row(2))).toEqual([1, 2, 3]);
  });

  it('doubles a small first chunk, carrying its rows, until the chunk is full', () => {
    const rows = new ChunkedRows(2, f32, 4, 1, 64); // 8 rows a chunk
    rows.set(0, [7, 8]);
    rows.ensureCapacity(3);
    expect(rows.capacity).toBe(4);
    rows.ensureCapacity(5);
    expect(rows.capacity).toBe(8);
    expect(Array.from(rows.row(0))).toEqual([7, 8]);
  });

  it('gives rows [0, n) chunk by chunk as exactly the row-major array, and loads it back', () => {
    const rows = new ChunkedRows(2, f32, 4, 1, 32); // 4 rows a chunk
    rows.ensureCapacity(10);
    for (let r = 0; r < 10; r++) rows.set(r, [r, -r]);
    const segs = [...rows.segments(10)];
    expect(segs.map((s) => s.first)).toEqual([0, 4, 8]);
    const flat = segs.flatMap((s) => Array.from(s.rows));
    expect(flat).toEqual(Array.from({ length: 10 }, (_, r) => [r, -r]).flat());

    const copy = new ChunkedRows(2, f32, 4, 1, 32);
    const bytes = Buffer.concat(segs.map((s) => Buffer.from(s.rows.buffer, s.rows.byteOffset, s.rows.byteLength)));
    copy.loadBytes(bytes, 10);
    expect(Array.from(copy.row(9))).toEqual([9, -9]);
    expect([...copy.segments(10)].flatMap((s) => Array.from(s.rows))).toEqual(flat);
  });

  it('writes a row in place and clears it', () => {
    const rows = new ChunkedRows(2, f32, 4, 1, 32);
    rows.ensureCapacity(6);
    rows.set(5, [4, 5]);
    expect(Array.from(rows.chunk(5).subarray(rows.offset(5), rows.offset(5) + 2))).toEqual([4, 5]);
    rows.fill(5, 0);
    expect(Array.from(rows.row(5))).toEqual([0, 0]);
  });
});
