import { DEFAULT_TARGET_TYPES, ProjectCorpus, SYNTHESIS_SIGNALS, claimGroups, computeSignals, readSignalsQuery } from './index';
import { CLUSTER_SIMILARITY } from './claim-clusters';

/** A corpus from compact rows: nodes `uid:Type:label@doc1,doc2`, edges `from-Type->to`. */
function corpus(nodes: string[], edges: string[], opts: { docs?: number; vectors?: Record<string, number[]> } = {}): ProjectCorpus {
  const documents = Array.from({ length: opts.docs ?? 3 }, (_, i) => ({ uid: `d${i + 1}`, label: `Doc ${i + 1}` }));
  const c: ProjectCorpus = { project_uid: 'p', documents, nodes: new Map(), docsOf: new Map(), edges: [], vectors: new Map(Object.entries(opts.vectors ?? {})) };
  for (const row of nodes) {
    const [head, docs] = row.split('@');
    const [uid, node_type, label] = head.split(':');
    c.nodes.set(uid, { uid, node_type, label: label ?? uid, summary: node_type === 'Analogy' ? `about ${uid}` : '' });
    c.docsOf.set(uid, new Set(docs ? docs.split(',') : ['d1']));
  }
  edges.forEach((row, i) => {
    const m = /^(\w+)-(\w+)->(\w+)$/.exec(row)!;
    c.edges.push({ uid: `e${String(i).padStart(2, '0')}`, from_uid: m[1], edge_type: m[2], to_uid: m[3] });
  });
  return c;
}

const all = (c: ProjectCorpus, q: Record<string, unknown> = {}) => computeSignals(c, readSignalsQuery(q));

describe('synthesis signals (REFERENCE §10)', () => {
  describe('the query', () => {
    it.each([
      [{}, [...SYNTHESIS_SIGNALS], [...DEFAULT_TARGET_TYPES]],
      [{ signals: 'claim_hubs,documents' }, ['documents', 'claim_hubs'], [...DEFAULT_TARGET_TYPES]],
      [{ signals: ' documents , ' }, ['documents'], [...DEFAULT_TARGET_TYPES]],
      [{ target_types: 'person,Concept' }, [...SYNTHESIS_SIGNALS], ['Person', 'Concept']],
      [{ signals: '' }, [...SYNTHESIS_SIGNALS], [...DEFAULT_TARGET_TYPES]],
    ])('%p', (q, signals, types) => {
      expect(readSignalsQuery(q)).toEqual({ signals, target_types: types });
    });

    it.each([
      [{ signals: 'documents,gossip' }, 'signals'],
      [{ target_types: 'Person,9lives' }, 'target_types'],
    ])('%p → 400 invalid_field', (q, field) => {
      expect(() => readSignalsQuery(q)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_field', context: expect.objectContaining({ field }) }));
    });
  });

  // c1, c2 about Ada (2 docs); c3 about Ada too and contradicting c1; c4 about Bo (1 claim: no hub)
  const base = corpus(
    ['ada:Person:Ada@d1,d2', 'bo:Person:Bo@d3', 'c1:Claim:Ada built it@d1', 'c2:Claim:Ada led it@d2', 'c3:Claim:Ada never built it@d3', 'c4:Claim:Bo helped@d3', 'ev:Evidence:Letter@d1', 'th:Theory:Great person@d2', 'hy:Hypothesis:Team effort@d3', 'k1:Concept:engine@d1,d2,d3', 'k2:Concept:loom@d2', 'an:Analogy:Like a loom@d2'],
    ['c1-About->ada', 'c2-About->ada', 'ada-MentionedIn->c3', 'c4-About->bo', 'c3-Contradicts->c1', 'ev-Supports->c1', 'c1-Supports->th', 'c2-Supports->th', 'c4-Supports->hy', 'c2-Refutes->hy'],
  );

  it('documents, entity bridges, claim hubs', () => {
    const s = all(base);
    expect(s.project_uid).toBe('p');
    expect(s.documents).toEqual([{ uid: 'd1', label: 'Doc 1' }, { uid: 'd2', label: 'Doc 2' }, { uid: 'd3', label: 'Doc 3' }]);
    expect(s.entity_bridges).toEqual([{ uid: 'ada', label: 'Ada', node_type: 'Person', doc_count: 2 }]);
    // Theory th is a target type: c1 and c2 support it
    expect(s.claim_hubs).toEqual([
      { target_uid: 'ada', target_label: 'Ada', target_type: 'Person', claim_count: 3 },
      { target_uid: 'th', target_label: 'Great person', target_type: 'Theory', claim_count: 2 },
      { target_uid: 'hy', target_label: 'Team effort', target_type: 'Hypothesis', claim_count: 2 },
    ]);
  });

  it('ranked claim hubs: breadth, tension, density and the weighted score', () => {
    const [ada, ...rest] = all(base).ranked_claim_hubs!;
    // 3 docs of 3; all three claims are in tension (c1, c3 contradict; c2 refutes hy); 3 of max 3 claims
    expect(ada).toEqual({
      target_uid: 'ada', target_label: 'Ada', target_type: 'Person', claim_count: 3,
      distinct_doc_count: 3, project_doc_count: 3, dialectical_count: 3,
      breadth_score: 1, tension_score: 1, density_score: 1, score: 0.5 * 1 + 0.3 * 1 + 0.2 * 1,
    });
    // hy: c4 (d3, no tension) and c2 (d2, refutes it)
    const hy = rest.find((h) => h.target_uid === 'hy')!;
    expect(hy).toMatchObject({ distinct_doc_count: 2, dialectical_count: 1, breadth_score: 2 / 3, tension_score: 0.5, density_score: 2 / 3 });
    expect(hy.score).toBeCloseTo(0.5 * (2 / 3) + 0.3 * 0.5 + 0.2 * (2 / 3), 12);
    const scores = all(base).ranked_claim_hubs!.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('theory support gaps, concept clusters, analogies, dialectical pairs', () => {
    const s = all(base);
    // th has 2 Supports: no gap; hy has 1
    expect(s.theory_support_gaps).toEqual([{ uid: 'hy', label: 'Team effort', node_type: 'Hypothesis', support_count: 1 }]);
    expect(s.concept_clusters).toEqual([{ uid: 'k1', label: 'engine', doc_count: 3 }, { uid: 'k2', label: 'loom', doc_count: 1 }]);
    expect(s.analogy_candidates).toEqual([{ uid: 'an', label: 'Like a loom', summary: 'about an' }]);
    expect(s.dialectical_pairs).toEqual([
      { edge_type: 'Contradicts', from_uid: 'c3', from_label: 'Ada never built it', to_uid: 'c1', to_label: 'Ada built it' },
      { edge_type: 'Refutes', from_uid: 'c2', from_label: 'Ada led it', to_uid: 'hy', to_label: 'Team effort' },
    ]);
  });

  it('target_types changes what hubs and bridges may be', () => {
    const s = all(base, { target_types: 'Concept', signals: 'entity_bridges,claim_hubs' });
    expect(s.entity_bridges).toEqual([{ uid: 'k1', label: 'engine', node_type: 'Concept', doc_count: 3 }]);
    expect(s.claim_hubs).toEqual([]);
    expect(Object.keys(s)).toEqual(['project_uid', 'entity_bridges', 'claim_hubs']);
  });

  it('clusters by shared target without vectors', () => {
    const groups = claimGroups(base, DEFAULT_TARGET_TYPES);
    expect(groups.every((g) => g.method === 'shared_target')).toBe(true);
    // one group per hub: Ada {c1,c2,c3}, the Theory {c1,c2}, the Hypothesis {c2,c4}
    expect(groups.map((g) => g.claim_uids).sort()).toEqual([['c1', 'c2'], ['c1', 'c2', 'c3'], ['c2', 'c4']]);
    expect(groups[0].claim_uids).toEqual(['c1', 'c2', 'c3']);
    const top = groups[0].cluster;
    expect(top).toMatchObject({
      cluster_id: 'cluster-1', size: 3, distinct_doc_count: 3, project_doc_count: 3, breadth_score: 1, size_score: 1,
      dominant_entity_uid: 'ada', dominant_entity_label: 'Ada', dominant_entity_type: 'Person',
      // evidence ev, theory th, contradiction c3→c1 (inside the cluster: counted once); hy via c2
      epistemic_counts: { evidence: 1, arguments: 0, warrants: 0, theories_hypotheses: 2, contradicts_edges: 1 },
    });
    expect(top.epistemic_density).toBeCloseTo(4 / 3, 12);
    expect(top.sample_claims).toEqual([
      { uid: 'c1', label: 'Ada built it', source_doc_label: 'Doc 1' },
      { uid: 'c2', label: 'Ada led it', source_doc_label: 'Doc 2' },
      { uid: 'c3', label: 'Ada never built it', source_doc_label: 'Doc 3' },
    ]);
    // c1: {ada, th}, c2: {ada, th, hy}, c3: {ada} → mean Jaccard of the three pairs
    expect(top.cohesion_score).toBeCloseTo((2 / 3 + 1 / 2 + 1 / 3) / 3, 12);
    expect(top.score).toBeCloseTo(0.4 * 1 + 0.3 * 1 + 0.2 * top.cohesion_score + 0.1 * 1, 12);
    expect(groups.map((g) => g.cluster.cluster_id)).toEqual(groups.map((_, i) => `cluster-${i + 1}`));
  });

  it('clusters by embedding similarity when Claims have vectors', () => {
    const c = corpus(
      ['x:Person:X@d1', 'a:Claim:A@d1', 'b:Claim:B@d2', 'c:Claim:C@d1', 'd:Claim:D@d3', 'e:Claim:E@d3'],
      ['a-About->x', 'c-About->x'],
      { vectors: { a: [1, 0, 0], b: [0.9, 0.1, 0], c: [0, 1, 0], d: [0, 0.95, 0.05], e: [0, 0, 1] } },
    );
    const groups = claimGroups(c, DEFAULT_TARGET_TYPES);
    expect(groups.map((g) => g.method)).toEqual(['embedding', 'embedding']);
    expect(groups.map((g) => g.claim_uids).sort()).toEqual([['a', 'b'], ['c', 'd']]);
    for (const g of groups) expect(g.cluster.cohesion_score).toBeGreaterThan(CLUSTER_SIMILARITY);
    // the lone Claim e is in no cluster
    expect(groups.flatMap((g) => g.claim_uids)).not.toContain('e');
    expect(groups[0].cluster).toMatchObject({ size: 2, distinct_doc_count: 2, dominant_entity_uid: 'x' });
  });

  it('an empty project has empty signals', () => {
    const s = all(corpus([], [], { docs: 0 }));
    for (const k of SYNTHESIS_SIGNALS) expect(s[k]).toEqual([]);
  });
});
