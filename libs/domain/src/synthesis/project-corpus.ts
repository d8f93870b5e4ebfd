/**
 * A Project's admitted sources (REFERENCE §12.1) as the synthesis signals read them: its
 * Documents, the nodes extracted from their Chunks with the project documents each came
 * from, the live edges among those nodes, and the nodes' vectors when there are any.
 */
export interface CorpusNode {
  uid: string;
  label: string;
  node_type: string;
  summary: string | null;
}

export interface CorpusEdge {
  uid: string;
  edge_type: string;
  from_uid: string;
  to_uid: string;
}

export interface ProjectCorpus {
  project_uid: string;
  /** Docs(P) */
  documents: { uid: string; label: string }[];
  /** Nodes(P), by uid */
  nodes: Map<string, CorpusNode>;
  /** for each node of Nodes(P): the project documents it was extracted from */
  docsOf: Map<string, Set<string>>;
  /** Edges(P): live edges whose two endpoints are in Nodes(P) */
  edges: CorpusEdge[];
  /** vectors of the project's Claims that have one (empty without embeddings) */
  vectors: Map<string, number[]>;
}

export const byLabelThenUid = (a: { label: string; uid: string }, b: { label: string; uid: string }): number =>
  a.label < b.label ? -1 : a.label > b.label ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;

/** For every target-type node, the project Claims linked to it by a live edge (either direction). */
export function claimsByTarget(c: ProjectCorpus, targetTypes: readonly string[]): Map<string, Set<string>> {
  const targets = new Set(targetTypes);
  const out = new Map<string, Set<string>>();
  const add = (target: string, claim: string) => {
    let s = out.get(target);
    if (!s) out.set(target, (s = new Set()));
    s.add(claim);
  };
  for (const e of c.edges) {
    const from = c.nodes.get(e.from_uid);
    const to = c.nodes.get(e.to_uid);
    if (!from || !to || e.from_uid === e.to_uid) continue;
    if (from.node_type === 'Claim' && targets.has(to.node_type)) add(to.uid, from.uid);
    if (to.node_type === 'Claim' && targets.has(from.node_type)) add(from.uid, to.uid);
  }
  return out;
}
