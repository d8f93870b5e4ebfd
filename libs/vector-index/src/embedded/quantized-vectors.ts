import { MetricKind, exactSearch } from 'usearch';

/**
 * Scales a vector so its largest component maps to ±127 and rounds it into `dst`. Cosine
 * similarity ignores each vector's length, so scaling every vector on its own keeps the
 * metric and uses the whole 8-bit range whatever the vectors' magnitudes (model embeddings
 * with components around ±0.03 would otherwise collapse to a few levels). A zero vector
 * stays zero.
 */
export function quantizeForCosine(src: ArrayLike<number>, srcOffset: number, dst: Int8Array, dstOffset: number, n: number): void {
  let max = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(src[srcOffset + i]);
    if (a > max) max = a;
  }
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < n; i++) dst[dstOffset + i] = Math.round(src[srcOffset + i] * scale);
}

/**
 * An 8-bit copy of a cosine space's vectors (one row per slot) that is scanned in full,
 * natively, to find candidates that the caller then re-scores exactly. At up to ~10⁸ stored
 * components a full scan of this copy (a quarter of the float32 bytes) is faster than an HNSW
 * search with a beam wide enough for high recall, and it misses nothing but the few
 * candidates whose order 8-bit rounding changes, which a re-ranked margin of extra candidates
 * absorbs.
 */
export class QuantizedVectors {
  private rows: Int8Array;

  constructor(readonly dimensions: number, capacity: number) {
    this.rows = new Int8Array(dimensions * capacity);
  }

  ensureCapacity(slots: number): void {
    if (slots * this.dimensions <= this.rows.length) return;
    const rows = new Int8Array(slots * this.dimensions);
    rows.set(this.rows);
    this.rows = rows;
  }

  /** Stores the vector at `src[offset…]` in `slot` (capacity already ensured). */
  set(slot: number, src: ArrayLike<number>, offset: number): void {
    quantizeForCosine(src, offset, this.rows, slot * this.dimensions, this.dimensions);
  }

  /** Zeroes a freed slot: it then scores 0 against any query. */
  clear(slot: number): void {
    this.rows.fill(0, slot * this.dimensions, (slot + 1) * this.dimensions);
  }

  /**
   * The `count` slots among `[0, slots)` closest to `query` by 8-bit cosine, best first. The
   * query must not be the zero vector (every row would tie). One thread: the caller runs on
   * the event loop and the scan is short.
   */
  nearest(query: ArrayLike<number>, slots: number, count: number): number[] {
    const d = this.dimensions;
    const wanted = Math.min(count, slots);
    if (wanted <= 0) return [];
    const q = new Int8Array(d);
    quantizeForCosine(query, 0, q, 0, d);
    const found = exactSearch(this.rows.subarray(0, slots * d), q, d, wanted, MetricKind.Cos, 1) as { keys: BigUint64Array };
    const out: number[] = new Array(found.keys.length);
    for (let i = 0; i < found.keys.length; i++) out[i] = Number(found.keys[i]);
    return out;
  }
}
