import { EPISTEMIC_ARGUMENT } from './epistemic-argument';
import { createdOf, edgesOf, failure, givenNode, InMemoryView, testContext, tombstoned, when } from './testing/in-memory-view';

describe('/epistemic/argument', () => {
  let view: InMemoryView;
  beforeEach(() => (view = new InMemoryView()));

  it('builds claim, evidence, warrant and argument with every linking edge', async () => {
    const source = givenNode(view, 'Document', 'paper');
    const rival = givenNode(view, 'Claim', 'rival');
    const d = await when(
      EPISTEMIC_ARGUMENT,
      {
        claim: { label: 'Coffee improves focus', confidence: 0.8 },
        evidence: [{ label: 'RCT 2019' }, { label: 'Survey 2021' }],
        warrant: { label: 'Controlled trials isolate causes' },
        argument: { label: 'From trials to focus' },
        refutes_uid: rival.uid,
        source_uids: [source.uid, source.uid],
      },
      view,
      testContext(),
    );
    const [claim] = createdOf(d, 'Claim');
    const evidence = createdOf(d, 'Evidence');
    const [warrant] = createdOf(d, 'Warrant');
    const [argument] = createdOf(d, 'Argument');
    expect(claim.props.content).toBe('Coffee improves focus');
    expect(claim.confidence).toBe(0.8);
    expect(evidence.map((e) => e.props.description)).toEqual(['RCT 2019', 'Survey 2021']);
    expect(warrant.props.principle).toBe('Controlled trials isolate causes');
    expect(argument.props.summary).toBe('From trials to focus');
    expect(edgesOf(d, 'Supports').map((e) => [e.from_uid, e.to_uid])).toEqual(evidence.map((e) => [e.uid, claim.uid]));
    expect(edgesOf(d, 'HasWarrant')[0]).toMatchObject({ from_uid: claim.uid, to_uid: warrant.uid });
    expect(edgesOf(d, 'HasConclusion')[0]).toMatchObject({ from_uid: argument.uid, to_uid: claim.uid });
    expect(edgesOf(d, 'HasPremise').map((e) => [e.to_uid, e.props.order])).toEqual([
      [evidence[0].uid, 1],
      [evidence[1].uid, 2],
    ]);
    expect(edgesOf(d, 'Refutes')[0]).toMatchObject({ from_uid: claim.uid, to_uid: rival.uid });
    const extracted = edgesOf(d, 'ExtractedFrom');
    expect(extracted).toHaveLength(1); // repeated uids collapse to one edge
    expect(extracted[0].props.method).toBe('manual');
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({
      claim_uid: claim.uid,
      evidence_uids: evidence.map((e) => e.uid),
      warrant_uid: warrant.uid,
      argument_uid: argument.uid,
      edges_created: 8,
    });
  });

  it('a claim alone: warrant and argument are null; the top-level props become the claim props', async () => {
    const d = await when(EPISTEMIC_ARGUMENT, { claim: { label: 'c' }, props: { claim_type: 'causal' } }, view, testContext());
    expect(createdOf(d)).toHaveLength(1);
    expect(createdOf(d)[0].props.claim_type).toBe('causal');
    expect(d.body).toMatchObject({ warrant_uid: null, argument_uid: null, evidence_uids: [], edges_created: 0 });
  });

  it('names the missing nested label', async () => {
    expect(await failure(when(EPISTEMIC_ARGUMENT, {}, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'claim' });
    expect(await failure(when(EPISTEMIC_ARGUMENT, { claim: {} }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'claim.label' });
    expect(await failure(when(EPISTEMIC_ARGUMENT, { claim: { label: 'c' }, evidence: [{ label: 'a' }, {}] }, view, testContext()))).toMatchObject({
      code: 'missing_field',
      field: 'evidence[1].label',
    });
  });

  it('validates nested props against each type', async () => {
    expect(await failure(when(EPISTEMIC_ARGUMENT, { claim: { label: 'c' }, evidence: [{ label: 'e', props: { nope: 1 } }] }, view, testContext()))).toMatchObject({
      status: 422,
      code: 'unknown_props_fields',
    });
  });

  it('a tombstoned target fails the whole call', async () => {
    const dead = tombstoned(view, givenNode(view, 'Claim', 'gone'));
    expect(await failure(when(EPISTEMIC_ARGUMENT, { claim: { label: 'c' }, contradicts_uid: [dead.uid] }, view, testContext()))).toMatchObject({
      status: 404,
      field: 'contradicts_uid',
      uid: dead.uid,
    });
  });
});
