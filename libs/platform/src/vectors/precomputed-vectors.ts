/**
 * Built-in vectors computed ahead of the commit that will need them (the offline extraction
 * thread embeds what a chunk is about to create), handed to the embedded vector projection,
 * which takes them instead of embedding the same text again on the event loop. A built-in
 * vector is a function of the text and the dimensions alone, so a vector found here is the
 * one the projection would compute; a text not found (not offered, taken already, evicted) is
 * embedded as before. Bounded: what is offered and never taken (a node deduplicated instead of
 * created) is dropped oldest first.
 */
export class PrecomputedVectors {
  private readonly byDimensions = new Map<number, Map<string, ArrayLike<number>>>();
  private size = 0;
  /** whether anything in this process takes them (the embedded projection): else offering is wasted work */
  wanted = false;

  constructor(private readonly max = 8192) {}

  offer(dimensions: number, text: string, vector: ArrayLike<number>): void {
    if (vector.length !== dimensions) return;
    let m = this.byDimensions.get(dimensions);
    if (!m) this.byDimensions.set(dimensions, (m = new Map()));
    if (!m.has(text)) this.size++;
    m.set(text, vector);
    while (this.size > this.max) this.evictOldest();
  }

  /** The vector offered for this text (removed: each is taken once), as a plain array. */
  take(dimensions: number, text: string): number[] | undefined {
    const m = this.byDimensions.get(dimensions);
    const v = m?.get(text);
    if (v === undefined) return undefined;
    m!.delete(text);
    this.size--;
    const out = new Array<number>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i];
    return out;
  }

  get count(): number {
    return this.size;
  }

  private evictOldest(): void {
    for (const [d, m] of this.byDimensions) {
      const first = m.keys().next();
      if (first.done) {
        this.byDimensions.delete(d);
        continue;
      }
      m.delete(first.value);
      this.size--;
      return;
    }
  }
}

/** The process's one: the ingestion side offers, the embedded vector projection takes. */
export const precomputedVectors = new PrecomputedVectors();
