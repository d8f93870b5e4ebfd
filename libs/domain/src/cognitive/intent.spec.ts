import { INTENT_COMMITMENT } from './intent-commitment';
import { INTENT_DELIBERATION } from './intent-deliberation';
import { createdOf, edgesOf, failure, given, givenEdge, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('/intent/commitment', () => {
  it.each([
    ['goal', 'Goal', { description: 'L', status: 'active', progress: 0 }],
    ['milestone', 'Milestone', { description: 'L', status: 'pending' }],
  ])('%s creates a %s with its defaults', async (action, type, props) => {
    const d = await when(INTENT_COMMITMENT, { action, label: 'L' }, new InMemoryView(), testContext());
    expect(createdOf(d)[0]).toMatchObject({ node_type: type, layer: 'intent', props });
  });

  it('project starts active, now', async () => {
    const ctx = testContext();
    const d = await when(INTENT_COMMITMENT, { action: 'project', label: 'P' }, new InMemoryView(), ctx);
    expect(createdOf(d)[0].props).toMatchObject({ name: 'P', status: 'active', started_at: ctx.now });
  });

  it('parent_uid: parent → N DecomposesInto, ordered after the live children', async () => {
    const view = new InMemoryView();
    const parent = givenNode(view, 'Goal', 'parent');
    givenEdge(view, parent, givenNode(view, 'Goal', 'first child'), 'DecomposesInto', { order: 1 });
    const motive = givenNode(view, 'Claim', 'why');
    const d = await when(INTENT_COMMITMENT, { action: 'milestone', label: 'M', parent_uid: parent.uid, motivated_by_uid: motive.uid }, view, testContext());
    const n = createdOf(d)[0];
    expect(edgesOf(d, 'DecomposesInto')[0]).toMatchObject({ from_uid: parent.uid, to_uid: n.uid, props: { order: 2 } });
    expect(edgesOf(d, 'MotivatedBy')[0]).toMatchObject({ from_uid: n.uid, to_uid: motive.uid });
  });

  it('parent_uid must be a Goal, Project or Milestone', async () => {
    const view = new InMemoryView();
    const task = givenNode(view, 'Task', 't');
    expect(await failure(when(INTENT_COMMITMENT, { action: 'goal', label: 'g', parent_uid: task.uid }, view, testContext()))).toMatchObject({
      code: 'wrong_node_type',
      expected: ['Goal', 'Project', 'Milestone'],
    });
  });
});

describe('/intent/deliberation', () => {
  it('open_decision, add_option, add_constraint link to the decision', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const open = await given(INTENT_DELIBERATION, { action: 'open_decision', label: 'Which DB?' }, view, ctx);
    const decision = createdOf(open)[0];
    expect(decision.props).toMatchObject({ question: 'Which DB?', status: 'open' });
    const opt = await given(INTENT_DELIBERATION, { action: 'add_option', label: 'SQLite', decision_uid: decision.uid }, view, ctx);
    expect(edgesOf(opt, 'HasOption')[0]).toMatchObject({ from_uid: decision.uid, to_uid: createdOf(opt)[0].uid });
    const con = await given(INTENT_DELIBERATION, { action: 'add_constraint', label: 'Must embed', decision_uid: decision.uid, blocks_uid: createdOf(opt)[0].uid }, view, ctx);
    expect(createdOf(con)[0].props).toMatchObject({ description: 'Must embed', hard: true });
    expect(edgesOf(con, 'ConstrainedBy')[0]).toMatchObject({ from_uid: decision.uid });
    expect(edgesOf(con, 'Blocks')[0]).toMatchObject({ from_uid: createdOf(con)[0].uid, to_uid: createdOf(opt)[0].uid });
    const soft = await when(INTENT_DELIBERATION, { action: 'add_constraint', label: 'nice', decision_uid: decision.uid, props: { hard: false } }, view, ctx);
    expect(createdOf(soft)[0].props.hard).toBe(false);
  });

  it('add_option needs a Decision', async () => {
    const view = new InMemoryView();
    expect(await failure(when(INTENT_DELIBERATION, { action: 'add_option', label: 'o' }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'decision_uid' });
    // §4.0: a missing required field (step 3) is reported before a wrong type (step 4)
    expect(await failure(when(INTENT_DELIBERATION, { action: 'add_option', label: 5 }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'decision_uid' });
    expect(await failure(when(INTENT_DELIBERATION, { action: 'add_option', label: '  ' }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'label' });
    const goal = givenNode(view, 'Goal', 'g');
    expect(await failure(when(INTENT_DELIBERATION, { action: 'add_option', label: 'o', decision_uid: goal.uid }, view, testContext()))).toMatchObject({
      code: 'wrong_node_type',
    });
  });

  it('resolve decides; resolving again replaces the DecidedOn edge', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const decision = createdOf(await given(INTENT_DELIBERATION, { action: 'open_decision', label: 'D' }, view, ctx))[0];
    const a = createdOf(await given(INTENT_DELIBERATION, { action: 'add_option', label: 'A', decision_uid: decision.uid }, view, ctx))[0];
    const b = createdOf(await given(INTENT_DELIBERATION, { action: 'add_option', label: 'B', decision_uid: decision.uid }, view, ctx))[0];
    const goal = givenNode(view, 'Goal', 'informing goal');
    const first = await given(INTENT_DELIBERATION, { action: 'resolve', decision_uid: decision.uid, chosen_option_uid: a.uid, rationale: 'cheap', informs_uid: goal.uid }, view, ctx);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ uid: decision.uid, status: 'decided', version: 2, decided_option_uid: a.uid, replaced_decided_on: null, edges_created: 2 });
    expect(edgesOf(first, 'DecidedOn')[0]).toMatchObject({ from_uid: decision.uid, to_uid: a.uid, props: { rationale: 'cheap' } });
    expect(edgesOf(first, 'Informs')[0]).toMatchObject({ from_uid: goal.uid, to_uid: decision.uid });
    expect((await view.node(decision.uid))!.props).toMatchObject({ status: 'decided', decided_option_uid: a.uid, decided_at: ctx.now, decision_rationale: 'cheap' });

    const firstEdge = (first.body as { decided_on_edge_uid: string }).decided_on_edge_uid;
    const second = await given(INTENT_DELIBERATION, { action: 'resolve', decision_uid: decision.uid, chosen_option_uid: b.uid }, view, ctx);
    expect(second.body).toMatchObject({ version: 3, decided_option_uid: b.uid, replaced_decided_on: firstEdge });
    const live = await view.edges({ from_uid: decision.uid, edge_types: ['DecidedOn'] });
    expect(live.map((e) => e.to_uid)).toEqual([b.uid]);
    expect(view.edgesByUid.get(firstEdge)!.tombstone_at).not.toBeNull();
  });

  it('resolve refuses an option the decision does not offer', async () => {
    const view = new InMemoryView();
    const d1 = givenNode(view, 'Decision', 'd1', { status: 'open' });
    const stray = givenNode(view, 'Option', 'elsewhere');
    expect(await failure(when(INTENT_DELIBERATION, { action: 'resolve', decision_uid: d1.uid, chosen_option_uid: stray.uid }, view, testContext()))).toMatchObject({
      status: 400,
      code: 'invalid_field',
      field: 'chosen_option_uid',
    });
  });

  it('get_open lists open, revisited and unset decisions, newest first', async () => {
    const view = new InMemoryView();
    const a = givenNode(view, 'Decision', 'a', { status: 'open' }, 10);
    const b = givenNode(view, 'Decision', 'b', { status: 'revisited' }, 20);
    givenNode(view, 'Decision', 'c', { status: 'decided' }, 30);
    const d = givenNode(view, 'Decision', 'd', {}, 40);
    const r = await when(INTENT_DELIBERATION, { action: 'get_open' }, view, testContext());
    expect((r.body as { uid: string }[]).map((n) => n.uid)).toEqual([d.uid, b.uid, a.uid]);
    const capped = await when(INTENT_DELIBERATION, { action: 'get_open', limit: 1 }, view, testContext());
    expect(capped.body).toHaveLength(1);
  });
});
