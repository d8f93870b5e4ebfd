import { ProjectSources, SourceEdge, SourceNode } from './project-sources';
import { GeneratedItem, ItemWork, byCreatedThenUid, isTensionEdge, nodeAt, nodeText, structuralItem, tensionText } from './structural-generator';
import { lowerBound } from './lower-bound';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const TENSION_TYPES = new Set(['Contradicts', 'Refutes', 'Rebuts']);
const pairKey = (a: string, b: string) => (a < b ? `${a}\n${b}` : `${b}\n${a}`);

interface Finding {
  n: SourceNode;
  score: number;
  item: GeneratedItem;
}

interface Tension {
  edge: SourceEdge;
  sum: number;
  item: GeneratedItem;
}

interface Question {
  n: SourceNode;
  question: boolean;
  importance: number | null;
  item: GeneratedItem;
}

const byFinding = (a: Finding, b: Finding) => b.score - a.score || byCreatedThenUid(a.n, b.n);
const byTension = (x: Tension, y: Tension) => y.sum - x.sum || byCreatedThenUid(x.edge, y.edge) || (x.item.id < y.item.id ? -1 : x.item.id > y.item.id ? 1 : 0);
function byQuestion(a: Question, b: Question): number {
  if (a.question !== b.question) return a.question ? -1 : 1;
  if (a.importance !== b.importance) {
    if (a.importance === null) return 1;
    if (b.importance === null) return -1;
    return b.importance - a.importance;
  }
  return byCreatedThenUid(a.n, b.n);
}


function insertSorted<T>(list: T[], x: T, cmp: (a: T, b: T) => number): void {
  list.splice(lowerBound(list, x, cmp), 0, x);
}

function removeSorted<T>(list: T[], x: T, cmp: (a: T, b: T) => number): void {
  const i = lowerBound(list, x, cmp);
  // the orders are total, so the entry sits at its bound; the scan only guards a broken invariant
  const at = list[i] === x ? i : list.indexOf(x);
  if (at >= 0) list.splice(at, 1);
}

function addTo<K, V>(m: Map<K, Map<string, V>>, k: K, id: string, v: V): void {
  let inner = m.get(k);
  if (!inner) m.set(k, (inner = new Map()));
  inner.set(id, v);
}

function removeFrom<K, V>(m: Map<K, Map<string, V>>, k: K, id: string): void {
  const inner = m.get(k);
  if (!inner) return;
  inner.delete(id);
  if (!inner.size) m.delete(k);
}

/** What changed in the sources since the ranking last saw them. */
export interface RankingChanges {
  /** nodes whose facts, version, membership, extractions, or extraction chunks and documents changed */
  nodes: Iterable<string>;
  /** Edges(P) that left, entered or changed: the edge as it was (absent: it entered) and as it is (absent: it left) */
  edges: Iterable<{ before?: SourceEdge; after?: SourceEdge }>;
}

/**
 * The structural generator's ranking (REFERENCE §12.4), kept across changes: findings by support,
 * documents and confidence, tensions by their nodes' confidence, open questions by importance.
 * The inputs are indexed (Supports edges by target and source, tension edges by node pair), so a
 * change re-ranks only the items it can move: a node's finding and open question, the findings
 * it supports (their basis cites it) and the tensions it is part of, each removed and inserted by
 * binary search. Built once, it gives what a fresh ranking of the same sources gives, item for
 * item (the orders are total).
 */
export class StructuralRanking {
  /** Supports edges of Edges(P) by target, then by edge uid */
  private readonly supportsTo = new Map<string, Map<string, SourceEdge>>();
  /** Supports edges of Edges(P) by source, then by edge uid */
  private readonly supportsFrom = new Map<string, Map<string, SourceEdge>>();
  /** Contradicts, Refutes and Rebuts edges between two distinct nodes, by node pair */
  private readonly tensionEdges = new Map<string, Map<string, SourceEdge>>();
  /** the node pairs each node has tension edges in */
  private readonly pairsOf = new Map<string, Map<string, string>>();
  private readonly findings: Finding[] = [];
  private readonly tensions: Tension[] = [];
  private readonly questions: Question[] = [];
  private readonly findingOf = new Map<string, Finding>();
  private readonly tensionOf = new Map<string, Tension>();
  private readonly questionOf = new Map<string, Question>();
  private list?: GeneratedItem[];

  constructor(
    private readonly s: ProjectSources,
    private readonly work?: ItemWork,
  ) {
    for (const e of s.edges) this.indexEdge(e);
    for (const n of s.nodes.values()) {
      const f = this.finding(n);
      if (f) this.findings.push(f), this.findingOf.set(n.uid, f);
      const q = this.question(n);
      if (q) this.questions.push(q), this.questionOf.set(n.uid, q);
    }
    for (const k of this.tensionEdges.keys()) {
      const t = this.tension(k);
      if (t) this.tensions.push(t), this.tensionOf.set(k, t);
    }
    this.findings.sort(byFinding);
    this.tensions.sort(byTension);
    this.questions.sort(byQuestion);
  }

  /** Every candidate of each kind in generator order, uncapped: findings, tensions, open questions. */
  candidates(): GeneratedItem[] {
    return (this.list ??= [...this.findings.map((f) => f.item), ...this.tensions.map((t) => t.item), ...this.questions.map((q) => q.item)]);
  }

  /** Re-ranks what the changes can move; the sources must already hold them. */
  update(changes: RankingChanges): void {
    const dirty = new Set(changes.nodes);
    const pairs = new Set<string>();
    for (const { before, after } of changes.edges) {
      for (const e of [before, after]) {
        if (!e) continue;
        dirty.add(e.from_uid);
        dirty.add(e.to_uid);
        if (TENSION_TYPES.has(e.edge_type) && e.from_uid !== e.to_uid) pairs.add(pairKey(e.from_uid, e.to_uid));
      }
      if (before) this.unindexEdge(before);
      if (after) this.indexEdge(after);
    }
    // a finding's basis cites the nodes supporting it: their changes are its changes
    const findings = new Set(dirty);
    for (const u of dirty) {
      for (const e of this.supportsFrom.get(u)?.values() ?? []) findings.add(e.to_uid);
      for (const k of this.pairsOf.get(u)?.keys() ?? []) pairs.add(k);
    }
    for (const u of findings) {
      const old = this.findingOf.get(u);
      if (old) removeSorted(this.findings, old, byFinding), this.findingOf.delete(u);
      const n = this.s.nodes.get(u);
      const f = n && this.finding(n);
      if (f) insertSorted(this.findings, f, byFinding), this.findingOf.set(u, f);
    }
    for (const u of dirty) {
      const old = this.questionOf.get(u);
      if (old) removeSorted(this.questions, old, byQuestion), this.questionOf.delete(u);
      const n = this.s.nodes.get(u);
      const q = n && this.question(n);
      if (q) insertSorted(this.questions, q, byQuestion), this.questionOf.set(u, q);
    }
    for (const k of pairs) {
      const old = this.tensionOf.get(k);
      if (old) removeSorted(this.tensions, old, byTension), this.tensionOf.delete(k);
      const t = this.tension(k);
      if (t) insertSorted(this.tensions, t, byTension), this.tensionOf.set(k, t);
    }
    this.list = undefined;
  }

  private indexEdge(e: SourceEdge): void {
    if (e.edge_type === 'Supports') {
      addTo(this.supportsTo, e.to_uid, e.uid, e);
      addTo(this.supportsFrom, e.from_uid, e.uid, e);
    } else if (TENSION_TYPES.has(e.edge_type) && e.from_uid !== e.to_uid) {
      const k = pairKey(e.from_uid, e.to_uid);
      addTo(this.tensionEdges, k, e.uid, e);
      addTo(this.pairsOf, e.from_uid, k, k);
      addTo(this.pairsOf, e.to_uid, k, k);
    }
  }

  private unindexEdge(e: SourceEdge): void {
    if (e.edge_type === 'Supports') {
      removeFrom(this.supportsTo, e.to_uid, e.uid);
      removeFrom(this.supportsFrom, e.from_uid, e.uid);
    } else if (TENSION_TYPES.has(e.edge_type) && e.from_uid !== e.to_uid) {
      const k = pairKey(e.from_uid, e.to_uid);
      removeFrom(this.tensionEdges, k, e.uid);
      if (!this.tensionEdges.has(k)) {
        removeFrom(this.pairsOf, e.from_uid, k);
        removeFrom(this.pairsOf, e.to_uid, k);
      }
    }
  }

  private support(u: string): number {
    return this.supportsTo.get(u)?.size ?? 0;
  }

  private docsOf(u: string): number {
    const docs = new Set<string>();
    for (const x of this.s.extractions.get(u) ?? []) {
      const c = this.s.chunks.get(x.chunk_uid);
      if (c) docs.add(c.document_uid);
    }
    return docs.size;
  }

  private finding(n: SourceNode): Finding | null {
    const sup = this.support(n.uid);
    const docs = this.docsOf(n.uid);
    const isFinding = (n.node_type === 'Claim' && (sup >= 1 || docs >= 2)) || (n.node_type === 'Hypothesis' && str(n.status) === 'confirmed');
    if (!isFinding) return null;
    const supporters = new Set<string>();
    for (const e of this.supportsTo.get(n.uid)?.values() ?? []) if (e.from_uid !== n.uid) supporters.add(e.from_uid);
    const basis = [n.uid, ...[...supporters].sort()];
    return { n, score: sup + docs + n.confidence, item: structuralItem(this.work, this.s, 'finding', [n.uid], basis, n.confidence, nodeAt(n), () => nodeText(n)) };
  }

  private question(n: SourceNode): Question | null {
    const status = n.status;
    let question: boolean;
    if ((n.node_type === 'Question' || n.node_type === 'OpenQuestion') && (status === undefined || status === null || status === 'open')) question = true;
    else if (n.node_type === 'Hypothesis' && (status === undefined || status === null || status === 'proposed' || status === 'testing') && this.support(n.uid) < 2) question = false;
    else return null;
    return { n, question, importance: n.importance, item: structuralItem(this.work, this.s, 'open_question', [n.uid], [n.uid], null, nodeAt(n), () => nodeText(n)) };
  }

  /** The pair's tension: its oldest tension edge, if any still is one. */
  private tension(k: string): Tension | null {
    let oldest: SourceEdge | null = null;
    for (const e of this.tensionEdges.get(k)?.values() ?? []) if (isTensionEdge(e) && (!oldest || byCreatedThenUid(e, oldest) < 0)) oldest = e;
    if (!oldest) return null;
    const e = oldest;
    const a = this.s.nodes.get(e.from_uid);
    const b = this.s.nodes.get(e.to_uid);
    // Edges(P) joins admitted nodes only; a change still on its way has both ends dirty
    if (!a || !b) return null;
    const subjects = [a.uid, b.uid].sort();
    const item = structuralItem(this.work, this.s, 'tension', subjects, subjects, Math.min(a.confidence, b.confidence), `${nodeAt(a)} ${e.edge_type} ${nodeAt(b)}`, () =>
      tensionText(a, e.edge_type, b),
    );
    return { edge: e, sum: a.confidence + b.confidence, item };
  }
}

/**
 * The structural generator: deterministic, no model. Returns every candidate of each kind in
 * generator order, uncapped (the version applies the caps after setting pins aside).
 */
export function structuralCandidates(s: ProjectSources, work?: ItemWork): GeneratedItem[] {
  return new StructuralRanking(s, work).candidates();
}
