/**
 * Weighted feature counts of one text, keyed by (32-bit hash, kind), in first-occurrence order.
 * Open addressing with generation stamps, so a reset costs nothing whatever the table size.
 */
export class FeatureCounts {
  size = 0;
  hashes = new Int32Array(32);
  kinds = new Uint8Array(32);
  tfs = new Float64Array(32);
  private slots = new Int32Array(64);
  private stamps = new Uint32Array(64);
  private gen = 0;

  reset(): void {
    this.size = 0;
    if (++this.gen > 0xfffffffe) {
      this.stamps.fill(0);
      this.gen = 1;
    }
  }

  add(hash: number, kind: number, weight: number): void {
    const h = hash | 0;
    const mask = this.slots.length - 1;
    let i = (h ^ (h >>> 16)) & mask;
    while (this.stamps[i] === this.gen) {
      const f = this.slots[i];
      if (this.hashes[f] === h && this.kinds[f] === kind) {
        this.tfs[f] += weight;
        return;
      }
      i = (i + 1) & mask;
    }
    const f = this.size++;
    this.stamps[i] = this.gen;
    this.slots[i] = f;
    this.hashes[f] = h;
    this.kinds[f] = kind;
    this.tfs[f] = weight;
    if (this.size === this.hashes.length) this.grow();
  }

  /** Doubles every array and re-inserts the features (load factor stays at most 1/2). */
  private grow(): void {
    const cap = this.hashes.length * 2;
    const hashes = new Int32Array(cap);
    hashes.set(this.hashes);
    const kinds = new Uint8Array(cap);
    kinds.set(this.kinds);
    const tfs = new Float64Array(cap);
    tfs.set(this.tfs);
    this.hashes = hashes;
    this.kinds = kinds;
    this.tfs = tfs;
    this.slots = new Int32Array(cap * 2);
    this.stamps = new Uint32Array(cap * 2);
    const mask = cap * 2 - 1;
    for (let f = 0; f < this.size; f++) {
      const h = hashes[f];
      let i = (h ^ (h >>> 16)) & mask;
      while (this.stamps[i] === this.gen) i = (i + 1) & mask;
      this.stamps[i] = this.gen;
      this.slots[i] = f;
    }
  }
}
