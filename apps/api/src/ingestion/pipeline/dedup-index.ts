import { normaliseText } from '@strata/domain/catalogue';
import { DedupDecision, decideDedup } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { TrigramMatcher } from '@strata/domain/retrieval';
import { DedupCache, FUZZY_TYPES } from './dedup-cache';

/**
 * Deduplication within one chunk's unit of work (REFERENCE §9.2): against the live nodes of the
 * same type (the cache) and the nodes this unit has created so far.
 */
export class DedupIndex {
  private readonly staged: NodeRecord[] = [];
  private readonly stagedNorms = new Map<string, string>();

  constructor(private readonly cache: DedupCache) {}

  async decide(nodeType: string, label: string): Promise<DedupDecision & { norm: string }> {
    const norm = normaliseText(label);
    if (!norm) return { action: 'create', possible_duplicate: null, norm };
    const mine = this.staged.find((n) => n.node_type === nodeType && this.stagedNorms.get(n.uid) === norm);
    if (mine) return { action: 'reuse', uid: mine.uid, similarity: 1, norm };
    const exact = await this.cache.exact(nodeType, norm);
    if (exact) return { action: 'reuse', uid: exact, similarity: 1, norm };
    if (!FUZZY_TYPES.has(nodeType)) return { action: 'create', possible_duplicate: null, norm };
    const scored = await this.cache.similar(nodeType, norm);
    const matcher = new TrigramMatcher(label);
    for (const n of this.staged) if (n.node_type === nodeType) scored.push({ candidate: { uid: n.uid, created_at: n.created_at, norms: [this.stagedNorms.get(n.uid)!] }, similarity: matcher.scoreNormalised(this.stagedNorms.get(n.uid)!) });
    const sim = new Map(scored.map((s) => [s.candidate.norms[0], s.similarity]));
    return { ...decideDedup(norm, scored.map((s) => s.candidate), (n) => sim.get(n) ?? 0), norm };
  }

  /** A node created in this unit joins the candidates. */
  added(node: NodeRecord, norm: string): void {
    this.staged.push(node);
    this.stagedNorms.set(node.uid, norm);
  }

  /** the nodes this unit created (the cache learns them once the unit committed) */
  created(): readonly NodeRecord[] {
    return this.staged;
  }
}
