import { EPISTEMIC_INQUIRY } from './epistemic-inquiry';
import { EPISTEMIC_STRUCTURE } from './epistemic-structure';
import { createdOf, edgesOf, failure, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('/epistemic/inquiry', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['hypothesis', 'Hypothesis', { statement: 'L', status: 'proposed' }],
    ['theory', 'Theory', { name: 'L', status: 'developing' }],
    ['paradigm', 'Paradigm', { name: 'L', status: 'emerging' }],
    ['anomaly', 'Anomaly', { description: 'L', resolution_attempts: 0 }],
    ['assumption', 'Assumption', { content: 'L' }],
    ['question', 'Question', { text: 'L', status: 'open' }],
    ['open_question', 'OpenQuestion', { text: 'L', status: 'open' }],
  ];
  it.each(cases)('%s creates a %s with its defaults', async (action, type, props) => {
    const d = await when(EPISTEMIC_INQUIRY, { action, label: 'L' }, new InMemoryView(), testContext());
    const [n] = createdOf(d);
    expect(n.node_type).toBe(type);
    expect(n.layer).toBe('epistemic');
    expect(n.props).toMatchObject(props);
  });

  it('every trigger goes N → X with its edge type, on any action', async () => {
    const view = new InMemoryView();
    const x = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((l) => givenNode(view, 'Claim', l));
    const d = await when(
      EPISTEMIC_INQUIRY,
      {
        action: 'question',
        label: 'Q',
        anomalous_to_uid: x[0].uid,
        tests_uid: x[1].uid,
        assumes_uid: [x[2].uid, x[3].uid],
        addresses_uid: x[4].uid,
        supersedes_uid: x[5].uid,
        produces_uid: x[6].uid,
        related_uids: [x[7].uid],
      },
      view,
      testContext(),
    );
    const n = createdOf(d)[0];
    expect(edgesOf(d).map((e) => [e.edge_type, e.from_uid === n.uid, e.to_uid])).toEqual([
      ['AnomalousTo', true, x[0].uid],
      ['Tests', true, x[1].uid],
      ['Assumes', true, x[2].uid],
      ['Assumes', true, x[3].uid],
      ['Addresses', true, x[4].uid],
      ['Supersedes', true, x[5].uid],
      ['Produces', true, x[6].uid],
      ['RelevantTo', true, x[7].uid],
    ]);
  });

  it('a closed status outside the vocabulary is invalid_props', async () => {
    expect(await failure(when(EPISTEMIC_INQUIRY, { action: 'hypothesis', label: 'h', props: { status: 'maybe' } }, new InMemoryView(), testContext()))).toMatchObject({
      status: 400,
      code: 'invalid_props',
    });
  });
});

describe('/epistemic/structure', () => {
  it('concept is an epistemic Concept named after its label', async () => {
    const d = await when(EPISTEMIC_STRUCTURE, { action: 'concept', label: 'Entropy' }, new InMemoryView(), testContext());
    expect(createdOf(d)[0]).toMatchObject({ node_type: 'Concept', layer: 'epistemic', props: { name: 'Entropy' } });
  });

  it.each([
    ['pattern', 'Pattern', { name: 'L' }],
    ['mechanism', 'Mechanism', { name: 'L' }],
    ['model', 'Model', { name: 'L' }],
    ['reasoning_strategy', 'ReasoningStrategy', { name: 'L' }],
    ['method', 'Method', { name: 'L' }],
    ['experiment', 'Experiment', { name: 'L' }],
    ['model_evaluation', 'ModelEvaluation', {}],
    ['analogy', 'Analogy', { description: 'L' }],
    ['sensitivity_analysis', 'SensitivityAnalysis', {}],
    ['theorem', 'Theorem', { name: 'L', statement: 'L' }],
    ['equation', 'Equation', { name: 'L' }],
  ])('%s creates a %s with its defaults', async (action, type, props) => {
    const d = await when(EPISTEMIC_STRUCTURE, { action, label: 'L' }, new InMemoryView(), testContext());
    expect(createdOf(d)[0]).toMatchObject({ node_type: type, props });
  });

  it('inference_chain: ordered HasChainStep edges and chain_length from the distinct steps', async () => {
    const view = new InMemoryView();
    const s = ['s1', 's2', 's3'].map((l) => givenNode(view, 'Claim', l));
    const d = await when(
      EPISTEMIC_STRUCTURE,
      { action: 'inference_chain', label: 'chain', chain_steps: [s[0].uid, s[1].uid, s[0].uid, s[2].uid] },
      view,
      testContext(),
    );
    expect(createdOf(d)[0].props).toMatchObject({ description: 'chain', chain_length: 3 });
    expect(edgesOf(d, 'HasChainStep').map((e) => [e.to_uid, e.props.order])).toEqual([
      [s[0].uid, 1],
      [s[1].uid, 2],
      [s[2].uid, 3],
    ]);
  });

  it('every trigger goes N → X', async () => {
    const view = new InMemoryView();
    const t = givenNode(view, 'Method', 'm');
    const fields = ['analogous_to_uid', 'transfers_to_uid', 'evaluates_uid', 'outperforms_uid', 'derived_from_uid', 'proven_by_uid', 'method_uid', 'describes_uid', 'part_of_uid', 'supersedes_uid', 'produces_uid'];
    const body: Record<string, unknown> = { action: 'model', label: 'M', related_uids: [t.uid] };
    for (const f of fields) body[f] = t.uid;
    const d = await when(EPISTEMIC_STRUCTURE, body, view, testContext());
    const n = createdOf(d)[0];
    expect(edgesOf(d).map((e) => e.edge_type)).toEqual([
      'AnalogousTo', 'TransfersTo', 'Evaluates', 'Outperforms', 'DerivedFrom', 'ProvenBy', 'UsesMethod', 'Describes', 'PartOf', 'Supersedes', 'Produces', 'RelevantTo',
    ]);
    expect(edgesOf(d).every((e) => e.from_uid === n.uid && e.to_uid === t.uid)).toBe(true);
  });
});
