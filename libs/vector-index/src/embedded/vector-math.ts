import type { DistanceMetric } from '../vector-index.port';

export type VectorLike = ArrayLike<number>;

export function dot(a: VectorLike, b: VectorLike, bOffset = 0, n = a.length): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[bOffset + i];
  return s;
}

export function norm(a: VectorLike, offset = 0, n = a.length - offset): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[offset + i] * a[offset + i];
  return Math.sqrt(s);
}

/**
 * The port's score (higher is better) of `b[bOffset…]` for query `a`:
 * cosine → 1 − cosine distance (= cosine similarity; 0 when either vector is zero),
 * dot → raw dot product, euclidean → 1 / (1 + L2 distance).
 */
export function similarity(
  metric: DistanceMetric,
  a: VectorLike,
  b: VectorLike,
  bOffset = 0,
  n = a.length,
  aNorm?: number,
  bNorm?: number,
): number {
  if (metric === 'euclidean') {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const d = a[i] - b[bOffset + i];
      s += d * d;
    }
    return 1 / (1 + Math.sqrt(s));
  }
  const d = dot(a, b, bOffset, n);
  if (metric === 'dot') return d;
  const na = aNorm ?? norm(a, 0, n);
  const nb = bNorm ?? norm(b, bOffset, n);
  return na === 0 || nb === 0 ? 0 : d / (na * nb);
}

/**
 * Brute-force k nearest neighbours, best first (ties by index). The ground truth for recall
 * measurements and the exact path of the embedded index.
 */
export function exactSearch(
  vectors: ReadonlyArray<VectorLike>,
  query: VectorLike,
  metric: DistanceMetric,
  k: number,
): Array<{ index: number; score: number }> {
  const qNorm = norm(query);
  const top = new TopK(k);
  for (let i = 0; i < vectors.length; i++) {
    top.push(i, similarity(metric, query, vectors[i], 0, query.length, qNorm));
  }
  return top.sorted().map(({ id, score }) => ({ index: id, score }));
}

/** Bounded best-k collector (min-heap on score; ties keep the smaller id). */
export class TopK {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly k: number) {}

  get size(): number {
    return this.ids.length;
  }

  /** The score a hit must beat to enter once the collector is full (−∞ until then). */
  get floor(): number {
    return this.ids.length < this.k ? -Infinity : this.scores[0];
  }

  push(id: number, score: number): void {
    if (this.k <= 0 || Number.isNaN(score)) return;
    if (this.ids.length < this.k) {
      this.ids.push(id);
      this.scores.push(score);
      this.up(this.ids.length - 1);
    } else if (this.better(score, id, this.scores[0], this.ids[0])) {
      this.ids[0] = id;
      this.scores[0] = score;
      this.down(0);
    }
  }

  sorted(): Array<{ id: number; score: number }> {
    return this.ids
      .map((id, i) => ({ id, score: this.scores[i] }))
      .sort((a, b) => b.score - a.score || a.id - b.id);
  }

  /** true when (s1,id1) ranks above (s2,id2) */
  private better(s1: number, id1: number, s2: number, id2: number): boolean {
    return s1 > s2 || (s1 === s2 && id1 < id2);
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(this.scores[p], this.ids[p], this.scores[i], this.ids[i])) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.ids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.better(this.scores[worst], this.ids[worst], this.scores[l], this.ids[l])) worst = l;
      if (r < n && this.better(this.scores[worst], this.ids[worst], this.scores[r], this.ids[r])) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(i: number, j: number): void {
    const id = this.ids[i];
    this.ids[i] = this.ids[j];
    this.ids[j] = id;
    const score = this.scores[i];
    this.scores[i] = this.scores[j];
    this.scores[j] = score;
  }
}
