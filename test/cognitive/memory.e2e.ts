import { FixedClock } from '@strata/domain/time';
import { api } from '../support/http';
import { call, CognitiveFixture, edgesFrom, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

describe('POST /memory/session', () => {
  /** the service's clock: tests read and move it instead of the wall clock */
  const clock = new FixedClock();
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive(clock)));
  afterAll(() => f.close());
  const M = '/memory/session';

  it('open, trace, journal, close (twice)', async () => {
    const t0 = clock.now();
    const s = await call(f.w, M, { action: 'open', props: { session_type: 'research' } }, 201);
    expect(s).toMatchObject({ label: 'Session', node_type: 'Session', layer: 'memory' });
    expect(s.started_at).toBeGreaterThanOrEqual(t0 - 1);
    const a = await makeNode(f.w, 'Claim', 'a');
    const b = await makeNode(f.w, 'Claim', 'b');
    const tr = await call(f.w, M, { action: 'trace', session_uid: s.uid, relevant_node_uids: [a, b, a] }, 201);
    expect((await node(f.w, tr.uid)).props).toMatchObject({ session_uid: s.uid, entry_count: 2, started_at: expect.any(Number) });
    const te = (await edgesFrom(f.w, tr.uid)).filter((e) => e.edge_type === 'TraceEntry');
    expect(te.map((e) => [e.to_uid, e.props.order]).sort((x, y) => x[1] - y[1])).toEqual([
      [a, 1],
      [b, 2],
    ]);
    const j = await call(f.w, M, { action: 'journal', label: 'found it', session_uid: s.uid, relevant_node_uids: [b] }, 201);
    expect((await node(f.w, j.uid)).props).toMatchObject({ content: 'found it', session_uid: s.uid });
    expect((await edgesFrom(f.w, j.uid)).map((e) => e.edge_type).sort()).toEqual(['CapturedIn', 'RelevantTo']);
    const c1 = await call(f.w, M, { action: 'close', session_uid: s.uid, props: { focus_summary: 'memory research' } }, 200);
    expect(c1).toMatchObject({ uid: s.uid, version: 2, started_at: s.started_at, already_closed: false });
    expect((await node(f.w, s.uid)).props).toMatchObject({ ended_at: c1.ended_at, focus_summary: 'memory research' });
    const c2 = await call(f.w, M, { action: 'close', session_uid: s.uid }, 200);
    expect(c2).toMatchObject({ version: 2, ended_at: c1.ended_at, already_closed: true });
    expect((await f.w.post(M, { action: 'trace', session_uid: a })).body).toMatchObject({ code: 'wrong_node_type', field: 'session_uid' });
  });
});

describe('POST /memory/distill', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it('summary (default), lesson and skill outputs with Summarizes and CapturedIn edges', async () => {
    const s = (await call(f.w, '/memory/session', { action: 'open' }, 201)).uid;
    const j = await makeNode(f.w, 'Journal', 'j');
    const sum = await call(f.w, '/memory/distill', { label: 'Week', summary: 'it went well', summarizes_uids: [j], session_uid: s, agent_id: 'bot' }, 201);
    expect(sum).toMatchObject({ node_type: 'Summary', output_type: 'summary', action: 'distill' });
    expect((await node(f.w, sum.uid)).props).toMatchObject({ content: 'it went well', summary_type: 'session_distillation', source_node_uids: [j], generated_by: 'bot' });
    expect((await edgesFrom(f.w, sum.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['CapturedIn', s],
        ['Summarizes', j],
      ].sort(),
    );
    const lesson = await call(f.w, '/memory/distill', { label: 'Write tests first', output_type: 'lesson', session_uid: s }, 201);
    expect((await node(f.w, lesson.uid)).props).toMatchObject({ content: 'Write tests first', session_uid: s });
    const skill = await call(f.w, '/memory/distill', { label: 'Triage', summary: 'steps', output_type: 'skill', summarizes_uids: [j] }, 201);
    expect((await node(f.w, skill.uid)).props).toMatchObject({ name: 'Triage', description: 'steps', status: 'candidate' });
    const before = await graphSize(f.w);
    expect((await f.w.post('/memory/distill', { label: 'x', output_type: 'skill' })).body).toMatchObject({ code: 'missing_field', field: 'summarizes_uids' });
    expect((await f.w.post('/memory/distill', { label: 'x', summarizes_uids: [j, 'gone'] })).body).toMatchObject({ code: 'not_found', uid: 'gone' });
    expect(await graphSize(f.w)).toEqual(before);
  });
});

describe('POST /memory/config', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const C = '/memory/config';

  it('set_preference is keyed: the second set updates, never duplicates', async () => {
    const p1 = await call(f.w, C, { action: 'set_preference', label: 'tone', props: { value: 'formal' } }, 201);
    expect(p1).toMatchObject({ key: 'tone', value: 'formal', created: true, node_type: 'Preference' });
    const p2 = await call(f.w, C, { action: 'set_preference', label: 'Tone preference', props: { key: 'tone', value: 'casual' } }, 200);
    expect(p2).toMatchObject({ uid: p1.uid, key: 'tone', value: 'casual', created: false, version: 2 });
    expect((await node(f.w, p1.uid)).props).toMatchObject({ value: 'casual', evidence_count: 1 });
    const all = await call(f.ro, C, { action: 'get_preferences' }, 200);
    expect(all.map((n: any) => n.uid)).toEqual([p1.uid]);
    expect(await call(f.w, C, { action: 'get_preferences', key: 'other' }, 200)).toEqual([]);
    expect((await f.w.post(C, { action: 'set_preference', label: 'x' })).body).toMatchObject({ code: 'missing_field', field: 'props.value' });
  });

  it('set_preference updates only a Preference in the Spaces the call places it in', async () => {
    const owner = api(f.app.url, f.jwt);
    const space = async (label: string) => (await call(owner, '/node', { node_type: 'Space', label }, 201)).uid as string;
    const a = await space('Team A');
    const b = await space('Team B');
    const inB = await call(owner, C, { action: 'set_preference', label: 'editor', props: { value: 'vim' }, space_uid: b }, 201);
    const inA = await call(owner, C, { action: 'set_preference', label: 'editor', props: { value: 'emacs' }, space_uid: a }, 201);
    expect(inA).toMatchObject({ created: true, key: 'editor', value: 'emacs' });
    expect(inA.uid).not.toBe(inB.uid);
    expect((await edgesFrom(owner, inA.uid)).filter((e) => e.edge_type === 'InSpace').map((e) => e.to_uid)).toEqual([a]);
    expect(await node(owner, inB.uid)).toMatchObject({ version: 1, props: { value: 'vim', evidence_count: 0 } });
    const again = await call(owner, C, { action: 'set_preference', label: 'editor', props: { value: 'nano' }, space_uid: b }, 200);
    expect(again).toMatchObject({ uid: inB.uid, created: false, value: 'nano' });
  });

  it('set_policy and get_policies', async () => {
    const p = await call(f.w, C, { action: 'set_policy', label: 'expire traces', props: { policy_type: 'retention', target_node_type: 'Trace' } }, 201);
    expect((await node(f.w, p.uid)).props).toMatchObject({ active: true, target_node_type: 'Trace' });
    await call(f.w, C, { action: 'set_policy', label: 'off', props: { active: false } }, 201);
    expect((await call(f.w, C, { action: 'get_policies' }, 200)).length).toBe(2);
    expect((await call(f.w, C, { action: 'get_policies', active_only: true }, 200)).map((n: any) => n.uid)).toEqual([p.uid]);
    expect((await call(f.w, C, { action: 'get_policies', target_node_type: 'Trace' }, 200)).map((n: any) => n.uid)).toEqual([p.uid]);
  });
});
