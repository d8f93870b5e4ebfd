import { call, CognitiveFixture, edgesFrom, graphSize, makeNode, node, startCognitive, twoSpaces } from './cognitive-fixture';

describe('POST /intent/commitment', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it('goal, project and milestone with their defaults; children are ordered; GET /goals sees active goals', async () => {
    const goal = await call(f.w, '/intent/commitment', { action: 'goal', label: 'Ship v1' }, 201);
    expect((await node(f.w, goal.uid)).props).toMatchObject({ description: 'Ship v1', status: 'active', progress: 0 });
    const project = await call(f.w, '/intent/commitment', { action: 'project', label: 'Backend', parent_uid: goal.uid }, 201);
    expect((await node(f.w, project.uid)).props).toMatchObject({ name: 'Backend', status: 'active', started_at: expect.any(Number) });
    const why = await makeNode(f.w, 'Claim', 'users asked');
    const ms = await call(f.w, '/intent/commitment', { action: 'milestone', label: 'Beta', parent_uid: goal.uid, motivated_by_uid: [why], related_uids: [project.uid] }, 201);
    expect((await node(f.w, ms.uid)).props).toMatchObject({ description: 'Beta', status: 'pending' });
    const children = (await edgesFrom(f.w, goal.uid)).filter((e) => e.edge_type === 'DecomposesInto');
    expect(children.map((e) => [e.to_uid, e.props.order])).toEqual([
      [project.uid, 1],
      [ms.uid, 2],
    ]);
    expect((await edgesFrom(f.w, ms.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['MotivatedBy', why],
        ['RelevantTo', project.uid],
      ].sort(),
    );
    const goals = await f.w.get('/goals');
    expect(goals.status).toBe(200);
    expect(goals.body.map((n: any) => n.uid)).toContain(goal.uid);
  });

  it('a caller limited to one Space orders a child after the children it cannot see', async () => {
    const { owner, a, b, inA } = await twoSpaces(f, ['Plans A', 'Plans B']);
    const goal = await call(owner, '/intent/commitment', { action: 'goal', label: 'Ship', space_uid: a }, 201);
    await call(owner, '/intent/commitment', { action: 'milestone', label: 'hidden', parent_uid: goal.uid, space_uid: b }, 201);
    const m = await call(inA, '/intent/commitment', { action: 'milestone', label: 'visible', parent_uid: goal.uid }, 201);
    const orders = (await edgesFrom(owner, goal.uid)).filter((e) => e.edge_type === 'DecomposesInto').map((e) => [e.to_uid === m.uid, e.props.order]);
    expect(orders.sort()).toEqual([
      [false, 1],
      [true, 2],
    ]);
  });
});

describe('POST /intent/deliberation', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const D = '/intent/deliberation';

  it('open → options → constraint → resolve → re-resolve replaces the DecidedOn edge', async () => {
    const ctxNode = await makeNode(f.w, 'Claim', 'context');
    const dec = await call(f.w, D, { action: 'open_decision', label: 'Which store?', related_uids: [ctxNode] }, 201);
    expect((await node(f.w, dec.uid)).props).toMatchObject({ question: 'Which store?', status: 'open' });
    const a = await call(f.w, D, { action: 'add_option', label: 'SQLite', decision_uid: dec.uid, informs_uid: ctxNode }, 201);
    const b = await call(f.w, D, { action: 'add_option', label: 'Postgres', decision_uid: dec.uid }, 201);
    const con = await call(f.w, D, { action: 'add_constraint', label: 'zero setup', decision_uid: dec.uid, blocks_uid: [b.uid] }, 201);
    expect((await node(f.w, con.uid)).props).toMatchObject({ description: 'zero setup', hard: true });
    expect((await edgesFrom(f.w, dec.uid)).map((e) => e.edge_type).sort()).toEqual(['ConstrainedBy', 'HasOption', 'HasOption', 'RelevantTo']);
    expect((await edgesFrom(f.w, con.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['Blocks', b.uid]]);
    expect((await edgesFrom(f.w, a.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['Informs', ctxNode]]);

    const r1 = await call(f.w, D, { action: 'resolve', decision_uid: dec.uid, chosen_option_uid: a.uid, rationale: 'embedded', session_id: 's-1' }, 200);
    expect(r1).toMatchObject({ uid: dec.uid, action: 'resolve', status: 'decided', version: 2, decided_option_uid: a.uid, replaced_decided_on: null, edges_created: 1 });
    const d1 = await node(f.w, dec.uid);
    expect(d1.props).toMatchObject({ status: 'decided', decided_option_uid: a.uid, decision_rationale: 'embedded', decided_at: expect.any(Number) });
    const on1 = (await edgesFrom(f.w, dec.uid)).filter((e) => e.edge_type === 'DecidedOn');
    expect(on1.map((e) => [e.uid, e.to_uid, e.props.rationale, e.props.session_id])).toEqual([[r1.decided_on_edge_uid, a.uid, 'embedded', 's-1']]);

    const evidence = await makeNode(f.w, 'Evidence', 'benchmarks');
    const r2 = await call(f.w, D, { action: 'resolve', decision_uid: dec.uid, chosen_option_uid: b.uid, informs_uid: [evidence] }, 200);
    expect(r2).toMatchObject({ version: 3, decided_option_uid: b.uid, replaced_decided_on: r1.decided_on_edge_uid, edges_created: 2 });
    expect((await edgesFrom(f.w, evidence)).map((e) => [e.edge_type, e.to_uid])).toEqual([['Informs', dec.uid]]);
    const on2 = (await edgesFrom(f.w, dec.uid)).filter((e) => e.edge_type === 'DecidedOn');
    expect(on2.map((e) => e.to_uid)).toEqual([b.uid]);
    expect((await f.w.get(`/edge/${r1.decided_on_edge_uid}/history`)).body.at(-1).change_type).toBe('tombstone');
  });

  it('a caller limited to one Space re-resolving replaces a DecidedOn it cannot see', async () => {
    const { owner, a, b, inA } = await twoSpaces(f, ['Board A', 'Board B']);
    const d = await call(owner, D, { action: 'open_decision', label: 'Vendor?', space_uid: a }, 201);
    const hidden = await call(owner, D, { action: 'add_option', label: 'Vendor B', decision_uid: d.uid, space_uid: b }, 201);
    const shown = await call(owner, D, { action: 'add_option', label: 'Vendor A', decision_uid: d.uid, space_uid: a }, 201);
    await call(owner, D, { action: 'resolve', decision_uid: d.uid, chosen_option_uid: hidden.uid }, 200);
    const r = await call(inA, D, { action: 'resolve', decision_uid: d.uid, chosen_option_uid: shown.uid }, 200);
    expect(r).toMatchObject({ decided_option_uid: shown.uid, replaced_decided_on: null });
    const live = (await edgesFrom(owner, d.uid)).filter((e) => e.edge_type === 'DecidedOn');
    expect(live.map((e) => e.to_uid)).toEqual([shown.uid]);
  });

  it('resolve refuses an option that is not offered, and writes nothing', async () => {
    const dec = await call(f.w, D, { action: 'open_decision', label: 'd' }, 201);
    const other = await call(f.w, D, { action: 'open_decision', label: 'other' }, 201);
    const opt = await call(f.w, D, { action: 'add_option', label: 'o', decision_uid: other.uid }, 201);
    const before = await graphSize(f.w);
    const r = await f.w.post(D, { action: 'resolve', decision_uid: dec.uid, chosen_option_uid: opt.uid });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_field', field: 'chosen_option_uid' });
    const wrong = await f.w.post(D, { action: 'add_option', label: 'x', decision_uid: opt.uid });
    expect(wrong.body).toMatchObject({ code: 'wrong_node_type', field: 'decision_uid', expected: ['Decision'] });
    expect(await graphSize(f.w)).toEqual(before);
  });

  it('GET /decisions and get_open agree', async () => {
    const open = await call(f.w, D, { action: 'open_decision', label: 'still open' }, 201);
    const viaAction = await call(f.ro, D, { action: 'get_open' }, 200);
    const viaGet = await f.w.get('/decisions');
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual(viaAction);
    expect(viaAction.map((n: any) => n.uid)).toContain(open.uid);
    expect(viaAction.every((n: any) => n.props.status !== 'decided')).toBe(true);
    const created = viaAction.map((n: any) => n.created_at);
    expect([...created].sort((x: number, y: number) => y - x)).toEqual(created);
  });
});
