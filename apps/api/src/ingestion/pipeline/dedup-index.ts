import { ENTITY_NODE_TYPE_NAMES, normaliseText } from '@strata/domain/catalogue';
import { DedupCandidate, DedupDecision, decideDedup } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { TrigramMatcher } from '@strata/domain/retrieval';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

// entity-like types are matched fuzzily; statement-like ones (Claim, Event, Goal…) are whole
// sentences, where a near match is a different statement: those match on exact text only
const FUZZY_TYPES = new Set(ENTITY_NODE_TYPE_NAMES.filter((t) => t !== 'Event'));

/**
 * Deduplication against live nodes of the same type (REFERENCE §9.2), within one chunk's unit
 * of work: the graph as committed, plus the nodes this unit has created so far.
 */
export class DedupIndex {
  private readonly byType = new Map<string, DedupCandidate[]>();

  constructor(private readonly tx: GraphTx) {}

  async decide(nodeType: string, label: string): Promise<DedupDecision & { norm: string }> {
    const norm = normaliseText(label);
    if (!norm) return { action: 'create', possible_duplicate: null, norm };
    const exact = await this.exact(nodeType, norm);
    if (exact) return { action: 'reuse', uid: exact, similarity: 1, norm };
    if (!FUZZY_TYPES.has(nodeType)) {
      const staged = (this.byType.get(nodeType) ?? []).find((c) => c.norms.includes(norm));
      return staged ? { action: 'reuse', uid: staged.uid, similarity: 1, norm } : { action: 'create', possible_duplicate: null, norm };
    }
    const matcher = new TrigramMatcher(label);
    return { ...decideDedup(norm, await this.candidates(nodeType), (n) => matcher.scoreNormalised(n)), norm };
  }

  /** A node created in this unit joins the candidates of its type. */
  added(node: NodeRecord, norm: string): void {
    const list = this.byType.get(node.node_type) ?? [];
    list.push({ uid: node.uid, created_at: node.created_at, norms: [norm] });
    this.byType.set(node.node_type, list);
  }

  /** An exact alias or label match among live committed nodes of the type: the oldest. */
  private async exact(nodeType: string, norm: string): Promise<string | null> {
    const tx = this.tx;
    const aliases = await tx.reader.aliasesByNorm(tx.org, norm);
    const owners = await tx.reader.getNodes(tx.org, aliases.map((a) => a.canonical_uid));
    const matches: NodeRecord[] = [];
    for (const a of aliases) {
      const n = owners.get(a.canonical_uid);
      if (n && n.tombstone_at === null && n.node_type === nodeType) matches.push(n);
    }
    const byLabel = await tx.reader.listNodes(tx.org, { node_types: [nodeType], label_norm: norm }, { limit: 1, offset: 0 }, 'created_asc');
    matches.push(...byLabel.items);
    matches.sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : 1));
    return matches[0]?.uid ?? null;
  }

  private async candidates(nodeType: string): Promise<DedupCandidate[]> {
    let list = this.byType.get(nodeType);
    if (!list || !this.loaded.has(nodeType)) {
      const page = await this.tx.reader.listNodes(this.tx.org, { node_types: [nodeType] }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
      const committed = page.items.map((n) => ({ uid: n.uid, created_at: n.created_at, norms: [normaliseText(n.label)] }));
      list = [...committed, ...(list ?? [])];
      this.byType.set(nodeType, list);
      this.loaded.add(nodeType);
    }
    return list;
  }

  private readonly loaded = new Set<string>();
}
