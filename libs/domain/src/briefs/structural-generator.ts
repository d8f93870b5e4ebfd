import { deriveSummary, truncateSummary } from '../props/derive-summary';
import { BriefGenerator, BriefItemKind, Citation } from './brief-records';
import { briefItemId } from './brief-item-id';
import { ProjectSources, SourceEdge, SourceNode, compareCitations, nodeCitations } from './project-sources';

/** An item as a generator produces it, before pins, corrections and ranks (§12.4). */
export interface GeneratedItem {
  id: string;
  kind: BriefItemKind;
  generated_text: string;
  subject_uids: string[];
  basis_uids: string[];
  citations: Citation[];
  confidence: number | null;
  origin: BriefGenerator;
}

/** Per kind, at most this many generated items reach a version (pins come on top). */
export const GENERATED_CAP = 20;
export const MAX_ITEM_CITATIONS = 10;

const TENSION_VERBS: Readonly<Record<string, string>> = { Contradicts: 'contradicts', Refutes: 'refutes', Rebuts: 'rebuts' };

/** `text(n)`: the §2.7 derivation over the node's current props, cut to 500 characters. */
export function nodeText(n: SourceNode): string {
  return deriveSummary(n.props, n.label);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The basis nodes' citations, ordered, at most 10. */
export function citationsOfBasis(s: ProjectSources, basis: readonly string[]): Citation[] {
  const all: Citation[] = [];
  for (const u of basis) all.push(...nodeCitations(s, u));
  return all.sort(compareCitations).slice(0, MAX_ITEM_CITATIONS);
}

/**
 * A candidate whose text and citations are worked out when first read. Every candidate is
 * ranked, but only the capped few (and pinned ones) reach a version: anchoring quotes for
 * thousands of candidates nobody keeps was most of a regeneration. Consumers read the fields by
 * name (the composer, the model material), never by spreading the object.
 */
class StructuralItem implements GeneratedItem {
  readonly origin = 'structural' as const;
  private text?: string;
  private cited?: Citation[];

  constructor(
    readonly id: string,
    readonly kind: BriefItemKind,
    readonly subject_uids: string[],
    readonly basis_uids: string[],
    readonly confidence: number | null,
    private readonly makeText: () => string,
    private readonly makeCitations: () => Citation[],
  ) {}

  get generated_text(): string {
    return (this.text ??= this.makeText());
  }

  get citations(): Citation[] {
    return (this.cited ??= this.makeCitations());
  }
}

function byCreatedThenUid(a: { created_at: number; uid: string }, b: { created_at: number; uid: string }): number {
  return a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

/**
 * The structural generator: deterministic, no model. Returns every candidate of each kind in
 * generator order, uncapped (the version applies the caps after setting pins aside).
 */
export function structuralCandidates(s: ProjectSources): GeneratedItem[] {
  const supportsTo = new Map<string, SourceEdge[]>();
  for (const e of s.edges)
    if (e.edge_type === 'Supports') {
      let l = supportsTo.get(e.to_uid);
      if (!l) supportsTo.set(e.to_uid, (l = []));
      l.push(e);
    }
  const support = (u: string) => supportsTo.get(u)?.length ?? 0;
  const docsOf = (u: string) => {
    const docs = new Set<string>();
    for (const x of s.extractions.get(u) ?? []) {
      const c = s.chunks.get(x.chunk_uid);
      if (c) docs.add(c.document_uid);
    }
    return docs.size;
  };
  return [...findings(s, support, docsOf, supportsTo), ...tensions(s), ...openQuestions(s, support)];
}

function findings(s: ProjectSources, support: (u: string) => number, docsOf: (u: string) => number, supportsTo: Map<string, SourceEdge[]>): GeneratedItem[] {
  const cands: { n: SourceNode; score: number }[] = [];
  for (const n of s.nodes.values()) {
    const sup = support(n.uid);
    const docs = docsOf(n.uid);
    const isFinding =
      (n.node_type === 'Claim' && (sup >= 1 || docs >= 2)) || (n.node_type === 'Hypothesis' && str(n.props.status) === 'confirmed');
    if (isFinding) cands.push({ n, score: sup + docs + n.confidence });
  }
  cands.sort((a, b) => b.score - a.score || byCreatedThenUid(a.n, b.n));
  return cands.map(({ n }) => {
    const basis = [n.uid, ...[...new Set((supportsTo.get(n.uid) ?? []).map((e) => e.from_uid))].filter((u) => u !== n.uid).sort()];
    return new StructuralItem(briefItemId('finding', [n.uid]), 'finding', [n.uid], basis, n.confidence, () => nodeText(n), () => citationsOfBasis(s, basis));
  });
}

function isTensionEdge(e: SourceEdge): boolean {
  if (e.edge_type === 'Contradicts') {
    const r = e.props.resolution_status;
    return r === undefined || r === null || r === 'unresolved';
  }
  return e.edge_type === 'Refutes' || e.edge_type === 'Rebuts';
}

function tensions(s: ProjectSources): GeneratedItem[] {
  const oldest = new Map<string, SourceEdge>();
  for (const e of s.edges) {
    if (!isTensionEdge(e) || e.from_uid === e.to_uid) continue;
    const key = [e.from_uid, e.to_uid].sort().join('\n');
    const prev = oldest.get(key);
    if (!prev || byCreatedThenUid(e, prev) < 0) oldest.set(key, e);
  }
  const items: { item: GeneratedItem; sum: number; edge: SourceEdge }[] = [];
  for (const e of oldest.values()) {
    const a = s.nodes.get(e.from_uid)!;
    const b = s.nodes.get(e.to_uid)!;
    const subjects = [a.uid, b.uid].sort();
    const item = new StructuralItem(
      briefItemId('tension', subjects),
      'tension',
      subjects,
      subjects,
      Math.min(a.confidence, b.confidence),
      () => `"${truncateSummary(nodeText(a), 200)}" ${TENSION_VERBS[e.edge_type]} "${truncateSummary(nodeText(b), 200)}"`,
      () => citationsOfBasis(s, subjects),
    );
    items.push({ item, sum: a.confidence + b.confidence, edge: e });
  }
  items.sort((x, y) => y.sum - x.sum || byCreatedThenUid(x.edge, y.edge) || (x.item.id < y.item.id ? -1 : x.item.id > y.item.id ? 1 : 0));
  return items.map((x) => x.item);
}

function openQuestions(s: ProjectSources, support: (u: string) => number): GeneratedItem[] {
  const cands: { n: SourceNode; question: boolean; importance: number | null }[] = [];
  for (const n of s.nodes.values()) {
    const status = n.props.status;
    if ((n.node_type === 'Question' || n.node_type === 'OpenQuestion') && (status === undefined || status === null || status === 'open'))
      cands.push({ n, question: true, importance: num(n.props.importance) });
    else if (n.node_type === 'Hypothesis' && (status === undefined || status === null || status === 'proposed' || status === 'testing') && support(n.uid) < 2)
      cands.push({ n, question: false, importance: num(n.props.importance) });
  }
  cands.sort((a, b) => {
    if (a.question !== b.question) return a.question ? -1 : 1;
    if (a.importance !== b.importance) {
      if (a.importance === null) return 1;
      if (b.importance === null) return -1;
      return b.importance - a.importance;
    }
    return byCreatedThenUid(a.n, b.n);
  });
  return cands.map(({ n }) => new StructuralItem(briefItemId('open_question', [n.uid]), 'open_question', [n.uid], [n.uid], null, () => nodeText(n), () => citationsOfBasis(s, [n.uid])));
}
