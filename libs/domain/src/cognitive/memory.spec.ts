import { MEMORY_CONFIG } from './memory-config';
import { MEMORY_DISTILL } from './memory-distill';
import { MEMORY_SESSION } from './memory-session';
import { createdOf, edgesOf, failure, given, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('/memory/session', () => {
  it('open starts now with the default label; close ends it once', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const open = await given(MEMORY_SESSION, { action: 'open', props: { active_goal_uids: ['g1'] } }, view, ctx);
    const s = createdOf(open)[0];
    expect(s).toMatchObject({ label: 'Session', props: { started_at: ctx.now, ended_at: null, active_goal_uids: ['g1'] } });
    expect(open.body).toMatchObject({ started_at: ctx.now, node_type: 'Session' });
    ctx.tick(60);
    const close = await given(MEMORY_SESSION, { action: 'close', session_uid: s.uid, props: { focus_summary: 'done' } }, view, ctx);
    expect(close.body).toMatchObject({ uid: s.uid, version: 2, started_at: ctx.now - 60, ended_at: ctx.now, already_closed: false });
    expect((await view.node(s.uid))!.props.focus_summary).toBe('done');
    ctx.tick(60);
    const again = await when(MEMORY_SESSION, { action: 'close', session_uid: s.uid }, view, ctx);
    expect(again).toMatchObject({ status: 200, changes: [] });
    expect(again.body).toMatchObject({ version: 2, ended_at: ctx.now - 60, already_closed: true });
  });

  it('trace: ordered TraceEntry edges, entry_count, captured in its session', async () => {
    const view = new InMemoryView();
    const s = givenNode(view, 'Session', 's');
    const a = givenNode(view, 'Claim', 'a');
    const b = givenNode(view, 'Claim', 'b');
    const d = await when(MEMORY_SESSION, { action: 'trace', session_uid: s.uid, relevant_node_uids: [a.uid, b.uid] }, view, testContext());
    const t = createdOf(d)[0];
    expect(t).toMatchObject({ label: 'Trace', props: { session_uid: s.uid, entry_count: 2 } });
    expect(edgesOf(d, 'CapturedIn')[0]).toMatchObject({ from_uid: t.uid, to_uid: s.uid });
    expect(edgesOf(d, 'TraceEntry').map((e) => [e.to_uid, e.props.order])).toEqual([
      [a.uid, 1],
      [b.uid, 2],
    ]);
    expect(await failure(when(MEMORY_SESSION, { action: 'trace' }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'session_uid' });
  });

  it('journal: content = label, optional session and relevant nodes', async () => {
    const view = new InMemoryView();
    const s = givenNode(view, 'Session', 's');
    const x = givenNode(view, 'Goal', 'x');
    const d = await when(MEMORY_SESSION, { action: 'journal', label: 'today', session_uid: s.uid, relevant_node_uids: [x.uid] }, view, testContext());
    expect(createdOf(d)[0].props).toMatchObject({ content: 'today', session_uid: s.uid });
    expect(edgesOf(d).map((e) => e.edge_type)).toEqual(['CapturedIn', 'RelevantTo']);
    expect(createdOf(await when(MEMORY_SESSION, { action: 'journal' }, view, testContext()))[0].label).toBe('Journal');
  });
});

describe('/memory/distill', () => {
  it('summary by default, linked to what it summarizes and its session', async () => {
    const view = new InMemoryView();
    const s = givenNode(view, 'Session', 's');
    const a = givenNode(view, 'Journal', 'a');
    const ctx = testContext({ agent_id: 'bot' });
    const d = await when(MEMORY_DISTILL, { label: 'Week 1', summary: 'we shipped', summarizes_uids: [a.uid], session_uid: s.uid }, view, ctx);
    const n = createdOf(d)[0];
    expect(n).toMatchObject({ node_type: 'Summary', summary: 'we shipped' });
    expect(n.props).toMatchObject({ content: 'we shipped', summary_type: 'session_distillation', source_node_uids: [a.uid], generated_by: 'bot', generated_at: ctx.now });
    expect(edgesOf(d).map((e) => [e.edge_type, e.to_uid])).toEqual([
      ['Summarizes', a.uid],
      ['CapturedIn', s.uid],
    ]);
    expect(d.body).toMatchObject({ output_type: 'summary', action: 'distill' });
  });

  it('lesson and skill outputs', async () => {
    const view = new InMemoryView();
    const a = givenNode(view, 'Journal', 'a');
    const lesson = await when(MEMORY_DISTILL, { label: 'Test first', output_type: 'lesson' }, view, testContext());
    expect(createdOf(lesson)[0]).toMatchObject({ node_type: 'Lesson', props: { content: 'Test first' } });
    const skill = await when(MEMORY_DISTILL, { label: 'Rollback', summary: 'how', output_type: 'skill', summarizes_uids: [a.uid] }, view, testContext());
    expect(createdOf(skill)[0].props).toMatchObject({ name: 'Rollback', description: 'how', status: 'candidate', proposed_by: 'user-1', source_node_uids: [a.uid] });
  });

  it('a skill needs summarizes_uids; output_type is a closed set', async () => {
    const view = new InMemoryView();
    expect(await failure(when(MEMORY_DISTILL, { label: 'x', output_type: 'skill' }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'summarizes_uids' });
    expect(await failure(when(MEMORY_DISTILL, { label: 'x', output_type: 'skill', summarizes_uids: [] }, view, testContext()))).toMatchObject({ code: 'missing_field' });
    expect(await failure(when(MEMORY_DISTILL, { label: 'x', output_type: 'poem' }, view, testContext()))).toMatchObject({ code: 'invalid_field', field: 'output_type' });
    expect(await failure(when(MEMORY_DISTILL, { output_type: 'lesson' }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'label' });
  });
});

describe('/memory/config', () => {
  it('set_preference creates once, then updates the same key with a new version', async () => {
    const view = new InMemoryView();
    const first = await given(MEMORY_CONFIG, { action: 'set_preference', label: 'theme', props: { value: 'dark' } }, view, testContext());
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ key: 'theme', value: 'dark', created: true });
    const uid = (first.body as { uid: string }).uid;
    const second = await given(MEMORY_CONFIG, { action: 'set_preference', label: 'Theme pref', props: { key: 'theme', value: 'light', explicit: true } }, view, testContext());
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ uid, key: 'theme', value: 'light', created: false, version: 2 });
    expect((await view.node(uid))!.props).toMatchObject({ value: 'light', explicit: true, evidence_count: 1 });
    expect([...view.nodesByUid.values()].filter((n) => n.node_type === 'Preference')).toHaveLength(1);
  });

  it('set_preference needs props.value', async () => {
    expect(await failure(when(MEMORY_CONFIG, { action: 'set_preference', label: 'k' }, new InMemoryView(), testContext()))).toMatchObject({
      code: 'missing_field',
      field: 'props.value',
    });
  });

  it('get_preferences by salience; get_policies filters active and target type', async () => {
    const view = new InMemoryView();
    const low = givenNode(view, 'Preference', 'low', { key: 'a', value: '1' });
    const high = givenNode(view, 'Preference', 'high', { key: 'b', value: '2' });
    view.nodesByUid.set(high.uid, { ...high, salience: 0.9 });
    const prefs = await when(MEMORY_CONFIG, { action: 'get_preferences' }, view, testContext());
    expect((prefs.body as { uid: string }[]).map((n) => n.uid)).toEqual([high.uid, low.uid]);
    const byKey = await when(MEMORY_CONFIG, { action: 'get_preferences', key: 'a' }, view, testContext());
    expect((byKey.body as { uid: string }[]).map((n) => n.uid)).toEqual([low.uid]);

    const ctx = testContext();
    const pol = await given(MEMORY_CONFIG, { action: 'set_policy', label: 'decay claims', props: { target_node_type: 'Claim' } }, view, ctx);
    expect(createdOf(pol)[0].props.active).toBe(true);
    await given(MEMORY_CONFIG, { action: 'set_policy', label: 'off', props: { active: false } }, view, ctx);
    expect((await when(MEMORY_CONFIG, { action: 'get_policies', active_only: true }, view, testContext())).body).toHaveLength(1);
    expect((await when(MEMORY_CONFIG, { action: 'get_policies' }, view, testContext())).body).toHaveLength(2);
    expect((await when(MEMORY_CONFIG, { action: 'get_policies', target_node_type: 'Claim' }, view, testContext())).body).toHaveLength(1);
  });
});
