import { ProjectCorpus, byLabelThenUid, claimsByTarget } from './project-corpus';

/** Cosine similarity a Claim needs to a cluster's centroid to join it. */
export const CLUSTER_SIMILARITY = 0.5;
/** Claims shown per cluster. */
export const SAMPLE_CLAIMS = 5;

export interface ClaimCluster {
  cluster_id: string;
  size: number;
  distinct_doc_count: number;
  project_doc_count: number;
  cohesion_score: number;
  epistemic_density: number;
  score: number;
  breadth_score: number;
  size_score: number;
  dominant_entity_uid: string | null;
  dominant_entity_label: string | null;
  dominant_entity_type: string | null;
  sample_claims: { uid: string; label: string; source_doc_label: string | null }[];
  epistemic_counts: { evidence: number; arguments: number; warrants: number; theories_hypotheses: number; contradicts_edges: number };
}

/** A cluster with the uids of all its Claims (what a synthesis run writes about). */
export interface ClaimGroup {
  cluster: ClaimCluster;
  claim_uids: string[];
  /** how the Claims were grouped */
  method: 'embedding' | 'shared_target';
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function meanPairwise<T>(xs: T[], sim: (a: T, b: T) => number): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) {
      sum += sim(xs[i], xs[j]);
      pairs++;
    }
  return pairs ? sum / pairs : 1;
}

/**
 * Greedy centroid clustering in uid order: each Claim joins the cluster whose centroid is
 * most similar when that similarity reaches CLUSTER_SIMILARITY, else starts its own.
 * Deterministic for a given corpus. Only Claims with a vector take part.
 */
function byEmbedding(c: ProjectCorpus, claims: string[]): { members: string[]; cohesion: number }[] {
  const clusters: { members: string[]; sum: number[] }[] = [];
  for (const uid of claims) {
    const v = c.vectors.get(uid)!;
    let best = -1;
    let bestSim = -Infinity;
    clusters.forEach((k, i) => {
      const s = cosine(v, k.sum);
      if (s > bestSim) [best, bestSim] = [i, s];
    });
    if (best >= 0 && bestSim >= CLUSTER_SIMILARITY) {
      const k = clusters[best];
      k.members.push(uid);
      for (let i = 0; i < k.sum.length; i++) k.sum[i] += v[i] ?? 0;
    } else {
      clusters.push({ members: [uid], sum: [...v] });
    }
  }
  return clusters
    .filter((k) => k.members.length >= 2)
    .map((k) => ({ members: k.members, cohesion: meanPairwise(k.members, (a, b) => cosine(c.vectors.get(a)!, c.vectors.get(b)!)) }));
}

/** Without vectors: one group per target-type node linked to at least 2 Claims. */
function bySharedTarget(byTarget: Map<string, Set<string>>): { members: string[]; cohesion: number }[] {
  const targetsOf = new Map<string, Set<string>>();
  for (const [t, claims] of byTarget) for (const u of claims) (targetsOf.get(u) ?? targetsOf.set(u, new Set()).get(u)!).add(t);
  const jaccard = (a: string, b: string) => {
    const x = targetsOf.get(a)!;
    const y = targetsOf.get(b)!;
    let inter = 0;
    for (const t of x) if (y.has(t)) inter++;
    return inter / (x.size + y.size - inter);
  };
  return [...byTarget.entries()]
    .filter(([, claims]) => claims.size >= 2)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, claims]) => {
      const members = [...claims].sort();
      return { members, cohesion: meanPairwise(members, jaccard) };
    });
}

/**
 * Project Claims clustered by embedding similarity, or grouped by shared target when fewer
 * than two Claims have vectors (REFERENCE §10 `clustered_claim_hubs`), best first:
 * breadth = distinct_doc_count / project_doc_count, size_score = size / largest size,
 * cohesion = mean pairwise similarity (cosine; Jaccard of linked targets when grouped by
 * target), epistemic_density = (evidence + arguments + warrants + theories_hypotheses +
 * contradicts_edges) / size, score = 0.4·breadth + 0.3·size + 0.2·cohesion + 0.1·min(1, density).
 */
export function claimGroups(c: ProjectCorpus, targetTypes: readonly string[]): ClaimGroup[] {
  const claims = [...c.nodes.values()].filter((n) => n.node_type === 'Claim').map((n) => n.uid).sort();
  const withVectors = claims.filter((u) => c.vectors.has(u));
  const byTarget = claimsByTarget(c, targetTypes);
  const method: ClaimGroup['method'] = withVectors.length >= 2 ? 'embedding' : 'shared_target';
  const raw = method === 'embedding' ? byEmbedding(c, withVectors) : bySharedTarget(byTarget);
  const maxSize = Math.max(0, ...raw.map((k) => k.members.length));
  const projectDocs = c.documents.length;
  const docLabel = new Map(c.documents.map((d) => [d.uid, d.label]));
  const neighbours = new Map<string, { uid: string; edge_type: string; other: string }[]>();
  for (const e of c.edges) {
    (neighbours.get(e.from_uid) ?? neighbours.set(e.from_uid, []).get(e.from_uid)!).push({ uid: e.uid, edge_type: e.edge_type, other: e.to_uid });
    (neighbours.get(e.to_uid) ?? neighbours.set(e.to_uid, []).get(e.to_uid)!).push({ uid: e.uid, edge_type: e.edge_type, other: e.from_uid });
  }
  const groups = raw.map(({ members, cohesion }) => {
    const memberSet = new Set(members);
    const docs = new Set(members.flatMap((u) => [...(c.docsOf.get(u) ?? [])]));
    const linked = { evidence: new Set<string>(), arguments: new Set<string>(), warrants: new Set<string>(), theories_hypotheses: new Set<string>(), contradicts: new Set<string>() };
    for (const u of members)
      for (const x of neighbours.get(u) ?? []) {
        if (x.edge_type === 'Contradicts') linked.contradicts.add(x.uid);
        if (memberSet.has(x.other)) continue;
        const t = c.nodes.get(x.other)?.node_type;
        if (t === 'Evidence') linked.evidence.add(x.other);
        else if (t === 'Argument') linked.arguments.add(x.other);
        else if (t === 'Warrant') linked.warrants.add(x.other);
        else if (t === 'Theory' || t === 'Hypothesis') linked.theories_hypotheses.add(x.other);
      }
    const counts = {
      evidence: linked.evidence.size,
      arguments: linked.arguments.size,
      warrants: linked.warrants.size,
      theories_hypotheses: linked.theories_hypotheses.size,
      contradicts_edges: linked.contradicts.size,
    };
    const density = (counts.evidence + counts.arguments + counts.warrants + counts.theories_hypotheses + counts.contradicts_edges) / members.length;
    let dominant: { uid: string; label: string; type: string; n: number } | null = null;
    for (const [t, linkedClaims] of byTarget) {
      let n = 0;
      for (const u of members) if (linkedClaims.has(u)) n++;
      const node = c.nodes.get(t)!;
      if (n > 0 && (!dominant || n > dominant.n || (n === dominant.n && byLabelThenUid(node, dominant) < 0))) dominant = { uid: t, label: node.label, type: node.node_type, n };
    }
    const breadth = projectDocs ? docs.size / projectDocs : 0;
    const sizeScore = maxSize ? members.length / maxSize : 0;
    const sample = members
      .map((u) => c.nodes.get(u)!)
      .sort((a, b) => docCountOf(c, b.uid) - docCountOf(c, a.uid) || byLabelThenUid(a, b))
      .slice(0, SAMPLE_CLAIMS)
      .map((n) => {
        const labels = [...(c.docsOf.get(n.uid) ?? [])].map((d) => docLabel.get(d)!).filter((l) => l !== undefined).sort();
        return { uid: n.uid, label: n.label, source_doc_label: labels[0] ?? null };
      });
    const cluster: ClaimCluster = {
      cluster_id: '',
      size: members.length,
      distinct_doc_count: docs.size,
      project_doc_count: projectDocs,
      cohesion_score: cohesion,
      epistemic_density: density,
      score: 0.4 * breadth + 0.3 * sizeScore + 0.2 * cohesion + 0.1 * Math.min(1, density),
      breadth_score: breadth,
      size_score: sizeScore,
      dominant_entity_uid: dominant?.uid ?? null,
      dominant_entity_label: dominant?.label ?? null,
      dominant_entity_type: dominant?.type ?? null,
      sample_claims: sample,
      epistemic_counts: counts,
    };
    return { cluster, claim_uids: members, method };
  });
  groups.sort((a, b) => b.cluster.score - a.cluster.score || b.cluster.size - a.cluster.size || (a.claim_uids[0] < b.claim_uids[0] ? -1 : 1));
  groups.forEach((g, i) => (g.cluster.cluster_id = `cluster-${i + 1}`));
  return groups;
}

const docCountOf = (c: ProjectCorpus, uid: string) => c.docsOf.get(uid)?.size ?? 0;

export function clusterClaims(c: ProjectCorpus, targetTypes: readonly string[]): ClaimCluster[] {
  return claimGroups(c, targetTypes).map((g) => g.cluster);
}
