import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { api, createApiKey } from '../support/http';
import { RetrievalFixture, expectError, startRetrieval } from '../retrieval/retrieval-fixture';
import { SynthesisWorld, seedSynthesisWorld } from '../synthesis/synthesis-world';

const NOW = 1_780_000_000;
const offline = { ...loadConfig({}).llm, provider: 'offline' as const };

/**
 * REFERENCE §13.6 with §10: `POST /synthesis/run/{project_uid}` writes graph data (through its
 * job), so it is a governed request. It is judged when it is made, on the Project it names and
 * the Article it would create; the job writes as the caller, and its unit is judged as that
 * request (the approval the request was replayed with covers it).
 */
describe('policies on synthesis runs', () => {
  const clock = new FixedClock(NOW);
  let f: RetrievalFixture;
  let s: SynthesisWorld;
  beforeAll(async () => {
    f = await startRetrieval({ clock, embeddingProvider: 'none', llm: offline });
    s = await seedSynthesisWorld(f.w);
  }, 60_000);
  afterAll(() => f.close());

  const finished = (id: string) =>
    eventually(
      async () => {
        const r = await f.w.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 50 },
    );
  const jobs = async () => (await f.w.get('/jobs?kind=synthesis')).body.items.length;
  const articles = async () => (await f.w.get('/nodes?node_type=Article&limit=1000')).body.items;

  it('deny on the route refuses the run before anything is queued; require_approval on the Article it would write is asked at once and covers its job', async () => {
    const owner = api(f.app.url, f.jwt);
    const deny = (await owner.post('/v1/governance/policies', { name: 'keys do not synthesise', effect: 'deny', status: 'published', match: { principals: ['api_key:*'], routes: ['POST /synthesis/run/{project_uid}'] } })).body;
    const before = await jobs();
    const denied = await f.w.post(`/synthesis/run/${s.project}`);
    expect([denied.status, denied.body.code, denied.body.policy_uid]).toEqual([403, 'policy_denied', deny.uid]);
    expect(await jobs()).toBe(before);
    const decided = (await owner.get(`/v1/governance/audit?kind=policy_decision&policy_uid=${deny.uid}`)).body.items;
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ route: '/synthesis/run/{project_uid}', decision: { effect: 'deny', enforced: true } });
    expect(decided[0].target_uids).toContain(s.project);
    expect((await owner.patch(`/v1/governance/policies/${deny.uid}`, { status: 'rejected' })).status).toBe(200);

    const review = (await owner.post('/v1/governance/policies', { name: 'articles are reviewed', effect: 'require_approval', status: 'published', match: { node_types: ['Article'] } })).body;
    const asked = await f.w.post(`/synthesis/run/${s.project}`);
    expect([asked.status, asked.body.code, asked.body.policy_uid]).toEqual([403, 'approval_required', review.uid]);
    expect(await jobs()).toBe(before);
    expect((await owner.post('/agent/governance', { action: 'resolve_approval', approval_uid: asked.body.approval_uid, approved: true })).status).toBe(200);
    const run = await f.w.post(`/synthesis/run/${s.project}`, undefined, { headers: { 'x-approval-uid': asked.body.approval_uid } });
    expect(run.status).toBe(202);
    const job = await finished(run.body.job_id);
    expect(job).toMatchObject({ status: 'completed', result: { articles_created: 1 } });
    // the job's unit ran under the approval; the Article is the caller's write, not the system's
    const allowed = (await owner.get(`/v1/governance/audit?kind=policy_decision&policy_uid=${review.uid}&order=asc`)).body.items;
    expect(allowed.map((d: { decision: { effect: string; reason: string } }) => [d.decision.effect, d.decision.reason])).toEqual([
      ['require_approval', review.name],
      ['allow', 'approved'],
      ['allow', 'approved'],
    ]);
    const history = (await f.w.get(`/node/${job.result.article_uids[0]}/history`)).body;
    const key = (await owner.get('/v1/api-keys')).body.items.find((k: { name: string }) => k.name === 'rw');
    expect(history[0].changed_by).toBe(key.id);
    expect((await owner.patch(`/v1/governance/policies/${review.uid}`, { status: 'rejected' })).status).toBe(200);
  });

  it('a policy only the job’s writes meet refuses its unit: the job fails and writes nothing', async () => {
    const owner = api(f.app.url, f.jwt);
    const count = (await articles()).length;
    // the Articles cover a Person: an endpoint of their Covers edges, known only when the job writes
    const deny = (await owner.post('/v1/governance/policies', { name: 'no articles about people', effect: 'deny', status: 'published', match: { principals: ['api_key:*'], node_types: ['Person'] } })).body;
    const run = await f.w.post(`/synthesis/run/${s.project}`);
    expect(run.status).toBe(202);
    const job = await finished(run.body.job_id);
    expect(job.status).toBe('failed');
    expect(JSON.stringify(job.error)).toContain('policy');
    expect((await articles()).length).toBe(count);
    const decided = (await owner.get(`/v1/governance/audit?kind=policy_decision&policy_uid=${deny.uid}`)).body.items;
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ route: '/synthesis/run/{project_uid}', decision: { effect: 'deny', enforced: true } });
    expect((await owner.patch(`/v1/governance/policies/${deny.uid}`, { status: 'rejected' })).status).toBe(200);
  });

  it('an agent confined to its grants may not run synthesis: Articles fall outside every admitted set', async () => {
    const owner = api(f.app.url, f.jwt);
    const agent = api(f.app.url, (await createApiKey(f.app.url, f.jwt, { agent_id: 'synth-bot' })).key);
    expect((await owner.post(`/v1/projects/${s.project}/grants`, { principal_uid: 'agent:synth-bot', role: 'agent' })).status).toBe(201);
    const before = await jobs();
    expectError(await agent.post(`/synthesis/run/${s.project}`), 403, 'forbidden');
    expect(await jobs()).toBe(before);
  });
});
