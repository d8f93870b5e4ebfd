import { clusterClaims } from './claim-clusters';
import { ProjectCorpus, byLabelThenUid, claimsByTarget } from './project-corpus';
import { SignalsQuery, SynthesisSignal } from './signal-request';

/** The edges that put two project nodes in tension (§10 `dialectical_pairs`, hub `tension`). */
export const DIALECTICAL_EDGE_TYPES: readonly string[] = Object.freeze(['Contradicts', 'Refutes', 'Rebuts']);

export interface DocumentSignal {
  uid: string;
  label: string;
}
export interface EntityBridge {
  uid: string;
  label: string;
  node_type: string;
  doc_count: number;
}
export interface ClaimHub {
  target_uid: string;
  target_label: string;
  target_type: string;
  claim_count: number;
}
export interface RankedClaimHub extends ClaimHub {
  distinct_doc_count: number;
  project_doc_count: number;
  dialectical_count: number;
  score: number;
  breadth_score: number;
  tension_score: number;
  density_score: number;
}
export interface TheorySupportGap {
  uid: string;
  label: string;
  node_type: string;
  support_count: number;
}
export interface ConceptCluster {
  uid: string;
  label: string;
  doc_count: number;
}
export interface AnalogyCandidate {
  uid: string;
  label: string;
  summary: string | null;
}
export interface DialecticalPair {
  edge_type: string;
  from_uid: string;
  from_label: string;
  to_uid: string;
  to_label: string;
}
export type { ClaimCluster } from './claim-clusters';

export type SynthesisSignals = { project_uid: string } & Partial<{
  documents: DocumentSignal[];
  entity_bridges: EntityBridge[];
  claim_hubs: ClaimHub[];
  ranked_claim_hubs: RankedClaimHub[];
  clustered_claim_hubs: import('./claim-clusters').ClaimCluster[];
  theory_support_gaps: TheorySupportGap[];
  concept_clusters: ConceptCluster[];
  analogy_candidates: AnalogyCandidate[];
  dialectical_pairs: DialecticalPair[];
}>;

/** Number of the corpus's documents a node was extracted from. */
const docCount = (c: ProjectCorpus, uid: string) => c.docsOf.get(uid)?.size ?? 0;

/** Nodes that are an endpoint of a live dialectical edge within the corpus. */
export function inTension(c: ProjectCorpus): Set<string> {
  const out = new Set<string>();
  for (const e of c.edges) if (DIALECTICAL_EDGE_TYPES.includes(e.edge_type)) out.add(e.from_uid).add(e.to_uid);
  return out;
}

export function documentsSignal(c: ProjectCorpus): DocumentSignal[] {
  return c.documents.map((d) => ({ uid: d.uid, label: d.label })).sort(byLabelThenUid);
}

/** Target-type nodes extracted from chunks of at least 2 project documents; most documents first. */
export function entityBridges(c: ProjectCorpus, targetTypes: readonly string[]): EntityBridge[] {
  const targets = new Set(targetTypes);
  return [...c.nodes.values()]
    .filter((n) => targets.has(n.node_type) && docCount(c, n.uid) >= 2)
    .map((n) => ({ uid: n.uid, label: n.label, node_type: n.node_type, doc_count: docCount(c, n.uid) }))
    .sort((a, b) => b.doc_count - a.doc_count || byLabelThenUid(a, b));
}

/** Target-type nodes linked to at least 2 project Claims; most claims first. */
export function claimHubs(c: ProjectCorpus, targetTypes: readonly string[]): ClaimHub[] {
  const out: ClaimHub[] = [];
  for (const [uid, claims] of claimsByTarget(c, targetTypes)) {
    if (claims.size < 2) continue;
    const t = c.nodes.get(uid)!;
    out.push({ target_uid: uid, target_label: t.label, target_type: t.node_type, claim_count: claims.size });
  }
  return out.sort((a, b) => b.claim_count - a.claim_count || byLabelThenUid({ label: a.target_label, uid: a.target_uid }, { label: b.target_label, uid: b.target_uid }));
}

/**
 * Claim hubs scored (REFERENCE §10): breadth = distinct_doc_count / project_doc_count,
 * tension = dialectical_count / claim_count, density = claim_count / max claim_count,
 * score = 0.5·breadth + 0.3·tension + 0.2·density. `dialectical_count` counts the hub's
 * Claims that are an endpoint of a live Contradicts, Refutes or Rebuts edge in the corpus.
 */
export function rankedClaimHubs(c: ProjectCorpus, targetTypes: readonly string[]): RankedClaimHub[] {
  const byTarget = claimsByTarget(c, targetTypes);
  const hubs = claimHubs(c, targetTypes);
  const tense = inTension(c);
  const maxClaims = Math.max(0, ...hubs.map((h) => h.claim_count));
  const projectDocs = c.documents.length;
  return hubs
    .map((h) => {
      const claims = [...byTarget.get(h.target_uid)!];
      const docs = new Set(claims.flatMap((u) => [...(c.docsOf.get(u) ?? [])]));
      const dialectical = claims.filter((u) => tense.has(u)).length;
      const breadth = projectDocs ? docs.size / projectDocs : 0;
      const tension = dialectical / h.claim_count;
      const density = maxClaims ? h.claim_count / maxClaims : 0;
      return {
        ...h,
        distinct_doc_count: docs.size,
        project_doc_count: projectDocs,
        dialectical_count: dialectical,
        score: 0.5 * breadth + 0.3 * tension + 0.2 * density,
        breadth_score: breadth,
        tension_score: tension,
        density_score: density,
      };
    })
    .sort((a, b) => b.score - a.score || b.claim_count - a.claim_count || byLabelThenUid({ label: a.target_label, uid: a.target_uid }, { label: b.target_label, uid: b.target_uid }));
}

/** Project Theories and Hypotheses with fewer than 2 incoming live Supports from project nodes; least supported first. */
export function theorySupportGaps(c: ProjectCorpus): TheorySupportGap[] {
  const supports = new Map<string, number>();
  for (const e of c.edges) if (e.edge_type === 'Supports' && e.from_uid !== e.to_uid) supports.set(e.to_uid, (supports.get(e.to_uid) ?? 0) + 1);
  return [...c.nodes.values()]
    .filter((n) => (n.node_type === 'Theory' || n.node_type === 'Hypothesis') && (supports.get(n.uid) ?? 0) < 2)
    .map((n) => ({ uid: n.uid, label: n.label, node_type: n.node_type, support_count: supports.get(n.uid) ?? 0 }))
    .sort((a, b) => a.support_count - b.support_count || byLabelThenUid(a, b));
}

/** Project Concepts by the number of project documents they appear in, most first. */
export function conceptClusters(c: ProjectCorpus): ConceptCluster[] {
  return [...c.nodes.values()]
    .filter((n) => n.node_type === 'Concept')
    .map((n) => ({ uid: n.uid, label: n.label, doc_count: docCount(c, n.uid) }))
    .sort((a, b) => b.doc_count - a.doc_count || byLabelThenUid(a, b));
}

export function analogyCandidates(c: ProjectCorpus): AnalogyCandidate[] {
  return [...c.nodes.values()]
    .filter((n) => n.node_type === 'Analogy')
    .map((n) => ({ uid: n.uid, label: n.label, summary: n.summary }))
    .sort(byLabelThenUid);
}

/** Live Contradicts, Refutes and Rebuts edges between project nodes. */
export function dialecticalPairs(c: ProjectCorpus): DialecticalPair[] {
  return c.edges
    .filter((e) => DIALECTICAL_EDGE_TYPES.includes(e.edge_type))
    .map((e) => ({ uid: e.uid, edge_type: e.edge_type, from_uid: e.from_uid, from_label: c.nodes.get(e.from_uid)!.label, to_uid: e.to_uid, to_label: c.nodes.get(e.to_uid)!.label }))
    .sort((a, b) => (a.edge_type < b.edge_type ? -1 : a.edge_type > b.edge_type ? 1 : 0) || byLabelThenUid({ label: a.from_label, uid: a.uid }, { label: b.from_label, uid: b.uid }))
    .map(({ uid: _uid, ...p }) => p);
}

/** The requested signals, in the order of REFERENCE §10; those not asked for are left out. */
export function computeSignals(c: ProjectCorpus, q: SignalsQuery): SynthesisSignals {
  const out: SynthesisSignals = { project_uid: c.project_uid };
  const compute: Record<SynthesisSignal, () => unknown> = {
    documents: () => documentsSignal(c),
    entity_bridges: () => entityBridges(c, q.target_types),
    claim_hubs: () => claimHubs(c, q.target_types),
    ranked_claim_hubs: () => rankedClaimHubs(c, q.target_types),
    clustered_claim_hubs: () => clusterClaims(c, q.target_types),
    theory_support_gaps: () => theorySupportGaps(c),
    concept_clusters: () => conceptClusters(c),
    analogy_candidates: () => analogyCandidates(c),
    dialectical_pairs: () => dialecticalPairs(c),
  };
  for (const s of q.signals) (out as Record<string, unknown>)[s] = compute[s]();
  return out;
}
