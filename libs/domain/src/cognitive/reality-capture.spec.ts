import { REALITY_CAPTURE } from './reality-capture';
import { createdOf, edgesOf, failure, givenNode, InMemoryView, testContext, tombstoned, when } from './testing/in-memory-view';

describe('/reality/capture', () => {
  let view: InMemoryView;
  const ctx = () => testContext({ agent_id: 'agent-7' });
  beforeEach(() => (view = new InMemoryView()));

  it('rejects a missing or unknown action with the valid actions', async () => {
    for (const body of [{ label: 'x' }, { action: 'nope', label: 'x' }])
      expect(await failure(when(REALITY_CAPTURE, body, view, ctx()))).toMatchObject({
        status: 400,
        code: 'unknown_action',
        valid_actions: ['source', 'snippet', 'observation'],
      });
  });

  it('source: creates a Source with title and source_type defaults and a DerivedFrom to its origin', async () => {
    const origin = givenNode(view, 'Document', 'Origin doc');
    const d = await when(REALITY_CAPTURE, { action: 'source', label: 'Example page', source_uid: origin.uid }, view, ctx());
    const [n] = createdOf(d, 'Source');
    expect(n.props).toMatchObject({ title: 'Example page', source_type: 'webpage' });
    expect(n.agent_id).toBe('agent-7');
    const [e] = edgesOf(d, 'DerivedFrom');
    expect(e).toMatchObject({ from_uid: n.uid, to_uid: origin.uid, weight: 0.5, confidence: 1, agent_id: 'agent-7' });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ uid: n.uid, action: 'source', node_type: 'Source', layer: 'reality', label: 'Example page', version: 1, edges_created: 1 });
  });

  it('source: caller props win over defaults', async () => {
    const d = await when(REALITY_CAPTURE, { action: 'source', label: 'Book', props: { source_type: 'book' } }, view, ctx());
    expect(createdOf(d)[0].props.source_type).toBe('book');
  });

  it('snippet: requires source_uid, which must name a Source, Document or Chunk', async () => {
    expect(await failure(when(REALITY_CAPTURE, { action: 'snippet', label: 'quote' }, view, ctx()))).toMatchObject({
      status: 400,
      code: 'missing_field',
      field: 'source_uid',
    });
    const goal = givenNode(view, 'Goal', 'not a source');
    expect(await failure(when(REALITY_CAPTURE, { action: 'snippet', label: 'q', source_uid: goal.uid }, view, ctx()))).toMatchObject({
      status: 400,
      code: 'wrong_node_type',
      field: 'source_uid',
      expected: ['Source', 'Document', 'Chunk'],
    });
    const src = givenNode(view, 'Source', 'src');
    const d = await when(REALITY_CAPTURE, { action: 'snippet', label: 'a quote', source_uid: src.uid }, view, ctx());
    expect(createdOf(d)[0].props).toMatchObject({ content: 'a quote', snippet_type: 'passage' });
    expect(edgesOf(d, 'DerivedFrom')[0]).toMatchObject({ to_uid: src.uid });
  });

  it('observation: timestamp now, session link and props.session_uid', async () => {
    const session = givenNode(view, 'Session', 'S');
    const c = ctx();
    const d = await when(REALITY_CAPTURE, { action: 'observation', label: 'it rained', session_uid: session.uid }, view, c);
    const [n] = createdOf(d);
    expect(n.props).toMatchObject({ content: 'it rained', observation_type: 'empirical', timestamp: c.now, session_uid: session.uid });
    expect(edgesOf(d, 'CapturedIn')[0]).toMatchObject({ from_uid: n.uid, to_uid: session.uid });
  });

  it('checks in the documented order: label, then props, then uid syntax, then liveness, then host type', async () => {
    const goal = givenNode(view, 'Goal', 'g');
    const dead = tombstoned(view, givenNode(view, 'Session', 'old'));
    const base = { action: 'observation' };
    expect(await failure(when(REALITY_CAPTURE, { ...base, props: { bogus: 1 }, session_uid: 'bad uid!' }, view, ctx()))).toMatchObject({ code: 'missing_field' });
    expect(await failure(when(REALITY_CAPTURE, { ...base, label: 'x', props: { bogus: 1 }, session_uid: 'bad uid!' }, view, ctx()))).toMatchObject({
      status: 422,
      code: 'unknown_props_fields',
    });
    expect(await failure(when(REALITY_CAPTURE, { ...base, label: 'x', session_uid: 'bad uid!' }, view, ctx()))).toMatchObject({ code: 'invalid_uid' });
    expect(await failure(when(REALITY_CAPTURE, { ...base, label: 'x', session_uid: dead.uid, source_uid: goal.uid }, view, ctx()))).toMatchObject({
      status: 404,
      code: 'not_found',
      field: 'session_uid',
      uid: dead.uid,
    });
    expect(await failure(when(REALITY_CAPTURE, { ...base, label: 'x', session_uid: goal.uid }, view, ctx()))).toMatchObject({
      code: 'wrong_node_type',
    });
  });

  it('a trigger field of the wrong JSON type is invalid_field', async () => {
    expect(await failure(when(REALITY_CAPTURE, { action: 'source', label: 'x', source_uid: ['a'] }, view, ctx()))).toMatchObject({
      status: 400,
      code: 'invalid_field',
      field: 'source_uid',
    });
  });
});
