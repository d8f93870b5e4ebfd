import { normaliseText, trigrams } from '../catalogue/names';

/** An alias row as the matcher needs it. */
export interface AliasCandidate {
  canonical_uid: string;
  score: number;
  /** node creation time, for "then the oldest node" */
  node_created_at: number;
}

/**
 * Find-or-create step 1 (REFERENCE §4.2): among aliases whose normalised text matches,
 * the highest alias score wins, then the oldest node, then the smaller uid.
 */
export function pickAliasMatch<T extends AliasCandidate>(candidates: T[]): T | null {
  let best: T | null = null;
  for (const c of candidates) {
    if (
      !best ||
      c.score > best.score ||
      (c.score === best.score && (c.node_created_at < best.node_created_at || (c.node_created_at === best.node_created_at && c.canonical_uid < best.canonical_uid)))
    )
      best = c;
  }
  return best;
}

/**
 * Trigram Jaccard similarity against one query, with the query's grams computed once.
 * Candidates pass already-normalised text (the read model stores `label_norm`).
 */
export class TrigramMatcher {
  readonly norm: string;
  private readonly grams: Set<string>;

  constructor(query: string) {
    this.norm = normaliseText(query);
    this.grams = trigrams(this.norm);
  }

  scoreNormalised(candidateNorm: string): number {
    if (!this.norm || !candidateNorm) return 0;
    if (candidateNorm === this.norm) return 1;
    const other = trigrams(candidateNorm);
    let inter = 0;
    for (const g of other) if (this.grams.has(g)) inter++;
    const union = this.grams.size + other.size - inter;
    return union === 0 ? 0 : inter / union;
  }

  score(text: string): number {
    return this.scoreNormalised(normaliseText(text));
  }
}

export interface FuzzyCandidateText {
  uid: string;
  /** original text, reported as `matched_text` */
  text: string;
  /** normalised text */
  norm: string;
}

export interface FuzzyMatch {
  uid: string;
  score: number;
  matched_text: string;
}

/**
 * A node's score is the best over its label and aliases; matches below `minScore` are
 * dropped (a 0 score is kept when `minScore` is 0); score descending, then uid. The label wins ties within a node when listed first.
 */
export function rankFuzzy(matcher: TrigramMatcher, texts: Iterable<FuzzyCandidateText>, minScore: number): FuzzyMatch[] {
  const best = new Map<string, FuzzyMatch>();
  for (const t of texts) {
    const s = matcher.scoreNormalised(t.norm);
    if (s < minScore) continue;
    const cur = best.get(t.uid);
    if (!cur || s > cur.score) best.set(t.uid, { uid: t.uid, score: s, matched_text: t.text });
  }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
}
