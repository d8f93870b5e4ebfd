import type { SavedSpace, VectorIndexSnapshot } from './vector-index-snapshot';

export interface VectorDiff {
  /** vectors (or spaces) that differ, in total */
  differing: number;
  /** vectors in the live index */
  liveVectors: number;
  /** the first differences, one line each */
  first: string[];
}

const q = (s: string) => JSON.stringify(s);

/** The shortest decimal that reads back as the same float32 (what was stored, not its double widening). */
export function float32String(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  for (let digits = 1; digits < 17; digits++) {
    const s = v.toPrecision(digits);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

function firstDifferentComponent(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return i;
  return -1;
}

/**
 * Compares a live vector index with a fresh rebuild, organization by organization, vector by
 * vector, exactly (float32 for float32: recorded vectors are copied, built-in ones recomputed
 * by a deterministic embedder). Lists at most `limit` differences, in a stable order.
 */
export function diffVectorSnapshots(live: VectorIndexSnapshot, rebuilt: VectorIndexSnapshot, limit: number): VectorDiff {
  const out: VectorDiff = { differing: 0, liveVectors: 0, first: [] };
  const note = (line: string, count = 1) => {
    out.differing += count;
    if (out.first.length < limit) out.first.push(line);
  };
  const orgs = [...new Set([...live.spaces.keys(), ...rebuilt.spaces.keys()])].sort();
  for (const org of orgs) {
    const l: SavedSpace | undefined = live.spaces.get(org);
    const r: SavedSpace | undefined = rebuilt.spaces.get(org);
    out.liveVectors += l?.vectors.size ?? 0;
    if (l?.damaged) {
      note(`vectors (org ${q(org)}): live files unreadable: ${l.damaged}`);
      continue;
    }
    // an empty space and no space answer every search alike
    if (!l?.vectors.size && !r?.vectors.size) continue;
    if (!l || !r) {
      const where = l ? 'live' : 'rebuilt';
      note(`vectors (org ${q(org)}): ${(l ?? r)!.vectors.size} vectors in ${where}, no space in ${l ? 'rebuilt' : 'live'}`, (l ?? r)!.vectors.size);
      continue;
    }
    if (l.dimensions !== r.dimensions || l.metric !== r.metric) {
      note(`vectors (org ${q(org)}): space is ${l.dimensions}-d ${l.metric} in live, ${r.dimensions}-d ${r.metric} in rebuilt`, Math.max(l.vectors.size, r.vectors.size));
      continue;
    }
    const uids = [...new Set([...l.vectors.keys(), ...r.vectors.keys()])].sort();
    for (const uid of uids) {
      const a = l.vectors.get(uid);
      const b = r.vectors.get(uid);
      const key = `vectors (${q(org)}, ${q(uid)})`;
      if (!a) note(`${key}: in rebuilt, missing from live`);
      else if (!b) note(`${key}: in live, not in rebuilt`);
      else {
        const i = firstDifferentComponent(a.vector, b.vector);
        if (i >= 0) note(`${key}: component ${i} is ${float32String(a.vector[i])} in live, ${float32String(b.vector[i])} in rebuilt`);
        else if (a.node_type !== b.node_type) note(`${key}: node_type is ${q(a.node_type)} in live, ${q(b.node_type)} in rebuilt`);
        else if (a.layer !== b.layer) note(`${key}: layer is ${q(a.layer)} in live, ${q(b.layer)} in rebuilt`);
      }
    }
  }
  return out;
}
