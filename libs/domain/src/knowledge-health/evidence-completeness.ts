/** What is known about one live Claim's support (REFERENCE §14.1). */
export interface ClaimSupport {
  /** a live Supports edge from a live Evidence, Observation, Experiment or Snippet */
  evidenced: boolean;
  /** a live ExtractedFrom or DerivedFrom edge to a live Chunk, Document, Source, Snippet or Observation */
  sourced: boolean;
}

export interface EvidenceCompleteness {
  value: number | null;
  claims: number;
  evidenced: number;
  sourced_only: number;
  unsupported: number;
}

/** (E + 0.5·S) / |C| rounded to 4 decimals, null without claims. */
export function evidenceCompleteness(claims: Iterable<ClaimSupport>): EvidenceCompleteness {
  let n = 0;
  let e = 0;
  let s = 0;
  for (const c of claims) {
    n++;
    if (c.evidenced) e++;
    else if (c.sourced) s++;
  }
  return evidenceCompletenessOf(n, e, s);
}

/** The same figures from counts: claims, evidenced, sourced and not evidenced. */
export function evidenceCompletenessOf(claims: number, evidenced: number, sourcedOnly: number): EvidenceCompleteness {
  const n = claims;
  const e = evidenced;
  const s = sourcedOnly;
  return { value: n === 0 ? null : Math.round(((e + 0.5 * s) / n) * 10000) / 10000, claims: n, evidenced: e, sourced_only: s, unsupported: n - e - s };
}

/** `claim_unsupported` holds for a live Claim neither evidenced nor sourced. */
export const claimUnsupported = (c: ClaimSupport): boolean => !c.evidenced && !c.sourced;
