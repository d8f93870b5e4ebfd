/** Bytes a chunk holds once a store has outgrown its first one. */
const CHUNK_BYTES = 4 * 1024 * 1024;

type Rows = Float32Array | Int8Array;

/**
 * Fixed-width rows (one per slot of a vector space) kept in chunks, so that growing never
 * copies what is stored. One typed array doubled in place copied every stored vector and
 * zeroed a buffer twice their size on the event loop: a 380 ms stall of every request when a
 * space of 384-dimensional vectors passed 65,536 (measured), seconds at a million.
 *
 * The first chunk starts small and doubles (many organizations hold a few vectors) up to
 * about CHUNK_BYTES; from then on each growth adds one chunk of that size. Chunks hold a power
 * of two of rows, so a row's chunk and offset are a shift and a mask.
 */
export class ChunkedRows<T extends Rows> {
  private chunks: T[] = [];
  private readonly shift: number;
  private readonly mask: number;
  /** rows the first chunk holds while it is the only one (it doubles up to a full chunk) */
  private firstRows = 0;

  constructor(
    readonly width: number,
    private readonly make: (length: number) => T,
    bytesPerComponent: number,
    initialRows = 16,
    chunkBytes = CHUNK_BYTES,
  ) {
    const rows = Math.max(1, Math.floor(chunkBytes / (width * bytesPerComponent)));
    this.shift = Math.max(0, Math.floor(Math.log2(rows)));
    this.mask = (1 << this.shift) - 1;
    this.ensureCapacity(initialRows);
  }

  /** Rows per full chunk. */
  get chunkRows(): number {
    return 1 << this.shift;
  }

  get capacity(): number {
    return this.chunks.length <= 1 ? this.firstRows : this.chunks.length * this.chunkRows;
  }

  ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const full = this.chunkRows;
    if (this.chunks.length <= 1 && this.firstRows < full) {
      // the first chunk doubles (copying at most one chunk) until it is full
      let n = Math.max(1, this.firstRows);
      while (n < Math.min(rows, full)) n *= 2;
      n = Math.min(n, full);
      const grown = this.make(n * this.width);
      if (this.chunks.length) grown.set(this.chunks[0]);
      this.chunks[0] = grown;
      this.firstRows = n;
    }
    while (this.capacity < rows) this.chunks.push(this.make(full * this.width));
  }

  /** The typed array holding `row`; the row starts at `offset(row)` in it. */
  chunk(row: number): T {
    return this.chunks[row >>> this.shift];
  }

  offset(row: number): number {
    return (row & this.mask) * this.width;
  }

  /** A view of one row (no copy). */
  row(row: number): T {
    const off = this.offset(row);
    return this.chunk(row).subarray(off, off + this.width) as T;
  }

  /** Copies a whole row (`width` values) into `row`. */
  set(row: number, src: ArrayLike<number>): void {
    this.chunk(row).set(src, this.offset(row));
  }

  fill(row: number, value: number): void {
    const off = this.offset(row);
    this.chunk(row).fill(value, off, off + this.width);
  }

  /**
   * Rows [0, rows) as consecutive views, chunk by chunk, each with the index of its first
   * row: in order, they are exactly the row-major array of those rows.
   */
  *segments(rows: number): Generator<{ first: number; rows: T }> {
    const full = this.chunkRows;
    for (let i = 0, first = 0; first < rows && i < this.chunks.length; i++, first += full) {
      const n = Math.min(rows - first, full);
      yield { first, rows: this.chunks[i].subarray(0, n * this.width) as T };
    }
  }

  /** Fills rows [0, rows) from their row-major bytes (as `segments` gives them). */
  loadBytes(bytes: Uint8Array, rows: number): void {
    this.ensureCapacity(rows);
    let at = 0;
    for (const seg of this.segments(rows)) {
      const n = seg.rows.byteLength;
      new Uint8Array(seg.rows.buffer, seg.rows.byteOffset, n).set(bytes.subarray(at, at + n));
      at += n;
    }
  }
}
