import { FixedClock } from '@strata/domain/time';
import { call, CognitiveFixture, edgesFrom, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

describe('POST /reality/capture', () => {
  /** the service's clock: tests read and move it instead of the wall clock */
  const clock = new FixedClock();
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive(clock)));
  afterAll(() => f.close());

  it('source: 201 CreateResult, defaults, DerivedFrom to the origin, agent attribution', async () => {
    const origin = await makeNode(f.w, 'Document', 'origin');
    const r = await call(f.w, '/reality/capture', { action: 'source', label: 'A page', source_uid: origin, agent_id: 'crawler' }, 201);
    expect(r).toMatchObject({ action: 'source', node_type: 'Source', layer: 'reality', label: 'A page', version: 1, edges_created: 1 });
    expect(r.edges).toEqual([{ uid: expect.any(String), edge_type: 'DerivedFrom', from_uid: r.uid, to_uid: origin }]);
    const n = await node(f.w, r.uid);
    expect(n.props).toMatchObject({ _type: 'Source', title: 'A page', source_type: 'webpage' });
    expect(n.agent_id).toBe('crawler');
    const [e] = await edgesFrom(f.w, r.uid);
    expect(e).toMatchObject({ edge_type: 'DerivedFrom', to_uid: origin, agent_id: 'crawler', weight: 0.5, confidence: 1 });
  });

  it('snippet: needs a Source, Document or Chunk', async () => {
    const src = (await call(f.w, '/reality/capture', { action: 'source', label: 's' }, 201)).uid;
    const r = await call(f.w, '/reality/capture', { action: 'snippet', label: 'a quote', source_uid: src }, 201);
    expect((await node(f.w, r.uid)).props).toMatchObject({ content: 'a quote', snippet_type: 'passage' });
    expect((await edgesFrom(f.w, r.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['DerivedFrom', src]]);
    const goal = await makeNode(f.w, 'Goal');
    const bad = await f.w.post('/reality/capture', { action: 'snippet', label: 'q', source_uid: goal });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'wrong_node_type', field: 'source_uid', uid: goal, expected: ['Source', 'Document', 'Chunk'] });
    const missing = await f.w.post('/reality/capture', { action: 'snippet', label: 'q' });
    expect(missing.body).toMatchObject({ code: 'missing_field', field: 'source_uid' });
  });

  it('observation: captured in a session, timestamped', async () => {
    const session = (await call(f.w, '/memory/session', { action: 'open' }, 201)).uid;
    const before = clock.now();
    const src = (await call(f.w, '/reality/capture', { action: 'source', label: 'dashboard' }, 201)).uid;
    const r = await call(f.w, '/reality/capture', { action: 'observation', label: 'latency spiked', session_uid: session, source_uid: src }, 201);
    const n = await node(f.w, r.uid);
    expect(n.props).toMatchObject({ content: 'latency spiked', observation_type: 'empirical', session_uid: session });
    expect(n.props.timestamp).toBeGreaterThanOrEqual(before - 1);
    expect((await edgesFrom(f.w, r.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['CapturedIn', session],
        ['DerivedFrom', src],
      ].sort(),
    );
  });

  it('a call with one bad trigger writes nothing', async () => {
    const before = await graphSize(f.w);
    const gone = await makeNode(f.w, 'Session');
    expect((await f.w.delete(`/node/${gone}`)).status).toBe(200);
    const mid = await graphSize(f.w);
    const src = (await call(f.w, '/reality/capture', { action: 'source', label: 'fine' }, 201)).uid;
    const mid2 = await graphSize(f.w);
    // the first trigger is fine, the second is tombstoned: neither node nor edge may appear
    const r2 = await f.w.post('/reality/capture', { action: 'observation', label: 'x', source_uid: src, session_uid: gone });
    expect(r2.status).toBe(404);
    expect(r2.body).toMatchObject({ code: 'not_found', field: 'session_uid', uid: gone });
    expect(await graphSize(f.w)).toEqual(mid2);
    expect(mid.nodes).toBe(before.nodes + 1);
  });
});
