import { MetricKind, exactSearch } from 'usearch';
import { ChunkedRows } from './chunked-rows';
import { TopK } from './vector-math';

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

/** Scale steps per doubling: a row gives up at most 2^(1/4) (~16%) of its 8-bit range. */
const STEPS_PER_OCTAVE = 4;

/**
 * The scale group of a vector: its unit vector, scaled by 2^(group / STEPS_PER_OCTAVE), has
 * its largest component within ±127 and uses as much of that range as the step allows.
 * Null for the zero vector (and anything not finite).
 */
export function scaleGroup(src: ArrayLike<number>, offset: number, n: number): number | null {
  const m = measure(src, offset, n);
  return groupOf(m.max, m.sq);
}

/** A vector's largest |component| and squared length, in one reused object (no allocation per row). */
const measured = { max: 0, sq: 0 };
function measure(src: ArrayLike<number>, offset: number, n: number): { readonly max: number; readonly sq: number } {
  let max = 0;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const x = src[offset + i];
    const a = Math.abs(x);
    if (a > max) max = a;
    sq += x * x;
  }
  measured.max = max;
  measured.sq = sq;
  return measured;
}

/** scaleGroup from a vector's largest |component| and its squared length. */
function groupOf(max: number, sq: number): number | null {
  if (!(max > 0) || !Number.isFinite(sq)) return null;
  // 127 / the unit vector's largest component, in quarter octaves, rounded down (≥ 127: a unit vector's largest component is ≤ 1)
  return Math.floor(STEPS_PER_OCTAVE * Math.log2((127 * Math.sqrt(sq)) / max));
}

/** The rows of one scale group: row i belongs to `slots[i]`. */
interface Group {
  scale: number;
  rows: ChunkedRows<Int8Array>;
  slots: number[];
}

/**
 * Scanned rows come in chunks of about this size: large enough that a scan makes few native
 * calls and merges few lists, small enough that growing a group's first chunk copies at most
 * 16 MB, once.
 */
const SCAN_CHUNK_BYTES = 32 * 1024 * 1024;

/**
 * An 8-bit copy of a cosine space's vectors that is scanned in full, natively, to find
 * candidates that the caller then re-scores exactly. At up to ~10⁸ stored components a full
 * scan of this copy (a quarter of the float32 bytes) is faster than an HNSW search with a beam
 * wide enough for high recall, and it misses nothing but the few candidates whose order 8-bit
 * rounding changes, which a re-ranked margin of extra candidates absorbs.
 *
 * Rows are unit vectors scaled into 8 bits and kept in groups that share one scale (a quarter
 * octave apart). Within a group the inner product ranks as cosine does, so the scan uses the
 * inner-product kernel, which reads each row once and computes no norms (a third less CPU
 * than the cosine kernel at 100k × 384); a hit's inner product divided by its group's scale
 * is its cosine times a constant, which orders the groups' hits against each other. Zero
 * vectors are kept in no group: their cosine is 0 whatever the query, so they are offered as
 * candidates scoring exactly that (above every vector pointing away from the query).
 */
export class QuantizedVectors {
  private readonly groups = new Map<number, Group>();
  /** per slot: its group key and row in that group (undefined: in no group) */
  private readonly groupOf: (number | undefined)[] = [];
  private readonly rowOf: number[] = [];
  /** slots holding the zero vector */
  private readonly zeros = new Set<number>();
  private readonly scratch: Int8Array;

  constructor(
    readonly dimensions: number,
    _capacity = 16,
    private readonly chunkBytes = SCAN_CHUNK_BYTES,
  ) {
    this.scratch = new Int8Array(dimensions);
  }

  /** Kept for the store's interface: groups grow by chunks as rows arrive. */
  ensureCapacity(_slots: number): void {}

  /** Stores the vector at `src[offset…]` in `slot`, replacing what the slot held. */
  set(slot: number, src: ArrayLike<number>, offset: number): void {
    const d = this.dimensions;
    const { max, sq } = measure(src, offset, d);
    const key = groupOf(max, sq);
    if (key === null) {
      this.clear(slot);
      this.zeros.add(slot);
      return;
    }
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { scale: 2 ** (key / STEPS_PER_OCTAVE), rows: new ChunkedRows(d, (n) => new Int8Array(n), 1, 16, this.chunkBytes), slots: [] }));
    const f = g.scale / Math.sqrt(sq);
    const row = this.scratch;
    for (let i = 0; i < d; i++) row[i] = Math.max(-127, Math.min(127, Math.round(src[offset + i] * f)));
    if (this.groupOf[slot] === key) {
      g.rows.set(this.rowOf[slot], row);
      return;
    }
    this.clear(slot);
    const at = g.slots.length;
    g.rows.ensureCapacity(at + 1);
    g.rows.set(at, row);
    g.slots.push(slot);
    this.groupOf[slot] = key;
    this.rowOf[slot] = at;
  }

  /** Forgets a slot's row (a freed slot is never a candidate). */
  clear(slot: number): void {
    this.zeros.delete(slot);
    const key = this.groupOf[slot];
    if (key === undefined) return;
    const g = this.groups.get(key)!;
    const at = this.rowOf[slot];
    const last = g.slots.length - 1;
    if (at !== last) {
      // the group's last row moves into the hole
      const moved = g.slots[last];
      g.rows.set(at, g.rows.row(last));
      g.slots[at] = moved;
      this.rowOf[moved] = at;
    }
    g.slots.pop();
    this.groupOf[slot] = undefined;
    if (!g.slots.length) this.groups.delete(key);
  }

  /**
   * Up to `count` slots closest to `query` by 8-bit cosine, best first (equal estimates in slot
   * order). Only slots below `slots` are stored, and only those holding a non-zero vector are
   * returned. The query must not be the zero vector. Each group's chunks are scanned natively
   * for their own best `count`, and those are merged. One thread: the caller runs on the event
   * loop and the scan is short.
   */
  nearest(query: ArrayLike<number>, slots: number, count: number): number[] {
    const d = this.dimensions;
    if (count <= 0 || slots <= 0) return [];
    const q = new Int8Array(d);
    quantizeForCosine(query, 0, q, 0, d);
    const top = new TopK(count);
    // the largest groups first: the bar to enter rises early, and the smaller groups' lists
    // (best first) are cut as soon as they fall below it
    const groups = [...this.groups.values()].sort((a, b) => b.slots.length - a.slots.length);
    for (const g of groups) {
      for (const seg of g.rows.segments(g.slots.length)) {
        const m = exactSearch(seg.rows, q, d, Math.min(count, seg.rows.length / d), MetricKind.IP, 1) as { keys: BigUint64Array; distances: Float32Array };
        for (let i = 0; i < m.keys.length; i++) {
          // the kernel's distance is 1 − the integer inner product
          const estimate = (1 - m.distances[i]) / g.scale;
          if (estimate < top.floor) break;
          top.push(g.slots[seg.first + Number(m.keys[i])], estimate);
        }
      }
    }
    // a zero vector's cosine is 0 (skipped when the k-th estimate is already above it)
    if (top.floor <= 0) for (const slot of this.zeros) top.push(slot, 0);
    return top.sorted().map((h) => h.id);
  }
}
