/** An existing live node of the extracted node's type, as deduplication compares it. */
export interface DedupCandidate {
  uid: string;
  created_at: number;
  /** normalised label and aliases (§4.2 normalisation) */
  norms: readonly string[];
}

export type DedupDecision =
  | { action: 'reuse'; uid: string; similarity: number }
  | { action: 'create'; possible_duplicate: { uid: string; similarity: number } | null };

export const DEDUP_REUSE_AT = 0.9;
export const DEDUP_FLAG_AT = 0.7;

/**
 * REFERENCE §9.2: an exact alias or label match reuses the node; similarity ≥ 0.9 reuses it;
 * 0.7 ≤ similarity < 0.9 creates a new node flagged as a possible duplicate of the best
 * match; below, a new node. Ties: the oldest node, then the smaller uid.
 * `similarity(norm)` is the §4.2 trigram similarity of the candidate text to the new label.
 */
export function decideDedup(norm: string, candidates: readonly DedupCandidate[], similarity: (candidateNorm: string) => number): DedupDecision {
  let best: { uid: string; created_at: number; similarity: number } | null = null;
  for (const c of candidates) {
    let s = 0;
    for (const n of c.norms) {
      const v = n === norm ? 1 : similarity(n);
      if (v > s) s = v;
      if (s === 1) break;
    }
    if (s === 0) continue;
    if (!best || s > best.similarity || (s === best.similarity && (c.created_at < best.created_at || (c.created_at === best.created_at && c.uid < best.uid))))
      best = { uid: c.uid, created_at: c.created_at, similarity: s };
  }
  if (best && best.similarity >= DEDUP_REUSE_AT) return { action: 'reuse', uid: best.uid, similarity: best.similarity };
  if (best && best.similarity >= DEDUP_FLAG_AT) return { action: 'create', possible_duplicate: { uid: best.uid, similarity: best.similarity } };
  return { action: 'create', possible_duplicate: null };
}
