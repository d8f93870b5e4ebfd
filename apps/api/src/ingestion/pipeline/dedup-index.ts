import { normaliseText } from '@strata/domain/catalogue';
import { DedupDecision, decideDedup } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { DedupCache, FUZZY_TYPES, TypeIndex } from './dedup-cache';

/**
 * Deduplication within one unit of work (REFERENCE §9.2): against the live nodes of the same
 * type (the cache) and the nodes this unit has created so far (indexed the same way, so a
 * unit of several chunks does not compare each new node with every one before it).
 */
export class DedupIndex {
  private readonly staged: { node: NodeRecord; norm: string }[] = [];
  private readonly stagedByType = new Map<string, TypeIndex>();
  /** existing nodes this unit reuses, as read through its transaction (a node named by eight chunks is read once) */
  private readonly reused = new Map<string, NodeRecord | null>();

  constructor(
    private readonly cache: DedupCache,
    /** false when something else in the unit (the ontology pass) may change the nodes extraction reuses */
    private readonly keepReads = true,
  ) {}

  /** `known` is the label's normalisation when the extractor already computed it. */
  async decide(nodeType: string, label: string, known?: string): Promise<DedupDecision & { norm: string }> {
    const norm = known ?? normaliseText(label);
    if (!norm) return { action: 'create', possible_duplicate: null, norm };
    const mine = this.stagedByType.get(nodeType);
    const own = mine?.byNorm.get(norm);
    if (own) return { action: 'reuse', uid: own.uid, similarity: 1, norm };
    const exact = await this.cache.exact(nodeType, norm);
    if (exact) return { action: 'reuse', uid: exact, similarity: 1, norm };
    if (!FUZZY_TYPES.has(nodeType)) return { action: 'create', possible_duplicate: null, norm };
    const scored = await this.cache.similar(nodeType, norm);
    if (mine) scored.push(...mine.similar(norm));
    const sim = new Map(scored.map((s) => [s.candidate.norms[0], s.similarity]));
    return { ...decideDedup(norm, scored.map((s) => s.candidate), (n) => sim.get(n) ?? 0), norm };
  }

  /**
   * An existing node to reuse, read through the unit's transaction once: extraction only links
   * to it, so a second read in the same unit would give the same record.
   */
  async read(tx: GraphTx, uid: string): Promise<NodeRecord | null> {
    if (!this.keepReads) return tx.node(uid);
    if (this.reused.has(uid)) return this.reused.get(uid)!;
    const n = await tx.node(uid);
    this.reused.set(uid, n);
    return n;
  }

  /** A node created in this unit joins the candidates. */
  added(node: NodeRecord, norm: string): void {
    this.staged.push({ node, norm });
    let idx = this.stagedByType.get(node.node_type);
    if (!idx) this.stagedByType.set(node.node_type, (idx = TypeIndex.of(node.node_type)));
    idx.add(node.uid, node.created_at, norm);
  }

  /** the nodes this unit created, with their normalised labels (the cache learns them once the unit committed) */
  created(): readonly { node: NodeRecord; norm: string }[] {
    return this.staged;
  }
}
