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

export function byCreatedThenUid(a: { created_at: number; uid: string }, b: { created_at: number; uid: string }): number {
  return a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

/** A finding, tension or open question as the ranking builds it (its text and citations worked out when read). */
export function structuralItem(
  work: ItemWork | undefined,
  s: ProjectSources,
  kind: BriefItemKind,
  subjects: string[],
  basis: string[],
  confidence: number | null,
  textKey: string,
  makeText: () => string,
): GeneratedItem {
  return item(work, s, briefItemId(kind, subjects), kind, subjects, basis, confidence, textKey, makeText);
}

/** A finding's and an open question's text key: the node at its version. */
export const nodeAt = (n: SourceNode): string => at(n, n.uid);

export function isTensionEdge(e: SourceEdge): boolean {
  if (e.edge_type === 'Contradicts') {
    const r = e.props.resolution_status;
    return r === undefined || r === null || r === 'unresolved';
  }
  return e.edge_type === 'Refutes' || e.edge_type === 'Rebuts';
}

/** A tension's text: both nodes' texts cut to 200 characters around the edge's verb. */
export function tensionText(a: SourceNode, edgeType: string, b: SourceNode): string {
  return `"${truncateSummary(nodeText(a), 200)}" ${TENSION_VERBS[edgeType]} "${truncateSummary(nodeText(b), 200)}"`;
}
