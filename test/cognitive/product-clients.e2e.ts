import { Api } from '../support/http';
import { call, CognitiveFixture, edgesFrom, edgesTo, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

/*
 * The product's clients work unchanged: every request form REFERENCE §2.8 lists, sent over
 * HTTP the way the hosted product's SDK and MCP server send it, stores what the client meant
 * (read back through the generic routes), and nothing a client sent is dropped silently.
 */

type Stored = Record<string, any>;

interface PropsCase {
  name: string;
  path: string;
  /** the request; `uid` of the created node is read from the answer by `created` */
  body: Record<string, unknown>;
  created?: (answer: any) => string;
  /** props the stored node must have */
  props: Record<string, unknown>;
  /** keys the stored props must not have (output uses the catalogue name) */
  absent?: string[];
}

const uidOf = (a: any) => a.uid as string;

async function aliasesOf(c: Api, uid: string): Promise<string[]> {
  const r = await c.get(`/aliases/${uid}`);
  if (r.status !== 200) throw new Error(`GET /aliases/${uid}: ${r.status} ${r.text}`);
  return (r.body as { text: string }[]).map((a) => a.text).sort();
}

describe("the product's clients work unchanged (REFERENCE §2.8)", () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  describe('props aliases, additions and flattened props are stored under the catalogue name', () => {
    const cases: PropsCase[] = [
      // props aliases, inside props
      { name: 'Question question → text', path: '/epistemic/inquiry', body: { action: 'question', label: 'Q', props: { question: 'Why is the sky blue?' } }, props: { text: 'Why is the sky blue?' }, absent: ['question'] },
      { name: 'OpenQuestion question → text, flattened', path: '/epistemic/inquiry', body: { action: 'open_question', label: 'OQ', question: 'What is dark matter?' }, props: { text: 'What is dark matter?' }, absent: ['question'] },
      { name: 'the catalogue name wins over its alias', path: '/epistemic/inquiry', body: { action: 'question', label: 'Q2', props: { text: 'the field', question: 'the alias' } }, props: { text: 'the field' }, absent: ['question'] },
      { name: 'a key in props wins over the same key flattened', path: '/epistemic/inquiry', body: { action: 'question', label: 'Q3', scope: 'flat', props: { scope: 'inside' } }, props: { scope: 'inside', text: 'Q3' } },
      { name: 'Claim statement → content', path: '/epistemic/argument', body: { claim: { label: 'C', props: { statement: 'Water boils at 100 °C' } } }, created: (a) => a.claim_uid, props: { content: 'Water boils at 100 °C' }, absent: ['statement'] },
      { name: 'Claim statement flattened in the claim item', path: '/epistemic/argument', body: { claim: { label: 'C2', statement: 'Ice floats', claim_type: 'empirical' } }, created: (a) => a.claim_uid, props: { content: 'Ice floats', claim_type: 'empirical' } },
      { name: 'Evidence statement → description, flattened in an evidence item', path: '/epistemic/argument', body: { claim: { label: 'C3' }, evidence: [{ label: 'E', statement: 'Measured at sea level', sample_size: 12 }] }, created: (a) => a.evidence_uids[0], props: { description: 'Measured at sea level', sample_size: 12 }, absent: ['statement'] },
      { name: 'Evidence content → description', path: '/epistemic/argument', body: { claim: { label: 'C4' }, evidence: [{ label: 'E2', props: { content: 'A lab notebook' } }] }, created: (a) => a.evidence_uids[0], props: { description: 'A lab notebook' }, absent: ['content'] },
      { name: 'Warrant content → principle', path: '/epistemic/argument', body: { claim: { label: 'C5' }, warrant: { label: 'W', content: 'Physical law' } }, created: (a) => a.warrant_uid, props: { principle: 'Physical law' }, absent: ['content'] },
      { name: 'Warrant statement → principle', path: '/epistemic/argument', body: { claim: { label: 'C6' }, warrant: { label: 'W2', props: { statement: 'Induction' } } }, created: (a) => a.warrant_uid, props: { principle: 'Induction' }, absent: ['statement'] },
      { name: 'Person canonical_name → full_name', path: '/reality/entity', body: { action: 'create', label: 'Ada', props: { entity_type: 'person', canonical_name: 'Ada Lovelace' } }, props: { full_name: 'Ada Lovelace' }, absent: ['canonical_name'] },
      { name: 'Person name → full_name, with entity_type flattened', path: '/reality/entity', body: { action: 'create', label: 'Alan', entity_type: 'person', name: 'Alan Turing' }, props: { full_name: 'Alan Turing' }, absent: ['name', 'entity_type'] },
      { name: 'Concept canonical_name → name', path: '/epistemic/structure', body: { action: 'concept', label: 'Entropy', props: { canonical_name: 'Thermodynamic entropy' } }, props: { name: 'Thermodynamic entropy' }, absent: ['canonical_name'] },
      // additions
      { name: 'Journal mood', path: '/memory/session', body: { action: 'journal', label: 'Day 1', props: { mood: 'calm' } }, props: { mood: 'calm', content: 'Day 1' } },
      { name: 'Journal mood, flattened', path: '/memory/session', body: { action: 'journal', label: 'Day 2', mood: 'tired' }, props: { mood: 'tired' } },
      { name: 'RiskAssessment vulnerability', path: '/action/risk', body: { action: 'assess', props: { vulnerability: 'unpatched kernel', severity: 'high' } }, props: { vulnerability: 'unpatched kernel', severity: 'high', requires_approval: true } },
      { name: 'MemoryPolicy principle', path: '/memory/config', body: { action: 'set_policy', label: 'Forget', principle: 'Keep only what is used' }, props: { principle: 'Keep only what is used', active: true } },
      { name: 'SafetyBudget description', path: '/agent/governance', body: { action: 'set_budget', props: { description: 'Monthly model spend', limit: 50 } }, props: { description: 'Monthly model spend', limit: 50, remaining: 50 } },
      { name: 'Control condition and action', path: '/action/procedure', body: { action: 'add_control', label: 'Gate', condition: 'balance > 0', props: { action: 'continue' } }, props: { condition: 'balance > 0', action: 'continue', control_type: 'conditional', label: 'Gate' } },
      { name: 'an addition is null when absent', path: '/memory/session', body: { action: 'journal', label: 'Day 3' }, props: { mood: null } },
      // flattened props of any create
      { name: 'Task fields flattened beside the label', path: '/agent/plan', body: { action: 'create_task', label: 'Ship', priority: 'high', task_type: 'release' }, props: { priority: 'high', task_type: 'release', description: 'Ship' } },
      { name: 'Preference key and value flattened', path: '/memory/config', body: { action: 'set_preference', label: 'Theme', key: 'theme', value: 'dark' }, props: { key: 'theme', value: 'dark' } },
      { name: 'Preference value flattened, key from the label', path: '/memory/config', body: { action: 'set_preference', label: 'font', value: 'serif' }, props: { key: 'font', value: 'serif' } },
    ];

    it.each(cases.map((c) => [c.name, c]))('%s', async (_name, c) => {
      const answer = await call(f.w, c.path, c.body, 201);
      expect(answer.warnings).toBeUndefined();
      const stored: Stored = await node(f.w, (c.created ?? uidOf)(answer));
      expect(stored.props).toMatchObject(c.props);
      for (const k of c.absent ?? []) expect(stored.props).not.toHaveProperty(k);
    });

    it('the same aliases hold on POST /node and PATCH /node', async () => {
      const r = await f.w.post('/node', { node_type: 'Person', label: 'Grace', props: { name: 'Grace Hopper' } });
      expect(r.status).toBe(201);
      expect(r.body.props).toMatchObject({ full_name: 'Grace Hopper' });
      const q = await makeNode(f.w, 'Question', 'q', { text: 'old' });
      const p = await f.w.patch(`/node/${q}`, { props: { question: 'new' } });
      expect(p.status).toBe(200);
      expect((await node(f.w, q)).props).toMatchObject({ text: 'new' });
      expect((await node(f.w, q)).props).not.toHaveProperty('question');
    });
  });

  describe('canonical_name on Organization, Nation, Event and Place is an alias of the node, not a props field', () => {
    it.each([
      ['organization', 'Organization', 'Acme', 'Acme Corporation'],
      ['nation', 'Nation', 'France', 'French Republic'],
      ['event', 'Event', 'Moon landing', 'Apollo 11 landing'],
      ['place', 'Place', 'NYC', 'New York City'],
    ])('/reality/entity create %s', async (entityType, nodeType, label, canonical) => {
      const created = await call(f.w, '/reality/entity', { action: 'create', label, props: { entity_type: entityType, canonical_name: canonical } }, 201);
      expect(created).toMatchObject({ node_type: nodeType, created: true });
      const stored = await node(f.w, created.uid);
      expect(stored.props).not.toHaveProperty('canonical_name');
      expect(await aliasesOf(f.w, created.uid)).toEqual([canonical, label].sort());
      // the client's name now finds the entity
      const resolved = await call(f.w, '/reality/entity', { action: 'resolve', text: canonical }, 200);
      expect(resolved.uid).toBe(created.uid);
      const again = await call(f.w, '/reality/entity', { action: 'create', label: canonical, props: { entity_type: entityType } }, 200);
      expect(again).toMatchObject({ uid: created.uid, created: false, matched_by: 'alias' });
    });

    it('POST /node and /batch register it too', async () => {
      const r = await f.w.post('/node', { node_type: 'Organization', label: 'Initech', props: { canonical_name: 'Initech LLC', org_type: 'company' } });
      expect(r.status).toBe(201);
      expect(r.body.props).toMatchObject({ org_type: 'company' });
      expect(r.body.props).not.toHaveProperty('canonical_name');
      expect(await aliasesOf(f.w, r.body.uid)).toEqual(['Initech LLC']);
      const b = await f.w.post('/batch', { nodes: [{ node_type: 'Place', label: 'Here', props: { canonical_name: 'Right Here' } }] });
      expect(b.status).toBe(201);
      expect(await aliasesOf(f.w, b.body.node_uids[0])).toEqual(['Right Here']);
    });

    it('a canonical_name that cannot be matched is a 400 and writes nothing; on a type without the row it is an unknown field (422)', async () => {
      const before = await graphSize(f.w);
      const bad = await f.w.post('/node', { node_type: 'Nation', label: 'X', props: { canonical_name: '!!!' } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'invalid_props', field: 'props.canonical_name' });
      expect(await graphSize(f.w)).toEqual(before);
      const goal = await makeNode(f.w, 'Goal', 'g');
      const p = await f.w.patch(`/node/${goal}`, { props: { canonical_name: 'G' } });
      expect(p.status).toBe(422);
      expect(p.body.code).toBe('unknown_props_fields');
    });
  });

  describe('trigger aliases', () => {
    it('/agent/plan update_status: task_uid → target_uid', async () => {
      const task = (await call(f.w, '/agent/plan', { action: 'create_task', label: 't' }, 201)).uid;
      const r = await call(f.w, '/agent/plan', { action: 'update_status', task_uid: task, status: 'in_progress' }, 200);
      expect(r).toMatchObject({ uid: task, status: 'in_progress', previous_status: 'pending' });
      expect((await node(f.w, task)).props.status).toBe('in_progress');
    });

    it('an alias naming a node of the wrong host type is the normal 400 wrong_node_type', async () => {
      const goal = await makeNode(f.w, 'Goal', 'g');
      const r = await f.w.post('/agent/plan', { action: 'update_status', task_uid: goal, status: 'done' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('wrong_node_type');
      const flow = await makeNode(f.w, 'Goal', 'not a flow');
      expect((await f.w.post('/action/procedure', { action: 'add_step', label: 's', target_uid: flow })).body.code).toBe('wrong_node_type');
    });

    it('/agent/governance request_approval without a target, with requires_plan_uid, and resolve_approval with task_uid and props.approved', async () => {
      const free = await call(f.w, '/agent/governance', { action: 'request_approval', label: 'Spend' }, 201);
      expect((await node(f.w, free.uid)).props).toMatchObject({ status: 'pending', target_uid: null, target_type: null });
      expect(await edgesTo(f.w, free.uid)).toEqual([]);

      const plan = await makeNode(f.w, 'Plan', 'p');
      const gated = await call(f.w, '/agent/governance', { action: 'request_approval', requires_plan_uid: plan }, 201);
      expect((await node(f.w, gated.uid)).props).toMatchObject({ target_uid: plan, target_type: 'Plan' });
      expect((await edgesTo(f.w, gated.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['RequiresApproval', plan]]);

      const r = await call(f.w, '/agent/governance', { action: 'resolve_approval', task_uid: free.uid, props: { approved: true, reason: 'fine' } }, 200);
      expect(r).toMatchObject({ status: 'approved', approved: true });
      expect((await node(f.w, free.uid)).props).toMatchObject({ status: 'approved', reason: 'fine' });
    });

    it('/agent/execution start: task_uid → plan_uid, a Task accepted as the ExecutionOf target', async () => {
      const task = await makeNode(f.w, 'Task', 't');
      const ex = await call(f.w, '/agent/execution', { action: 'start', task_uid: task }, 201);
      expect((await edgesFrom(f.w, ex.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['ExecutionOf', task]]);
      const plan = await makeNode(f.w, 'Plan', 'p');
      const ex2 = await call(f.w, '/agent/execution', { action: 'start', task_uid: plan }, 201);
      expect((await edgesFrom(f.w, ex2.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['ExecutionOf', plan]]);
      // plan_uid itself keeps its own host types
      expect((await f.w.post('/agent/execution', { action: 'start', plan_uid: task })).body.code).toBe('wrong_node_type');
    });

    it('/agent/execution complete and fail: task_uid naming an Execution, or a Task or Plan with exactly one running Execution', async () => {
      const ex = await call(f.w, '/agent/execution', { action: 'start' }, 201);
      await call(f.w, '/agent/execution', { action: 'complete', task_uid: ex.uid, props: { description: 'done' } }, 200);
      expect((await node(f.w, ex.uid)).props).toMatchObject({ status: 'completed', description: 'done' });

      const task = await makeNode(f.w, 'Task', 'one running');
      const run = await call(f.w, '/agent/execution', { action: 'start', task_uid: task }, 201);
      const r = await call(f.w, '/agent/execution', { action: 'fail', task_uid: task, error: 'boom' }, 200);
      expect(r.uid).toBe(run.uid);
      expect((await node(f.w, run.uid)).props).toMatchObject({ status: 'failed', error: 'boom' });

      // none running now: 409 listing none
      const none = await f.w.post('/agent/execution', { action: 'complete', task_uid: task });
      expect(none.status).toBe(409);
      expect(none.body).toMatchObject({ code: 'invalid_transition', running_execution_uids: [] });

      // two running: 409 listing both, nothing written
      const plan = await makeNode(f.w, 'Plan', 'two running');
      const a = await call(f.w, '/agent/execution', { action: 'start', plan_uid: plan }, 201);
      const b = await call(f.w, '/agent/execution', { action: 'start', plan_uid: plan }, 201);
      const before = await graphSize(f.w);
      const two = await f.w.post('/agent/execution', { action: 'complete', task_uid: plan });
      expect(two.status).toBe(409);
      expect(two.body.code).toBe('invalid_transition');
      expect([...two.body.running_execution_uids].sort()).toEqual([a.uid, b.uid].sort());
      expect(await graphSize(f.w)).toEqual(before);
      expect((await node(f.w, a.uid)).props.status).toBe('running');

      // a Goal is none of the host types the alias allows
      const goal = await makeNode(f.w, 'Goal', 'g');
      expect((await f.w.post('/agent/execution', { action: 'complete', task_uid: goal })).body.code).toBe('wrong_node_type');
    });

    it('/action/procedure add_step, add_control: target_uid → flow_uid; add_affordance: target_uid → source_uid', async () => {
      const flow = (await call(f.w, '/action/procedure', { action: 'create_flow', label: 'F' }, 201)).uid;
      const step = await call(f.w, '/action/procedure', { action: 'add_step', label: 's1', target_uid: flow }, 201);
      expect(step.order).toBe(1);
      expect((await edgesTo(f.w, step.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['ComposedOf', flow]]);
      const control = await call(f.w, '/action/procedure', { action: 'add_control', label: 'c', target_uid: flow }, 201);
      expect((await edgesTo(f.w, control.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['Controls', flow]]);
      const page = await makeNode(f.w, 'Source', 'page');
      const aff = await call(f.w, '/action/procedure', { action: 'add_affordance', label: 'click', target_uid: page }, 201);
      expect((await node(f.w, aff.uid)).props.source_uid).toBe(page);
      expect((await edgesFrom(f.w, aff.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['AvailableOn', page]]);
    });

    it('/action/risk assess: target_uid → assessed_uid', async () => {
      const plan = await makeNode(f.w, 'Plan', 'risky');
      const r = await call(f.w, '/action/risk', { action: 'assess', target_uid: plan, props: { severity: 'low' } }, 201);
      expect((await node(f.w, r.uid)).props).toMatchObject({ target_uid: plan, severity: 'low' });
      expect((await edgesTo(f.w, r.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['RiskAssessedBy', plan]]);
    });
  });

  describe('nothing a client sent is dropped silently', () => {
    it('a props field no type lists is still a 422 unknown_props_fields, and nothing is written', async () => {
      const before = await graphSize(f.w);
      const r = await f.w.post('/memory/session', { action: 'journal', label: 'J', props: { colour: 'red' } });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'unknown_props_fields', unknown_fields: ['colour'] });
      expect(r.body.valid_fields).toContain('mood');
      expect(await graphSize(f.w)).toEqual(before);
    });

    it('a key beside the label that is neither request field nor props field is answered with a warning', async () => {
      const r = await call(f.w, '/memory/session', { action: 'journal', label: 'J2', colour: 'red', mood: 'ok' }, 201);
      expect(r.warnings).toEqual([{ field: 'colour', reason: expect.stringContaining('ignored') }]);
      const stored = await node(f.w, r.uid);
      expect(stored.props).toMatchObject({ mood: 'ok' });
      expect(stored.props).not.toHaveProperty('colour');
    });

    it('/epistemic/argument reports unused keys of its items, and top-level ones first', async () => {
      const r = await call(
        f.w,
        '/epistemic/argument',
        { claim: { label: 'C', statement: 'S', colour: 'red', agent_id: 'item-agent' }, evidence: [{ label: 'E', weight: 3 }], strength: 1, agent_id: 'call-agent' },
        201,
      );
      expect(r.warnings.map((w: { field: string }) => w.field)).toEqual(['strength', 'claim.colour', 'claim.agent_id', 'evidence[0].weight']);
      const claim = await node(f.w, r.claim_uid);
      expect(claim.props.content).toBe('S');
      expect(claim.agent_id).toBe('call-agent');
    });

    it('an alias sent with its field is reported, the field used', async () => {
      const a = (await call(f.w, '/agent/plan', { action: 'create_task', label: 'a' }, 201)).uid;
      const b = (await call(f.w, '/agent/plan', { action: 'create_task', label: 'b' }, 201)).uid;
      const r = await call(f.w, '/agent/plan', { action: 'update_status', target_uid: a, task_uid: b, status: 'done' }, 200);
      expect(r.uid).toBe(a);
      expect(r.warnings).toEqual([{ field: 'task_uid', reason: 'alias of target_uid, which was also sent and was used instead' }]);
      expect((await node(f.w, b)).props.status).toBe('pending');
    });

    it('transitions, reads and /reality/entity report unused keys too; a bare-array answer carries them in a header', async () => {
      const t = await call(f.w, '/epistemic/inquiry', { action: 'hypothesis', label: 'H', confidnce: 0.2 }, 201);
      expect(t.warnings).toEqual([{ field: 'confidnce', reason: expect.any(String) }]);
      const e = await call(f.w, '/reality/entity', { action: 'resolve', text: 'nobody', fuzzy: true }, 200);
      expect(e).toEqual({ uid: null, warnings: [{ field: 'fuzzy', reason: 'not a field of /reality/entity action resolve; ignored' }] });
      const list = await f.w.post('/agent/governance', { action: 'get_pending', sort: 'newest' });
      expect(list.status).toBe(200);
      expect(Array.isArray(list.body)).toBe(true);
      expect(JSON.parse(list.headers.get('strata-warnings')!)).toEqual([{ field: 'sort', reason: expect.any(String) }]);
    });

    it('an upsert takes flattened props on its update path too', async () => {
      const agent = (await call(f.w, '/agent/execution', { action: 'register_agent', label: 'Budgeted' }, 201)).uid;
      const first = await call(f.w, '/agent/governance', { action: 'set_budget', governed_uid: agent, budget_type: 'cost', limit: 10 }, 201);
      const second = await call(f.w, '/agent/governance', { action: 'set_budget', governed_uid: agent, budget_type: 'cost', limit: 30, consumed: 5 }, 200);
      expect(second.uid).toBe(first.uid);
      expect((await node(f.w, first.uid)).props).toMatchObject({ limit: 30, consumed: 5, remaining: 25, budget_type: 'cost' });
      await call(f.w, '/memory/config', { action: 'set_preference', label: 'Lang', key: 'lang', value: 'en' }, 201);
      const up = await call(f.w, '/memory/config', { action: 'set_preference', label: 'Lang', key: 'lang', value: 'fr' }, 200);
      expect(up).toMatchObject({ key: 'lang', value: 'fr', created: false });
    });

    it('a call that uses every key it was sent carries no warnings', async () => {
      const r = await call(f.w, '/intent/commitment', { action: 'goal', label: 'G', summary: 's', confidence: 0.9, salience: 0.4, privacy_level: 'private', agent_id: 'a', props: { priority: 'p' } }, 201);
      expect(r).not.toHaveProperty('warnings');
    });
  });
});
