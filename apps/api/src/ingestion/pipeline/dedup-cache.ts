import { ENTITY_NODE_TYPE_NAMES, normaliseText, trigrams } from '@strata/domain/catalogue';
import { DedupCandidate } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { readModelMembership, spacedNodes } from '@strata/platform/scope/space-membership';

// entity-like types are matched fuzzily; statement-like ones (Claim, Event, Goal…) are whole
// sentences, where a near match is a different statement: those match on exact text only
export const FUZZY_TYPES: ReadonlySet<string> = new Set(ENTITY_NODE_TYPE_NAMES.filter((t) => t !== 'Event'));

const NO_GRAMS: ReadonlySet<string> = new Set();
const NO_OWNERS: AliasOwner[] = [];

interface AliasOwner {
  uid: string;
  created_at: number;
  node_type: string;
}

interface Entry {
  uid: string;
  created_at: number;
  norm: string;
  grams: number;
}

/**
 * The live nodes of one type, by normalised label, with a trigram index for fuzzy matching
 * when the type is matched fuzzily (sentence-like types match on exact text only: their long
 * labels are not cut into trigrams nobody reads).
 */
export class TypeIndex {
  readonly byNorm = new Map<string, Entry>();
  readonly entries: Entry[] = [];
  private readonly byGram = new Map<string, number[]>();

  constructor(readonly fuzzy: boolean) {}

  static of(type: string): TypeIndex {
    return new TypeIndex(FUZZY_TYPES.has(type));
  }

  add(uid: string, created_at: number, norm: string): void {
    if (!norm) return;
    const cur = this.byNorm.get(norm);
    if (!cur || created_at < cur.created_at || (created_at === cur.created_at && uid < cur.uid)) {
      const grams = this.fuzzy ? trigrams(norm) : NO_GRAMS;
      const entry: Entry = { uid, created_at, norm, grams: grams.size };
      if (!cur) {
        const i = this.entries.push(entry) - 1;
        for (const g of grams) {
          const list = this.byGram.get(g);
          if (list) list.push(i);
          else this.byGram.set(g, [i]);
        }
      } else Object.assign(cur, entry);
      this.byNorm.set(norm, cur ?? entry);
    }
  }

  /** Every entry sharing a trigram with `norm`, with its §4.2 trigram Jaccard similarity. */
  similar(norm: string): { candidate: DedupCandidate; similarity: number }[] {
    if (!this.fuzzy) return [];
    const q = trigrams(norm);
    const shared = new Map<number, number>();
    for (const g of q) for (const i of this.byGram.get(g) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    const out: { candidate: DedupCandidate; similarity: number }[] = [];
    for (const [i, inter] of shared) {
      const e = this.entries[i];
      out.push({ candidate: { uid: e.uid, created_at: e.created_at, norms: [e.norm] }, similarity: inter / (q.size + e.grams - inter) });
    }
    return out;
  }
}

/**
 * What deduplication compares extracted nodes with (REFERENCE §9.2): the live nodes of each
 * type, loaded once per type and kept current with what this ingestion commits, so a job does
 * not scan the graph again for every chunk. Aliases are looked up once per normalised label.
 * One per `/ingest/chunk` request, or per job: a job's chunks commit one after another.
 * Only nodes in exactly the Spaces the ingestion places its nodes in are candidates
 * (REFERENCE §13.1): none for unplaced material, the one Space otherwise.
 */
export class DedupCache {
  private readonly types = new Map<string, Promise<TypeIndex>>();
  private spaced: Promise<Map<string, { spaces: readonly string[] }>> | null = null;
  /**
   * Alias owners by norm, like the types' labels read once: a document's names recur in
   * chunk after chunk, and extraction itself never adds an alias.
   */
  private readonly aliasOwners = new Map<string, AliasOwner[]>();
  /**
   * The norms the organization has aliases for, read in one query per job when aliases are
   * kept: most extracted labels (every sentence of a Claim or an Event) have none, and need no
   * look-up of their own.
   */
  private aliasNorms: Promise<Set<string>> | null = null;
  /** the same, once read: a look-up then awaits nothing (it runs for every extracted node) */
  private aliasNormsRead: Set<string> | null = null;
  private readonly typesRead = new Map<string, TypeIndex>();

  constructor(
    private readonly graph: GraphReadModel,
    private readonly org: string,
    /** the Space the ingestion places its nodes in, or null */
    private readonly placement: string | null = null,
    /** false when the ingestion writes aliases itself (the ontology pass's objects): each look-up reads them afresh */
    private readonly keepAliases = true,
  ) {}

  /** whether a node lives in exactly the placement's Spaces */
  private async inPlacement(uid: string): Promise<boolean> {
    this.spaced ??= spacedNodes(readModelMembership(this.graph, this.org));
    const spaces = (await this.spaced).get(uid)?.spaces ?? [];
    return this.placement === null ? spaces.length === 0 : spaces.length === 1 && spaces[0] === this.placement;
  }

  private index(type: string): Promise<TypeIndex> {
    let p = this.types.get(type);
    if (!p) {
      p = (async () => {
        const idx = TypeIndex.of(type);
        const page = await this.graph.listNodes(this.org, { node_types: [type] }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
        for (const n of page.items) if (await this.inPlacement(n.uid)) idx.add(n.uid, n.created_at, normaliseText(n.label));
        this.typesRead.set(type, idx);
        return idx;
      })();
      this.types.set(type, p);
    }
    return p;
  }

  /** The oldest live node of the type whose label or an alias normalises to `norm`. */
  async exact(type: string, norm: string): Promise<string | null> {
    const byLabel = (this.typesRead.get(type) ?? (await this.index(type))).byNorm.get(norm) ?? null;
    let owners = this.keepAliases ? this.aliasOwners.get(norm) : undefined;
    if (this.keepAliases && !owners) {
      const has = this.hasAliases(norm);
      if (!(typeof has === 'boolean' ? has : await has)) owners = NO_OWNERS;
    }
    owners ??= await this.readAliasOwners(norm);
    if (owners.length === 0) return byLabel?.uid ?? null;
    let best: { uid: string; created_at: number } | null = byLabel;
    for (const n of owners) {
      if (n.node_type !== type) continue;
      if (!best || n.created_at < best.created_at || (n.created_at === best.created_at && n.uid < best.uid)) best = n;
    }
    return best?.uid ?? null;
  }

  private hasAliases(norm: string): boolean | Promise<boolean> {
    if (this.aliasNormsRead) return this.aliasNormsRead.has(norm);
    this.aliasNorms ??= this.graph.allAliases(this.org).then((all) => (this.aliasNormsRead = new Set(all.map((a) => a.norm))));
    return this.aliasNorms.then((norms) => norms.has(norm));
  }

  /** The live nodes in the placement that own an alias normalising to `norm`, read once per norm. */
  private async readAliasOwners(norm: string): Promise<AliasOwner[]> {
    const aliases = await this.graph.aliasesByNorm(this.org, norm);
    const out: AliasOwner[] = [];
    if (aliases.length > 0) {
      const nodes = await this.graph.getNodes(this.org, aliases.map((a) => a.canonical_uid));
      for (const a of aliases) {
        const n = nodes.get(a.canonical_uid);
        if (n && n.tombstone_at === null && (await this.inPlacement(n.uid))) out.push({ uid: n.uid, created_at: n.created_at, node_type: n.node_type });
      }
    }
    this.aliasOwners.set(norm, out);
    return out;
  }

  async similar(type: string, norm: string): Promise<{ candidate: DedupCandidate; similarity: number }[]> {
    return (await this.index(type)).similar(norm);
  }

  /** Nodes a committed unit created (with their normalised labels) join their types' indexes. */
  async remember(created: readonly { node: NodeRecord; norm: string }[]): Promise<void> {
    for (const { node: n, norm } of created) if (this.types.has(n.node_type)) (await this.index(n.node_type)).add(n.uid, n.created_at, norm);
  }
}
