import { COGNITIVE_ENDPOINTS } from '@strata/domain/cognitive';
import { TRIGGER_ALIASES } from '@strata/domain/catalogue';
import { Api } from '../support/http';
import { call, CognitiveFixture, edgesTo, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

/*
 * The product's clients work unchanged on every cognitive call (REFERENCE §2.8): props sent
 * flattened beside the label are stored by every action that creates a node, each trigger
 * alias holds only where the node it names has the host type, and every route family answers
 * a key it neither uses nor lists with a warning instead of dropping it.
 */

interface FlatCase {
  /** `path action` */
  name: string;
  path: string;
  /** the request without the flattened field; `ids` are nodes made beforehand */
  body: (ids: Ids) => Record<string, unknown>;
  /** the props field sent flattened, and its value */
  field: string;
  value: unknown;
  status?: number;
  /** the created node's uid in the answer */
  pick?: (answer: any) => string;
}

type Ids = Record<'decision' | 'session' | 'flow' | 'plan' | 'agent' | 'source', string>;

const FLAT: FlatCase[] = [
  { name: 'reality/capture source', path: '/reality/capture', body: () => ({ action: 'source', label: 'S' }), field: 'mime_type', value: 'text/html' },
  { name: 'reality/capture snippet', path: '/reality/capture', body: (i) => ({ action: 'snippet', label: 'S', source_uid: i.source }), field: 'source_location', value: 'p. 4' },
  { name: 'reality/capture observation (a flattened field beats the action default)', path: '/reality/capture', body: () => ({ action: 'observation', label: 'O' }), field: 'observation_type', value: 'inferred' },
  { name: 'reality/series create', path: '/reality/series', body: () => ({ action: 'create', label: 'Weight' }), field: 'unit', value: 'kg' },
  { name: 'epistemic/argument argument', path: '/epistemic/argument', body: () => ({ claim: { label: 'C', truth_status: 'open' } }), field: '', value: null, pick: (a) => a.claim_uid },
  { name: 'epistemic/inquiry hypothesis', path: '/epistemic/inquiry', body: () => ({ action: 'hypothesis', label: 'H' }), field: 'hypothesis_type', value: 'causal' },
  { name: 'epistemic/inquiry theory', path: '/epistemic/inquiry', body: () => ({ action: 'theory', label: 'T' }), field: 'domain', value: 'physics' },
  { name: 'epistemic/inquiry paradigm', path: '/epistemic/inquiry', body: () => ({ action: 'paradigm', label: 'P' }), field: 'field', value: 'biology' },
  { name: 'epistemic/inquiry anomaly', path: '/epistemic/inquiry', body: () => ({ action: 'anomaly', label: 'A' }), field: 'anomaly_type', value: 'measurement' },
  { name: 'epistemic/inquiry assumption', path: '/epistemic/inquiry', body: () => ({ action: 'assumption', label: 'A' }), field: 'justification', value: 'prior work' },
  { name: 'epistemic/inquiry question', path: '/epistemic/inquiry', body: () => ({ action: 'question', label: 'Q' }), field: 'question_type', value: 'causal' },
  { name: 'epistemic/inquiry open_question', path: '/epistemic/inquiry', body: () => ({ action: 'open_question', label: 'Q' }), field: 'question_type', value: 'causal' },
  { name: 'epistemic/structure concept', path: '/epistemic/structure', body: () => ({ action: 'concept', label: 'C' }), field: 'definition', value: 'a thing' },
  { name: 'epistemic/structure pattern', path: '/epistemic/structure', body: () => ({ action: 'pattern', label: 'P' }), field: 'pattern_type', value: 'cyclic' },
  { name: 'epistemic/structure mechanism', path: '/epistemic/structure', body: () => ({ action: 'mechanism', label: 'M' }), field: 'level', value: 'cellular' },
  { name: 'epistemic/structure model', path: '/epistemic/structure', body: () => ({ action: 'model', label: 'M' }), field: 'model_type', value: 'agent-based' },
  { name: 'epistemic/structure reasoning_strategy', path: '/epistemic/structure', body: () => ({ action: 'reasoning_strategy', label: 'R' }), field: 'strategy_type', value: 'abductive' },
  { name: 'epistemic/structure method', path: '/epistemic/structure', body: () => ({ action: 'method', label: 'M' }), field: 'method_type', value: 'survey' },
  { name: 'epistemic/structure experiment', path: '/epistemic/structure', body: () => ({ action: 'experiment', label: 'E' }), field: 'design_type', value: 'randomised' },
  { name: 'epistemic/structure model_evaluation', path: '/epistemic/structure', body: () => ({ action: 'model_evaluation', label: 'E' }), field: 'evaluation_type', value: 'holdout' },
  { name: 'epistemic/structure analogy', path: '/epistemic/structure', body: () => ({ action: 'analogy', label: 'A' }), field: 'source_domain', value: 'fluids' },
  { name: 'epistemic/structure inference_chain', path: '/epistemic/structure', body: () => ({ action: 'inference_chain', label: 'I' }), field: 'propagation_method', value: 'product' },
  { name: 'epistemic/structure sensitivity_analysis', path: '/epistemic/structure', body: () => ({ action: 'sensitivity_analysis', label: 'S' }), field: 'analysis_type', value: 'one-at-a-time' },
  { name: 'epistemic/structure theorem', path: '/epistemic/structure', body: () => ({ action: 'theorem', label: 'T' }), field: 'proof_status', value: 'proven' },
  { name: 'epistemic/structure equation', path: '/epistemic/structure', body: () => ({ action: 'equation', label: 'E' }), field: 'expression', value: 'E = mc^2' },
  { name: 'intent/commitment goal', path: '/intent/commitment', body: () => ({ action: 'goal', label: 'G' }), field: 'priority', value: 'high' },
  { name: 'intent/commitment project', path: '/intent/commitment', body: () => ({ action: 'project', label: 'P' }), field: 'description', value: 'the project' },
  { name: 'intent/commitment milestone', path: '/intent/commitment', body: () => ({ action: 'milestone', label: 'M' }), field: 'criteria', value: ['shipped'] },
  { name: 'intent/deliberation open_decision', path: '/intent/deliberation', body: () => ({ action: 'open_decision', label: 'D' }), field: 'reversibility', value: 'low' },
  { name: 'intent/deliberation add_option', path: '/intent/deliberation', body: (i) => ({ action: 'add_option', label: 'O', decision_uid: i.decision }), field: 'estimated_effort', value: 'small' },
  { name: 'intent/deliberation add_constraint', path: '/intent/deliberation', body: (i) => ({ action: 'add_constraint', label: 'C', decision_uid: i.decision }), field: 'constraint_type', value: 'budget' },
  { name: 'action/procedure create_flow', path: '/action/procedure', body: () => ({ action: 'create_flow', label: 'F' }), field: 'flow_type', value: 'linear' },
  { name: 'action/procedure add_step', path: '/action/procedure', body: (i) => ({ action: 'add_step', label: 'S', flow_uid: i.flow }), field: 'fallback_description', value: 'retry' },
  { name: 'action/procedure add_affordance', path: '/action/procedure', body: () => ({ action: 'add_affordance', label: 'A' }), field: 'selector', value: '#go' },
  { name: 'action/procedure add_control', path: '/action/procedure', body: () => ({ action: 'add_control', label: 'C' }), field: 'selector', value: '#gate' },
  { name: 'action/risk assess', path: '/action/risk', body: () => ({ action: 'assess' }), field: 'mitigation', value: 'backups' },
  { name: 'action/skill propose', path: '/action/skill', body: () => ({ action: 'propose', label: 'S' }), field: 'skill_type', value: 'procedure' },
  { name: 'memory/session open', path: '/memory/session', body: () => ({ action: 'open' }), field: 'session_type', value: 'chat' },
  { name: 'memory/session trace', path: '/memory/session', body: (i) => ({ action: 'trace', session_uid: i.session }), field: 'trace_type', value: 'retrieval' },
  { name: 'memory/session journal', path: '/memory/session', body: () => ({ action: 'journal', label: 'J' }), field: 'journal_type', value: 'daily' },
  { name: 'memory/distill distill', path: '/memory/distill', body: () => ({ label: 'L', output_type: 'lesson' }), field: 'applicability', value: 'always' },
  { name: 'memory/config set_preference', path: '/memory/config', body: () => ({ action: 'set_preference', label: 'p', value: 'v' }), field: 'preference_type', value: 'ui' },
  { name: 'memory/config set_policy', path: '/memory/config', body: () => ({ action: 'set_policy', label: 'P' }), field: 'policy_type', value: 'retention' },
  { name: 'agent/plan create_task', path: '/agent/plan', body: () => ({ action: 'create_task', label: 'T' }), field: 'task_type', value: 'release' },
  { name: 'agent/plan create_plan', path: '/agent/plan', body: () => ({ action: 'create_plan', label: 'P' }), field: 'estimated_risk', value: 'low' },
  { name: 'agent/plan add_step', path: '/agent/plan', body: (i) => ({ action: 'add_step', label: 'S', plan_uid: i.plan }), field: 'expected_outcome', value: 'green' },
  { name: 'agent/governance create_policy', path: '/agent/governance', body: () => ({ action: 'create_policy', label: 'P' }), field: 'applies_to', value: 'agents' },
  { name: 'agent/governance set_budget', path: '/agent/governance', body: () => ({ action: 'set_budget' }), field: 'on_exhaustion', value: 'pause' },
  { name: 'agent/governance request_approval', path: '/agent/governance', body: () => ({ action: 'request_approval' }), field: 'conditions', value: 'weekdays only' },
  { name: 'agent/execution start', path: '/agent/execution', body: () => ({ action: 'start' }), field: 'side_effects', value: ['email sent'] },
  { name: 'agent/execution register_agent', path: '/agent/execution', body: () => ({ action: 'register_agent', label: 'Flat agent' }), field: 'model_id', value: 'm-1' },
];

/** The actions that write a node but have no create row of their own (upserts, single operations). */
const OTHER_CREATES = [
  'reality/series create',
  'epistemic/argument argument',
  'action/procedure add_step',
  'memory/distill distill',
  'memory/config set_preference',
  'agent/plan add_step',
  'agent/governance set_budget',
  'agent/execution register_agent',
];

describe("the product's clients work unchanged on every cognitive call (REFERENCE §2.8)", () => {
  let f: CognitiveFixture;
  let ids: Ids;
  beforeAll(async () => {
    f = await startCognitive();
    ids = {
      decision: await makeNode(f.w, 'Decision', 'd', { question: 'which?' }),
      session: await makeNode(f.w, 'Session', 's'),
      flow: await makeNode(f.w, 'Flow', 'f'),
      plan: await makeNode(f.w, 'Plan', 'p'),
      agent: await makeNode(f.w, 'Agent', 'a'),
      source: await makeNode(f.w, 'Source', 'src'),
    };
  });
  afterAll(() => f.close());

  describe('flattened props: every action that creates a node stores a props field sent beside the label', () => {
    it('the cases cover every creating action of every cognitive route', () => {
      const creating = COGNITIVE_ENDPOINTS.flatMap((e) => Object.entries(e.actions).filter(([, d]) => d.creates).map(([a]) => `${e.path} ${a}`));
      const covered = FLAT.map((c) => c.name.split(' (')[0]);
      expect([...creating, ...OTHER_CREATES].filter((a) => !covered.includes(a))).toEqual([]);
    });

    it.each(FLAT.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const body = c.body(ids);
      const sent = c.field ? { ...body, [c.field]: c.value } : body;
      const answer = await call(f.w, c.path, sent, c.status ?? 201);
      expect(answer.warnings).toBeUndefined();
      const stored = await node(f.w, (c.pick ?? ((a) => a.uid))(answer));
      if (c.field) expect(stored.props[c.field]).toEqual(c.value);
      else expect(stored.props.truth_status).toBe('open');
      if (!c.field) return;
      // a key in props wins over the same key flattened
      const both = await call(f.w, c.path, { ...sent, label: `${(body.label as string | undefined) ?? 'x'} again`, props: { [c.field]: Array.isArray(c.value) ? ['from props'] : 'from props' } }, c.status ?? 201);
      expect((await node(f.w, (c.pick ?? ((a) => a.uid))(both))).props[c.field]).toEqual(Array.isArray(c.value) ? ['from props'] : 'from props');
    });

    it('each /epistemic/argument item takes its flattened props: claim, evidence[], warrant, argument', async () => {
      const r = await call(
        f.w,
        '/epistemic/argument',
        {
          claim: { label: 'C', claim_type: 'empirical', props: { scope: 'inside' }, scope: 'flat' },
          evidence: [{ label: 'E', evidence_type: 'survey' }],
          warrant: { label: 'W', warrant_type: 'causal' },
          argument: { label: 'A', argument_type: 'deductive' },
        },
        201,
      );
      expect(r.warnings).toBeUndefined();
      expect((await node(f.w, r.claim_uid)).props).toMatchObject({ claim_type: 'empirical', scope: 'inside' });
      expect((await node(f.w, r.evidence_uids[0])).props).toMatchObject({ evidence_type: 'survey' });
      expect((await node(f.w, r.warrant_uid)).props).toMatchObject({ warrant_type: 'causal' });
      expect((await node(f.w, r.argument_uid)).props).toMatchObject({ argument_type: 'deductive' });
    });
  });

  describe('trigger aliases: each row holds on its host type, and a node of another type is the normal 400 wrong_node_type', () => {
    /** the alias call per row, given a node of the right host type and of a wrong one */
    const ROWS: { row: string; right: (c: Api) => Promise<string>; body: (uid: string) => Record<string, unknown>; path: string; status: number }[] = [
      { row: 'agent/plan update_status task_uid', path: '/agent/plan', right: (c) => makeNode(c, 'Task', 't'), body: (u) => ({ action: 'update_status', task_uid: u, status: 'done' }), status: 200 },
      { row: 'agent/governance resolve_approval task_uid', path: '/agent/governance', right: (c) => makeNode(c, 'Approval', 'a', { status: 'pending' }), body: (u) => ({ action: 'resolve_approval', task_uid: u, approved: false }), status: 200 },
      {
        row: 'agent/governance resolve_approval props.approved',
        path: '/agent/governance',
        right: (c) => makeNode(c, 'Approval', 'a', { status: 'pending' }),
        body: (u) => ({ action: 'resolve_approval', approval_uid: u, props: { approved: true } }),
        status: 200,
      },
      { row: 'agent/governance request_approval requires_plan_uid', path: '/agent/governance', right: (c) => makeNode(c, 'Plan', 'p'), body: (u) => ({ action: 'request_approval', requires_plan_uid: u }), status: 201 },
      { row: 'agent/execution complete task_uid', path: '/agent/execution', right: async (c) => (await call(c, '/agent/execution', { action: 'start' }, 201)).uid, body: (u) => ({ action: 'complete', task_uid: u }), status: 200 },
      { row: 'agent/execution fail task_uid', path: '/agent/execution', right: async (c) => (await call(c, '/agent/execution', { action: 'start' }, 201)).uid, body: (u) => ({ action: 'fail', task_uid: u }), status: 200 },
      { row: 'agent/execution start task_uid', path: '/agent/execution', right: (c) => makeNode(c, 'Task', 't'), body: (u) => ({ action: 'start', task_uid: u }), status: 201 },
      { row: 'action/procedure add_step target_uid', path: '/action/procedure', right: (c) => makeNode(c, 'Flow', 'f'), body: (u) => ({ action: 'add_step', label: 's', target_uid: u }), status: 201 },
      { row: 'action/procedure add_control target_uid', path: '/action/procedure', right: (c) => makeNode(c, 'Flow', 'f'), body: (u) => ({ action: 'add_control', label: 'c', target_uid: u }), status: 201 },
      { row: 'action/procedure add_affordance target_uid', path: '/action/procedure', right: (c) => makeNode(c, 'Source', 's'), body: (u) => ({ action: 'add_affordance', label: 'a', target_uid: u }), status: 201 },
      { row: 'action/risk assess target_uid', path: '/action/risk', right: (c) => makeNode(c, 'Plan', 'p'), body: (u) => ({ action: 'assess', target_uid: u }), status: 201 },
    ];

    it('the cases cover every row of the catalogue table', () => {
      const rows = TRIGGER_ALIASES.flatMap((r) => r.actions.map((a) => `${r.path} ${a} ${r.alias}`));
      expect(rows.filter((r) => !ROWS.some((c) => c.row === r))).toEqual([]);
    });

    it.each(ROWS.map((r) => [r.row, r] as const))('%s', async (_name, r) => {
      const uid = await r.right(f.w);
      await call(f.w, r.path, r.body(uid), r.status);
      // fields that accept any node (add_affordance's source, assess's target, request_approval's governed node) have no wrong type
      if (['action/procedure add_affordance target_uid', 'action/risk assess target_uid', 'agent/governance request_approval requires_plan_uid'].includes(r.row)) return;
      const wrong = await makeNode(f.w, 'Goal', 'not a host');
      const before = await graphSize(f.w);
      const bad = await f.w.post(r.path, r.body(wrong));
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('wrong_node_type');
      expect(await graphSize(f.w)).toEqual(before);
    });

    it('props.approved is taken as approved (true and false), and an approved sent beside it wins', async () => {
      for (const approved of [true, false]) {
        const a = await makeNode(f.w, 'Approval', 'a', { status: 'pending' });
        const r = await call(f.w, '/agent/governance', { action: 'resolve_approval', approval_uid: a, props: { approved } }, 200);
        expect(r).toMatchObject({ approved, status: approved ? 'approved' : 'denied' });
        expect((await node(f.w, a)).props.status).toBe(approved ? 'approved' : 'denied');
      }
      const a = await makeNode(f.w, 'Approval', 'a', { status: 'pending' });
      const r = await call(f.w, '/agent/governance', { action: 'resolve_approval', approval_uid: a, approved: false, props: { approved: true } }, 200);
      expect(r).toMatchObject({ approved: false, status: 'denied' });
    });

    it('request_approval with neither governed_uid nor its alias: target null, no RequiresApproval edge', async () => {
      const r = await call(f.w, '/agent/governance', { action: 'request_approval' }, 201);
      expect(r).toMatchObject({ status: 'pending', edges_created: 0 });
      expect((await node(f.w, r.uid)).props).toMatchObject({ target_uid: null, target_type: null, status: 'pending' });
      expect(await edgesTo(f.w, r.uid)).toEqual([]);
    });
  });

  describe('nothing is dropped silently: every cognitive route family reports a key it neither uses nor lists', () => {
    /** one call per route (and per kind of answer), each with a stray key `colour` */
    const CALLS: [string, Record<string, unknown>, number][] = [
      ['/reality/capture', { action: 'source', label: 'x' }, 201],
      ['/reality/entity', { action: 'create', label: 'Stray Entity' }, 201],
      ['/reality/series', { action: 'create', label: 'stray series' }, 201],
      ['/epistemic/argument', { claim: { label: 'x' } }, 201],
      ['/epistemic/inquiry', { action: 'hypothesis', label: 'x' }, 201],
      ['/epistemic/structure', { action: 'concept', label: 'x' }, 201],
      ['/intent/commitment', { action: 'goal', label: 'x' }, 201],
      ['/intent/deliberation', { action: 'open_decision', label: 'x' }, 201],
      ['/action/procedure', { action: 'create_flow', label: 'x' }, 201],
      ['/action/risk', { action: 'assess' }, 201],
      ['/action/skill', { action: 'propose', label: 'x' }, 201],
      ['/memory/session', { action: 'open' }, 201],
      ['/memory/distill', { label: 'x' }, 201],
      ['/memory/config', { action: 'set_policy', label: 'x' }, 201],
      ['/agent/plan', { action: 'create_task' }, 201],
      ['/agent/governance', { action: 'create_policy', label: 'x' }, 201],
      ['/agent/execution', { action: 'start' }, 201],
    ];

    it('the calls cover every cognitive route', () => {
      const paths = [...COGNITIVE_ENDPOINTS.map((e) => `/${e.path}`), '/reality/entity'];
      expect(paths.filter((p) => !CALLS.some(([c]) => c === p))).toEqual([]);
    });

    it.each(CALLS)('%s %j', async (path, body, status) => {
      const r = await call(f.w, path, { ...body, colour: 'red' }, status);
      expect(r.warnings).toEqual([{ field: 'colour', reason: expect.stringContaining('ignored') }]);
      const uid = r.uid ?? r.claim_uid;
      expect((await node(f.w, uid)).props).not.toHaveProperty('colour');
      // and inside props it is the §2.6 422, nothing written
      const before = await graphSize(f.w);
      const inProps = await f.w.post(path, path === '/epistemic/argument' ? { claim: { label: 'x', props: { colour: 'red' } } } : { ...body, props: { colour: 'red' } });
      expect(inProps.status).toBe(422);
      expect(inProps.body).toMatchObject({ code: 'unknown_props_fields', unknown_fields: ['colour'] });
      expect(await graphSize(f.w)).toEqual(before);
    });

    it('transitions and reads report them too: a JSON object answer in its body, a bare list in the strata-warnings header', async () => {
      const task = (await call(f.w, '/agent/plan', { action: 'create_task' }, 201)).uid;
      const t = await call(f.w, '/agent/plan', { action: 'update_status', target_uid: task, status: 'done', colour: 'red' }, 200);
      expect(t.warnings).toEqual([{ field: 'colour', reason: expect.any(String) }]);
      const list = await f.w.post('/intent/deliberation', { action: 'get_open', colour: 'red' });
      expect(list.status).toBe(200);
      expect(Array.isArray(list.body)).toBe(true);
      expect(JSON.parse(list.headers.get('strata-warnings')!)).toEqual([{ field: 'colour', reason: expect.any(String) }]);
      const s = (await call(f.w, '/reality/series', { action: 'create', label: 'read me' }, 201)).uid;
      const latest = await call(f.w, '/reality/series', { action: 'latest', series_uid: s, colour: 'red' }, 200);
      expect(latest.warnings).toEqual([{ field: 'colour', reason: expect.any(String) }]);
    });

    it('/retrieve, /traverse and /evolve report them in the strata-warnings header (their answers are closed records and lists), and never a field they use', async () => {
      const a = (await call(f.w, '/intent/commitment', { action: 'goal', label: 'Warned goal' }, 201)).uid;
      const b = (await call(f.w, '/intent/commitment', { action: 'goal', label: 'Linked goal', related_uids: [a] }, 201)).uid;
      const warned = async (path: string, body: Record<string, unknown>) => {
        const r = await f.w.post(path, body);
        if (r.status !== 200) throw new Error(`${path} ${JSON.stringify(body)}: ${r.status} ${r.text}`);
        const h = r.headers.get('strata-warnings');
        return h ? (JSON.parse(h) as { field: string }[]).map((w) => w.field) : [];
      };
      const uses: [string, Record<string, unknown>][] = [
        ['/retrieve', { action: 'text', query: 'goal', limit: 5, node_types: ['Goal'], layer: 'intent', include_sources: true, min_score: 0 }],
        ['/retrieve', { action: 'hybrid', query: 'goal', k: 3, explain: true }],
        ['/retrieve', { action: 'recent', limit: 5, offset: 0, confidence_min: 0, salience_min: 0, created_after: 0, created_before: 4102444800, node_types: ['Goal'], layer: 'intent' }],
        ['/retrieve', { action: 'weak_claims', threshold: 0.5, limit: 5 }],
        ['/traverse', { action: 'neighborhood', start_uid: b, max_depth: 2, direction: 'both', edge_types: ['RelevantTo'], exclude_edge_types: ['Supports'], weight_threshold: 0.1, max_nodes: 50, include_provenance: true }],
        ['/traverse', { action: 'top_k_paths', start_uid: b, end_uid: a, k: 2, max_hops: 3, max_cost: 100 }],
        ['/evolve', { action: 'update', uid: a, label: 'Warned goal 2', summary: 's', confidence: 0.9, salience: 0.4, privacy_level: 'private', props_patch: { priority: 'high' }, reason: 'r', expected_version: 1 }],
        ['/evolve', { action: 'history', uid: a }],
        ['/evolve', { action: 'snapshot', uid: a, version: 1 }],
      ];
      for (const [path, body] of uses) expect([path, body.action, await warned(path, body)]).toEqual([path, body.action, []]);
      expect(await warned('/retrieve', { action: 'text', query: 'goal', colour: 'red' })).toEqual(['colour']);
      expect(await warned('/traverse', { action: 'neighborhood', start_uid: b, colour: 'red' })).toEqual(['colour']);
      // the SDK's `props` where /evolve update takes `props_patch`: reported, not silently a no-op
      expect(await warned('/evolve', { action: 'update', uid: a, props: { priority: 'low' } })).toEqual(['props']);
      expect((await node(f.w, a)).props.priority).toBe('high');
    });
  });
});
