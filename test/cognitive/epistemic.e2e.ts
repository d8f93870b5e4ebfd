import { call, CognitiveFixture, edgesFrom, edgesTo, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

describe('POST /epistemic/argument', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it('claim + 3 evidence + warrant + argument: 6 nodes and every edge in one call', async () => {
    const rival = await makeNode(f.w, 'Claim', 'rival');
    const older = await makeNode(f.w, 'Claim', 'older');
    const base = await makeNode(f.w, 'Claim', 'base');
    const wrong = await makeNode(f.w, 'Claim', 'wrong');
    const doc = await makeNode(f.w, 'Document', 'paper');
    const r = await call(
      f.w,
      '/epistemic/argument',
      {
        claim: { label: 'Sleep improves recall', confidence: 0.7 },
        evidence: [{ label: 'Study A' }, { label: 'Study B', props: { sample_size: 40 } }, { label: 'Study C' }],
        warrant: { label: 'Replicated studies generalise' },
        argument: { label: 'Sleep and memory' },
        contradicts_uid: rival,
        refutes_uid: [wrong],
        extends_uid: base,
        supersedes_uid: [older],
        source_uids: [doc],
      },
      201,
    );
    expect(r.evidence_uids).toHaveLength(3);
    expect(r.edges_created).toBe(3 + 1 + 1 + 3 + 4 + 1);
    expect((await node(f.w, r.claim_uid)).props.content).toBe('Sleep improves recall');
    expect((await node(f.w, r.evidence_uids[1])).props).toMatchObject({ description: 'Study B', sample_size: 40 });
    expect((await node(f.w, r.warrant_uid)).props.principle).toBe('Replicated studies generalise');
    expect((await node(f.w, r.argument_uid)).props.summary).toBe('Sleep and memory');
    const fromClaim = await edgesFrom(f.w, r.claim_uid);
    expect(fromClaim.map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['Contradicts', rival],
        ['Refutes', wrong],
        ['Extends', base],
        ['Supersedes', older],
        ['ExtractedFrom', doc],
        ['HasWarrant', r.warrant_uid],
      ].sort(),
    );
    expect(fromClaim.find((e) => e.edge_type === 'ExtractedFrom')!.props.method).toBe('manual');
    expect((await edgesTo(f.w, r.claim_uid)).map((e) => e.edge_type).sort()).toEqual(['HasConclusion', 'Supports', 'Supports', 'Supports']);
    const premises = (await edgesFrom(f.w, r.argument_uid)).filter((e) => e.edge_type === 'HasPremise');
    expect(premises.map((e) => [e.to_uid, e.props.order]).sort((a, b) => a[1] - b[1])).toEqual(r.evidence_uids.map((u: string, i: number) => [u, i + 1]));
    // GET /contradictions (retrieval) shows the new contradiction
    const contradictions = await f.w.get('/contradictions');
    expect(contradictions.status).toBe(200);
    expect(contradictions.body.map((c: any) => c.node_a_uid)).toContain(r.claim_uid);
  });

  it('a weak claim shows up in GET /claims/weak', async () => {
    const r = await call(f.w, '/epistemic/argument', { claim: { label: 'Maybe so', confidence: 0.2 } }, 201);
    const weak = await f.w.get('/claims/weak');
    expect(weak.status).toBe(200);
    expect(weak.body.map((n: any) => n.uid)).toContain(r.claim_uid);
  });

  it('one bad target writes none of the six nodes', async () => {
    const before = await graphSize(f.w);
    const r = await f.w.post('/epistemic/argument', { claim: { label: 'c' }, evidence: [{ label: 'e' }], refutes_uid: ['missing-claim'] });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'not_found', field: 'refutes_uid', uid: 'missing-claim' });
    const nested = await f.w.post('/epistemic/argument', { claim: { label: 'c' }, evidence: [{ label: 'e' }, { summary: 'no label' }] });
    expect(nested.body).toMatchObject({ code: 'missing_field', field: 'evidence[1].label' });
    expect(await graphSize(f.w)).toEqual(before);
  });
});

describe('POST /epistemic/inquiry and /epistemic/structure', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it.each([
    ['hypothesis', 'Hypothesis', { statement: 'L', status: 'proposed' }],
    ['theory', 'Theory', { name: 'L', status: 'developing' }],
    ['paradigm', 'Paradigm', { name: 'L', status: 'emerging' }],
    ['anomaly', 'Anomaly', { description: 'L', resolution_attempts: 0 }],
    ['assumption', 'Assumption', { content: 'L' }],
    ['question', 'Question', { text: 'L', status: 'open' }],
    ['open_question', 'OpenQuestion', { text: 'L', status: 'open' }],
  ])('inquiry %s → %s', async (action, type, props) => {
    const r = await call(f.w, '/epistemic/inquiry', { action, label: 'L' }, 201);
    expect(r).toMatchObject({ node_type: type, layer: 'epistemic', action });
    expect((await node(f.w, r.uid)).props).toMatchObject(props);
  });

  it('inquiry triggers all go N → X; open questions appear in GET /questions', async () => {
    const t = await makeNode(f.w, 'Claim', 't');
    const body: Record<string, unknown> = { action: 'open_question', label: 'Why?', assumes_uid: [t], related_uids: [t, t] };
    for (const k of ['anomalous_to_uid', 'tests_uid', 'addresses_uid', 'supersedes_uid', 'produces_uid']) body[k] = t;
    const r = await call(f.w, '/epistemic/inquiry', body, 201);
    expect((await edgesFrom(f.w, r.uid)).map((e) => e.edge_type).sort()).toEqual(['Addresses', 'AnomalousTo', 'Assumes', 'Produces', 'RelevantTo', 'Supersedes', 'Tests']);
    const qs = await f.w.get('/questions');
    expect(qs.status).toBe(200);
    expect(qs.body.map((n: any) => n.uid)).toContain(r.uid);
  });

  it.each([
    ['concept', 'Concept', { name: 'L' }],
    ['pattern', 'Pattern', { name: 'L' }],
    ['mechanism', 'Mechanism', { name: 'L' }],
    ['model', 'Model', { name: 'L' }],
    ['reasoning_strategy', 'ReasoningStrategy', { name: 'L' }],
    ['method', 'Method', { name: 'L' }],
    ['experiment', 'Experiment', { name: 'L' }],
    ['model_evaluation', 'ModelEvaluation', {}],
    ['analogy', 'Analogy', { description: 'L' }],
    ['inference_chain', 'InferenceChain', { description: 'L', chain_length: 0 }],
    ['sensitivity_analysis', 'SensitivityAnalysis', {}],
    ['theorem', 'Theorem', { name: 'L', statement: 'L' }],
    ['equation', 'Equation', { name: 'L' }],
  ])('structure %s → %s (epistemic layer)', async (action, type, props) => {
    const r = await call(f.w, '/epistemic/structure', { action, label: 'L' }, 201);
    expect(r).toMatchObject({ node_type: type, layer: 'epistemic' });
    expect((await node(f.w, r.uid)).props).toMatchObject(props);
  });

  it('structure triggers, including ordered chain steps', async () => {
    const steps = [await makeNode(f.w, 'Claim', 's1'), await makeNode(f.w, 'Claim', 's2')];
    const m = await makeNode(f.w, 'Method', 'm');
    const body: Record<string, unknown> = { action: 'inference_chain', label: 'chain', chain_steps: steps, transfers_to_uid: [m], derived_from_uid: m, related_uids: [m] };
    for (const k of ['analogous_to_uid', 'evaluates_uid', 'outperforms_uid', 'proven_by_uid', 'method_uid', 'describes_uid', 'part_of_uid', 'supersedes_uid', 'produces_uid']) body[k] = m;
    const r = await call(f.w, '/epistemic/structure', body, 201);
    expect((await node(f.w, r.uid)).props.chain_length).toBe(2);
    const out = await edgesFrom(f.w, r.uid);
    expect(out.filter((e) => e.edge_type === 'HasChainStep').map((e) => [e.to_uid, e.props.order]).sort((x, y) => x[1] - y[1])).toEqual([
      [steps[0], 1],
      [steps[1], 2],
    ]);
    expect(new Set(out.map((e) => e.edge_type))).toEqual(
      new Set(['HasChainStep', 'TransfersTo', 'DerivedFrom', 'RelevantTo', 'AnalogousTo', 'Evaluates', 'Outperforms', 'ProvenBy', 'UsesMethod', 'Describes', 'PartOf', 'Supersedes', 'Produces']),
    );
  });
});
