/** Reciprocal rank fusion constant (REFERENCE §5.2 `hybrid`). */
export const RRF_K = 60;

export interface LegHit {
  uid: string;
  /** the leg's own raw score (BM25, similarity): reported, never fused */
  score: number;
}

export interface Leg {
  leg: string;
  /** best first */
  hits: LegHit[];
}

export interface LegRank {
  leg: string;
  /** 1-based within the leg */
  rank: number;
  score: number;
}

export interface FusedHit {
  uid: string;
  score: number;
  legs: LegRank[];
}

/**
 * Fused score = Σ over the legs that returned the node of 1/(k + rank). Legs use different
 * scales, so only ranks count. Ordered by fused score; callers apply their own tie rules.
 */
export function fuseByRank(legs: Leg[], k = RRF_K): FusedHit[] {
  const byUid = new Map<string, FusedHit>();
  for (const leg of legs) {
    const seen = new Set<string>();
    let rank = 0;
    for (const h of leg.hits) {
      if (seen.has(h.uid)) continue; // a leg ranks each node once
      seen.add(h.uid);
      rank++;
      let f = byUid.get(h.uid);
      if (!f) byUid.set(h.uid, (f = { uid: h.uid, score: 0, legs: [] }));
      f.score += 1 / (k + rank);
      f.legs.push({ leg: leg.leg, rank, score: h.score });
    }
  }
  return [...byUid.values()].sort((a, b) => b.score - a.score || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
}

/** How many candidates each hybrid leg fetches for k results. */
export function hybridLegSize(k: number): number {
  return Math.max(5 * k, 50);
}
