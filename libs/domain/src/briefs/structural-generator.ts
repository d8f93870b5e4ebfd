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

/**
 * Where a caller keeps the text and citations worked out for items, across regenerations:
 * `key` names everything they were worked out from (the item, and the uid and version of each
 * node, extraction edge, chunk and document read), so a hit is what `make` would give again.
 */
export interface ItemWork {
  get<T>(key: string, make: () => T): T;
}

const at = (x: { uid: string; version: number } | undefined, uid: string) => `${uid}@${x ? x.version : '-'}`;

/** What a node's citations are worked out from: the node, its extractions, their chunks and documents. */
function citationKey(s: ProjectSources, basis: readonly string[]): string {
  const parts: string[] = [];
  for (const u of basis) {
    parts.push(at(s.nodes.get(u), u));
    for (const x of s.extractions.get(u) ?? []) {
      const c = s.chunks.get(x.chunk_uid);
      parts.push(`${x.edge_uid}@${x.edge_version}`, at(c, x.chunk_uid));
      if (c) parts.push(at(s.documents.get(c.document_uid), c.document_uid));
    }
  }
  return parts.join(' ');
}

function item(
  work: ItemWork | undefined,
  s: ProjectSources,
  id: string,
  kind: BriefItemKind,
  subjects: string[],
  basis: string[],
  confidence: number | null,
  textKey: string,
  makeText: () => string,
): StructuralItem {
  const cite = () => citationsOfBasis(s, basis);
  if (!work) return new StructuralItem(id, kind, subjects, basis, confidence, makeText, cite);
  return new StructuralItem(
    id,
    kind,
    subjects,
    basis,
    confidence,
    () => work.get(`t ${id} ${textKey}`, makeText),
    () => work.get(`c ${id} ${citationKey(s, basis)}`, cite),
  );
}

function byCreatedThenUid(a: { created_at: number; uid: string }, b: { created_at: number; uid: string }): number {
  return a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

/**
 * The structural generator: deterministic, no model. Returns every candidate of each kind in
 * generator order, uncapped (the version applies the caps after setting pins aside).
 */
export function structuralCandidates(s: ProjectSources, work?: ItemWork): GeneratedItem[] {
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
  return [...findings(s, support, docsOf, supportsTo, work), ...tensions(s, work), ...openQuestions(s, support, work)];
}

function findings(s: ProjectSources, support: (u: string) => number, docsOf: (u: string) => number, supportsTo: Map<string, SourceEdge[]>, work?: ItemWork): GeneratedItem[] {
  const cands: { n: SourceNode; score: number }[] = [];
  for (const n of s.nodes.values()) {
    const sup = support(n.uid);
    const docs = docsOf(n.uid);
    const isFinding =
      (n.node_type === 'Claim' && (sup >= 1 || docs >= 2)) || (n.node_type === 'Hypothesis' && str(n.status) === 'confirmed');
    if (isFinding) cands.push({ n, score: sup + docs + n.confidence });
  }
  cands.sort((a, b) => b.score - a.score || byCreatedThenUid(a.n, b.n));
  return cands.map(({ n }) => {
    const basis = [n.uid, ...[...new Set((supportsTo.get(n.uid) ?? []).map((e) => e.from_uid))].filter((u) => u !== n.uid).sort()];
    return item(work, s, briefItemId('finding', [n.uid]), 'finding', [n.uid], basis, n.confidence, at(n, n.uid), () => nodeText(n));
  });
}

function isTensionEdge(e: SourceEdge): boolean {
  if (e.edge_type === 'Contradicts') {
    const r = e.props.resolution_status;
    return r === undefined || r === null || r === 'unresolved';
  }
  return e.edge_type === 'Refutes' || e.edge_type === 'Rebuts';
}

function tensions(s: ProjectSources, work?: ItemWork): GeneratedItem[] {
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
    const t = item(
      work,
      s,
      briefItemId('tension', subjects),
      'tension',
      subjects,
      subjects,
      Math.min(a.confidence, b.confidence),
      `${at(a, a.uid)} ${e.edge_type} ${at(b, b.uid)}`,
      () => `"${truncateSummary(nodeText(a), 200)}" ${TENSION_VERBS[e.edge_type]} "${truncateSummary(nodeText(b), 200)}"`,
    );
    items.push({ item: t, sum: a.confidence + b.confidence, edge: e });
  }
  items.sort((x, y) => y.sum - x.sum || byCreatedThenUid(x.edge, y.edge) || (x.item.id < y.item.id ? -1 : x.item.id > y.item.id ? 1 : 0));
  return items.map((x) => x.item);
}

function openQuestions(s: ProjectSources, support: (u: string) => number, work?: ItemWork): GeneratedItem[] {
  const cands: { n: SourceNode; question: boolean; importance: number | null }[] = [];
  for (const n of s.nodes.values()) {
    const status = n.status;
    if ((n.node_type === 'Question' || n.node_type === 'OpenQuestion') && (status === undefined || status === null || status === 'open'))
      cands.push({ n, question: true, importance: n.importance });
    else if (n.node_type === 'Hypothesis' && (status === undefined || status === null || status === 'proposed' || status === 'testing') && support(n.uid) < 2)
      cands.push({ n, question: false, importance: n.importance });
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
  return cands.map(({ n }) => item(work, s, briefItemId('open_question', [n.uid]), 'open_question', [n.uid], [n.uid], null, at(n, n.uid), () => nodeText(n)));
}
