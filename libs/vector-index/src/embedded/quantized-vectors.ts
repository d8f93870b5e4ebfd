import { MetricKind, exactSearch } from 'usearch';
import { ChunkedRows } from './chunked-rows';

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
/**
 * Scanned rows come in chunks of about this size: large enough that a scan makes few native
 * calls and merges few lists (a space at the scan limit, 2^26 components, is two chunks; 4 MB
 * chunks made a 1,000-candidate scan of 100k vectors 2.2× slower), small enough that growing
 * the first chunk copies at most 16 MB, once.
 */
const SCAN_CHUNK_BYTES = 32 * 1024 * 1024;

export class QuantizedVectors {
  private readonly rows: ChunkedRows<Int8Array>;

  constructor(readonly dimensions: number, capacity: number, chunkBytes = SCAN_CHUNK_BYTES) {
    this.rows = new ChunkedRows(dimensions, (n) => new Int8Array(n), 1, capacity, chunkBytes);
  }

  ensureCapacity(slots: number): void {
    this.rows.ensureCapacity(slots);
  }

  /** Stores the vector at `src[offset…]` in `slot` (capacity already ensured). */
  set(slot: number, src: ArrayLike<number>, offset: number): void {
    quantizeForCosine(src, offset, this.rows.chunk(slot), this.rows.offset(slot), this.dimensions);
  }

  /** Zeroes a freed slot: it then scores 0 against any query. */
  clear(slot: number): void {
    this.rows.fill(slot, 0);
  }

  /**
   * The `count` slots among `[0, slots)` closest to `query` by 8-bit cosine, best first. The
   * query must not be the zero vector (every row would tie). Each chunk is scanned natively
   * for its own best `count`, and those are merged. One thread: the caller runs on the event
   * loop and the scan is short.
   */
  nearest(query: ArrayLike<number>, slots: number, count: number): number[] {
    const d = this.dimensions;
    const wanted = Math.min(count, slots);
    if (wanted <= 0) return [];
    const q = new Int8Array(d);
    quantizeForCosine(query, 0, q, 0, d);
    const parts: { first: number; keys: BigUint64Array; distances: Float32Array }[] = [];
    for (const seg of this.rows.segments(slots)) {
      const m = exactSearch(seg.rows, q, d, Math.min(wanted, seg.rows.length / d), MetricKind.Cos, 1) as { keys: BigUint64Array; distances: Float32Array };
      parts.push({ first: seg.first, keys: m.keys, distances: m.distances });
    }
    // each chunk's matches come best first: merge them (equal distances in slot order, so
    // results do not depend on where chunks end)
    const at = new Array<number>(parts.length).fill(0);
    const out: number[] = [];
    while (out.length < wanted) {
      let best = -1;
      let bestDistance = Infinity;
      let bestSlot = Infinity;
      for (let p = 0; p < parts.length; p++) {
        const i = at[p];
        if (i >= parts[p].keys.length) continue;
        const distance = parts[p].distances[i];
        const slot = parts[p].first + Number(parts[p].keys[i]);
        if (distance < bestDistance || (distance === bestDistance && slot < bestSlot)) {
          best = p;
          bestDistance = distance;
          bestSlot = slot;
        }
      }
      if (best < 0) break;
      at[best]++;
      out.push(bestSlot);
    }
    return out;
  }
}
