import { api, createApiKey, signUp } from '../support/http';
import { call, CognitiveFixture, edgesFrom, graphSize, makeNode, node, startCognitive, WRITE_CALLS } from './cognitive-fixture';


const READ_CALLS: [string, Record<string, unknown>][] = [
  ['/intent/deliberation', { action: 'get_open' }],
  ['/action/risk', { action: 'get_assessments' }],
  ['/action/skill', { action: 'list' }],
  ['/memory/config', { action: 'get_preferences' }],
  ['/memory/config', { action: 'get_policies' }],
  ['/agent/governance', { action: 'get_pending' }],
  ['/agent/execution', { action: 'get_executions' }],
];

describe('cognitive routes: shared rules (REFERENCE §4.0)', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it.each(WRITE_CALLS)('%s: a write action answers 201 for a read+write key and 403 read_only_credential for a read-only key', async (path, body) => {
    const before = await graphSize(f.w);
    const denied = await f.ro.post(path, body);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'read_only_credential' });
    expect(await graphSize(f.w)).toEqual(before);
    expect((await f.w.post(path, body)).status).toBe(201);
  });

  it.each(READ_CALLS)('%s %j: read-only keys may call read actions', async (path, body) => {
    const r = await f.ro.post(path, body);
    expect(r.status).toBe(200);
  });

  it('unknown or missing action → 400 unknown_action listing the valid ones', async () => {
    const r = await f.w.post('/intent/commitment', { action: 'dream', label: 'x' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'unknown_action', valid_actions: ['goal', 'project', 'milestone'] });
    const none = await f.w.post('/agent/plan', { label: 'x' });
    expect(none.body).toMatchObject({ code: 'unknown_action', valid_actions: ['create_task', 'create_plan', 'add_step', 'update_status', 'get_plan'] });
    // the single-operation endpoints ignore `action`
    expect((await f.w.post('/epistemic/argument', { action: 'whatever', claim: { label: 'c' } })).status).toBe(201);
  });

  it('malformed input: never a 500, never a partial write', async () => {
    const before = await graphSize(f.w);
    const cases: [unknown, number, string][] = [
      [{ action: 'goal', label: 42 }, 400, 'invalid_field'],
      [{ action: 'goal', label: '   ' }, 400, 'missing_field'],
      [{ action: 'goal', label: 'g', confidence: 2 }, 400, 'invalid_field'],
      [{ action: 'goal', label: 'g', props: 'nope' }, 400, 'invalid_props'],
      [{ action: 'goal', label: 'g', props: { wings: 2 } }, 422, 'unknown_props_fields'],
      [{ action: 'goal', label: 'g', props: { status: 'sleeping' } }, 400, 'invalid_props'],
      [{ action: 'goal', label: 'g', related_uids: 'not-an-array' }, 400, 'invalid_field'],
      [{ action: 'goal', label: 'g', related_uids: ['bad uid!'] }, 400, 'invalid_uid'],
      [{ action: 'goal', label: 'g', parent_uid: 'no-such-node' }, 404, 'not_found'],
      [{ action: 'goal', label: 'g', agent_id: 'x'.repeat(129) }, 400, 'invalid_field'],
    ];
    for (const [body, status, code] of cases) {
      const r = await f.w.post('/intent/commitment', body);
      expect({ body, status: r.status, code: r.body?.code }).toEqual({ body, status, code });
    }
    const unknownProps = await f.w.post('/intent/commitment', { action: 'goal', label: 'g', props: { wings: 2 } });
    expect(unknownProps.body.unknown_fields).toEqual(['wings']);
    const notJson = await f.w.post('/intent/commitment', undefined, { raw: '{"action":', contentType: 'application/json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe('invalid_json');
    const arrayBody = await f.w.post('/intent/commitment', [1, 2]);
    expect(arrayBody.body.code).toBe('invalid_json');
    expect(await graphSize(f.w)).toEqual(before);
  });

  it('a uid from another organization is not_found', async () => {
    const other = await startCognitiveOrg(f);
    const foreign = await makeNode(other, 'Goal', 'theirs');
    const r = await f.w.post('/intent/commitment', { action: 'goal', label: 'mine', parent_uid: foreign });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'not_found', field: 'parent_uid', uid: foreign });
  });

  it("agent attribution: the body's agent_id is stamped on the node and its trigger edges", async () => {
    const goal = await makeNode(f.w, 'Goal');
    const r = await call(f.w, '/intent/commitment', { action: 'milestone', label: 'm', parent_uid: goal, agent_id: 'planner-1' }, 201);
    expect((await node(f.w, r.uid)).agent_id).toBe('planner-1');
    expect((await edgesFrom(f.w, goal)).find((e) => e.to_uid === r.uid)!.agent_id).toBe('planner-1');
  });
});

async function startCognitiveOrg(f: CognitiveFixture) {
  const user = await signUp(f.app.url);
  const key = await createApiKey(f.app.url, user.access_token, { scopes: ['read', 'write'] });
  return api(f.app.url, key.key);
}
