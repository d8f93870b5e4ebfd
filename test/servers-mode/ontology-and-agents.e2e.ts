import { loadConfig } from '@strata/platform/config/strata-config';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import Database from 'better-sqlite3';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { OntologyProjection } from '@strata/projections/ontology/ontology.projection';
import { AgentsProjection } from '@strata/projections/agents/agents.projection';
import { flushProjections } from '@strata/projections/projection';
import { ONTOLOGY_TABLES } from '@strata/projections/ontology/ontology-schema';
import { AGENT_TABLES } from '@strata/projections/agents/agents-schema';
import { READ_LAG_HEADER } from '@strata/platform/unit-of-work/read-lag';
import { AgentRuns } from '../../apps/api/src/agents/runtime/agent-runs';
import { Api, api, signUp, signUpWithKey } from '../support/http';
import { clientServices } from '../ontology/ontology-fixture';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually } from './support/eventually';
import { Replica, Worker, serversModeModule, ModelReplicaPair, startModelReplicaPair, startReplica } from './support/servers-mode-app';
import { serversConfig } from '../accounts/support/servers-replica';
import { startApp } from '../../apps/api/src/bootstrap';
import { StrataConfig } from '@strata/platform/config/strata-config';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The operational ontology and managed agents in servers mode, end to end: two API replicas
 * on one log, the projection worker writing the graph read model, and each replica deciding
 * against its own log mirror, where the ontology and agents projections run (the same code as
 * the embedded default). A representative subset of test/ontology and test/agents.
 */

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string; headers: Headers }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  expect(r.headers.get(READ_LAG_HEADER)).toBeNull(); // every write waits for the worker and this replica's mirror
  return r.body;
}

/** A replica as startReplica starts it, whose log subscriptions deliver `latencyMs` after commit. */
async function startLaggingReplica(servers: EmbeddedServers, extra: Partial<StrataConfig>, latencyMs: number): Promise<Replica> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-servers-replica-'));
  const config = serversConfig(dataDir, extra);
  const connect = async (cfg: StrataConfig) => ({ ...servers.apiStores(cfg.readWaitMs), events: servers.remoteLog(latencyMs) });
  const running = await startApp(config, { logger: false, module: serversModeModule(config, connect, servers.clock) });
  return {
    url: running.url,
    app: running.app,
    close: async () => {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The rows of these tables, in a canonical order. */
function dumpDb(db: Database.Database, tables: readonly string[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = db.prepare(`SELECT * FROM ${t}`).all().map((r) => JSON.stringify(r)).sort();
  return out;
}

/** The rows of a mirror's tables, in a canonical order. */
function dump(m: AccountsMirror, tables: readonly string[]): Record<string, unknown[]> {
  return dumpDb(m.db, tables);
}

describe('servers mode: the operational ontology and managed agents', () => {
  let servers: EmbeddedServers;
  let llm: ScriptedOpenAIChatServer;
  let a: Replica;
  let b: Replica;
  let worker: Worker;
  let llmConfig: ReturnType<typeof loadConfig>['llm'];

  let pair: ModelReplicaPair;
  beforeAll(async () => {
    pair = await startModelReplicaPair();
    ({ servers, llm, a, b, worker } = pair);
    llmConfig = pair.llmConfig;
  });
  afterAll(async () => pair?.close());
  afterEach(() => expect(worker.problems).toEqual([]));

  async function keyOnBoth(): Promise<{ ka: Api; kb: Api; org: string }> {
    const s = await signUpWithKey(a.url);
    await eventually(async () => (await api(b.url, s.key).get('/v1/ontology/schemas')).status === 200, 'key and ontology usable on B');
    return { ka: api(a.url, s.key), kb: api(b.url, s.key), org: s.org_id };
  }

  it('schemas, types and domain objects: each write reads back at once on its replica, and on the other within the log delay', async () => {
    const { ka, kb } = await keyOnBoth();
    const s = await clientServices(ka);
    expect(await ok(ka.get(`/v1/ontology/schemas/${s.schema.id}`))).toMatchObject({ id: s.schema.id, status: 'active' });
    await eventually(async () => (await kb.get(`/v1/ontology/schemas/${s.schema.id}`)).body.status === 'active', 'schema active on B');

    const acme = await ok(ka.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme Corp', fields: { code: 'AC-1', tier: 'gold' } }), 201);
    expect(acme.object).toMatchObject({ layer: 'ontology', node_type: 'Client', version: 1 });
    // the object index (mirror) and the node (worker's graph read model) both show it on A
    expect((await ok(ka.get(`/ontology/objects?schema_id=${s.schema.id}`))).items.map((o: any) => o.uid)).toEqual([acme.uid]);
    expect(await ok(ka.get(`/ontology/object/${acme.uid}`))).toEqual(acme.object);

    // B decides duplicates against its own mirror, once the log reached it
    await eventually(async () => (await kb.get(`/ontology/objects?schema_id=${s.schema.id}`)).body.items?.length === 1, 'object indexed on B');
    const dup = await kb.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Other', fields: { code: 'AC-1' } });
    expect([dup.status, dup.body.code, dup.body.existing_uid]).toEqual([409, 'duplicate_object', acme.uid]);

    // PATCH with the optimistic lock, on B; history from the log
    const patched = await ok(kb.patch(`/v1/ontology/objects/${acme.uid}`, { reason: 'upgraded', expected_version: 1, fields: { tier: 'silver' } }));
    expect(patched).toMatchObject({ version: 2, props: { fields: { code: 'AC-1', tier: 'silver' } } });
    const stale = await ka.patch(`/v1/ontology/objects/${acme.uid}`, { reason: 'r', expected_version: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, 'version_conflict']);
    expect((await ok(ka.get(`/ontology/object/${acme.uid}/history`))).map((h: any) => h.version)).toEqual([1, 2]);

    // relations: endpoint typing and cardinality, decided on the index
    const contract = await ok(ka.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Contract', canonical_name: 'C-1', fields: { number: 'C-1', client: acme.uid } }), 201);
    await ok(ka.post('/ontology/relation', { from_uid: acme.uid, to_uid: contract.uid, relation_type: 'has_contract' }), 201);
    const wrong = await ka.post('/ontology/relation', { from_uid: contract.uid, to_uid: acme.uid, relation_type: 'has_contract' });
    expect(wrong.status).toBe(422);

    // hybrid search (the text index the worker keeps) and the query, filtered by the mirror's object index
    const found = await ok(kb.post('/ontology/objects/search', { query: 'acme', schema_id: s.schema.id }));
    expect(found.items[0].object.uid).toBe(acme.uid);
    const q = await ok(ka.post('/ontology/query', { query: 'acme', schema_id: s.schema.id, limit: 1 }));
    expect(q.objects.map((o: any) => o.uid)).toEqual([acme.uid]);
    expect(q.relations).toHaveLength(1);
    expect((await ok(kb.get(`/ontology/object/${acme.uid}/context?depth=1`))).related_objects.map((o: any) => o.uid)).toEqual([contract.uid]);

    // the duplicates audit and the schema list are read-only reads of the mirror
    expect(await ok(ka.post(`/v1/ontology/schemas/${s.schema.id}/duplicates/audit`, {}))).toMatchObject({ schema_id: s.schema.id, total_collisions: 0 });
    expect((await ok(kb.get('/v1/ontology/schemas'))).items.map((x: any) => x.id)).toEqual([s.schema.id]);
  });

  it('one identity created on both replicas at once: one 201, the other 409 duplicate_object naming it', async () => {
    const { ka, kb } = await keyOnBoth();
    const s = await clientServices(ka);
    await eventually(async () => (await kb.get(`/v1/ontology/schemas/${s.schema.id}`)).body.status === 'active', 'schema active on B');
    // each replica decides on its own mirror, which the other's write reaches only after the
    // log's delivery delay: both find the identity free, and the log must refuse one of them
    for (let i = 0; i < 6; i++) {
      const body = (name: string) => ({ schema_id: s.schema.id, object_type: 'Client', canonical_name: name, fields: { code: `RACE-${i}` } });
      const [ra, rb] = await Promise.all([ka.post('/v1/ontology/objects', body(`Alpha ${i}`)), kb.post('/v1/ontology/objects', body(`Beta ${i}`))]);
      const won = ra.status === 201 ? ra : rb;
      const lost = won === ra ? rb : ra;
      expect([won.status, lost.status, lost.body.code, lost.body.existing_uid]).toEqual([201, 409, 'duplicate_object', won.body.uid]);
      // without identity fields the normalised canonical name is the identity
      const [pa, pb] = await Promise.all([
        ka.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'ClientContact', canonical_name: `Ada Race ${i}` }),
        kb.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'ClientContact', canonical_name: `ada  race ${i}` }),
      ]);
      expect([pa.status, pb.status].sort()).toEqual([201, 409]);
    }
    // allow_duplicate still writes both, and the audit (read-only) finds exactly those
    const [da, db] = await Promise.all(
      [ka, kb].map((k, j) => k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: `Twin ${j}`, fields: { code: 'TWIN' }, allow_duplicate: true })),
    );
    expect([da.status, db.status]).toEqual([201, 201]);
    const audit = await ok(ka.post(`/v1/ontology/schemas/${s.schema.id}/duplicates/audit`, {}));
    expect(audit).toMatchObject({ total_collisions: 1, collisions: [{ object_type: 'Client', identity: { code: 'TWIN' }, count: 2 }] });
    const listed = await ok(ka.get(`/ontology/objects?schema_id=${s.schema.id}&object_type=Client&limit=100`));
    expect(listed.items.filter((o: any) => String(o.props.fields.code).startsWith('RACE-'))).toHaveLength(6);
  });

  it('a replica far from the log reads its own writes: each write waits for its mirror, not only for the worker', async () => {
    const far = await startLaggingReplica(servers, { readWaitMs: 10_000 }, 800);
    try {
      const s = await signUpWithKey(far.url);
      const k = api(far.url, s.key);
      const schema = await ok(k.post('/v1/ontology/schemas', { name: 'Far' }), 201);
      expect(await ok(k.get(`/v1/ontology/schemas/${schema.id}`))).toMatchObject({ id: schema.id, status: 'draft' });
      const type = await ok(k.post(`/v1/ontology/schemas/${schema.id}/object-types`, { name: 'Thing', fields: [{ name: 'code', type: 'string' }], identity_fields: ['code'] }), 201);
      expect((await ok(k.get(`/v1/ontology/schemas/${schema.id}`))).object_types.map((t: any) => t.id)).toEqual([type.id]);
      await ok(k.post(`/v1/ontology/schemas/${schema.id}/activate`, {}));
      const one = await ok(k.post('/v1/ontology/objects', { schema_id: schema.id, object_type: 'Thing', canonical_name: 'One', fields: { code: '1' } }), 201);
      const dup = await k.post('/v1/ontology/objects', { schema_id: schema.id, object_type: 'Thing', canonical_name: 'Again', fields: { code: '1' } });
      expect([dup.status, dup.body.existing_uid]).toEqual([409, one.uid]);
    } finally {
      await far.close();
    }
  });

  it('proposals: created, edited and approved across replicas; applying creates the object', async () => {
    const { ka, kb } = await keyOnBoth();
    const s = await clientServices(ka);
    // a pending proposal: ClientContact's review policy is 'never', Client's is 'always'
    const globex = await ok(ka.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Globex', fields: { code: 'GX' } }), 201);
    const p = await ok(ka.get(`/v1/ontology/proposals/${globex.proposal_id}`));
    expect(p).toMatchObject({ review_status: 'applied', proposed_node_uid: globex.uid });
    await eventually(async () => (await kb.get(`/v1/ontology/proposals/${globex.proposal_id}`)).status === 200, 'proposal on B');
    const again = await kb.post(`/v1/ontology/proposals/${globex.proposal_id}/approve`, {});
    expect([again.status, again.body.code, again.body.from_status]).toEqual([409, 'invalid_transition', 'applied']);
    expect((await ok(kb.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`))).items.map((x: any) => x.id)).toContain(globex.proposal_id);
  });

  it('extraction runs as a job on the shared queue: known objects linked, typed entities proposed', async () => {
    const { ka, kb } = await keyOnBoth();
    const s = await clientServices(ka);
    const globex = await ok(ka.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Globex Corporation', fields: { code: 'GX' } }), 201);
    const text = 'Globex Corporation renewed. Ada Lovelace met them in Paris.';
    const src = (await ok(ka.post('/node', { node_type: 'Chunk', label: 'notes', props: { content: text, chunk_type: 'text', chunk_index: 0 } }), 201)).uid;
    llm.enqueue({ type: 'json', value: { entities: [{ text: 'Globex Corporation', category: 'organization' }, { text: 'Ada Lovelace', category: 'person' }] } });
    const started = await ok(ka.post('/ontology/extract', { ontology_schema_id: s.schema.id, source_uids: [src] }), 202);
    let job: any = null;
    await eventually(async () => ['completed', 'failed'].includes((job = (await ka.get(`/jobs/${started.job_id}`)).body).status), 'the extraction job', 15_000);
    expect(job).toMatchObject({ status: 'completed', result: { objects_linked: 1 } });
    await eventually(async () => (await kb.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`)).body.items?.length >= 2, 'proposals on B');
    const names = (await ok(kb.get(`/v1/ontology/proposals?schema_id=${s.schema.id}`))).items.map((p: any) => p.changes_json.adds[0]?.canonical_name);
    expect(names).toContain('Ada Lovelace');
    const links = await ok(kb.get(`/edges?from_uid=${globex.uid}&edge_type=ExtractedFrom`));
    expect(links.map((e: any) => e.to_uid)).toEqual([src]);
  });

  it('another organization sees none of it (404), as on the embedded default', async () => {
    const { ka } = await keyOnBoth();
    const s = await clientServices(ka);
    const other = await signUpWithKey(b.url);
    await eventually(async () => (await api(b.url, other.key).get('/v1/ontology/schemas')).status === 200, 'other key usable on B');
    expect((await api(b.url, other.key).get(`/v1/ontology/schemas/${s.schema.id}`)).status).toBe(404);
  });

  async function proOwner(): Promise<{ pa: Api; pb: Api }> {
    const s = await signUp(a.url);
    await ok(api(a.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' }));
    await eventually(async () => (await api(b.url, s.access_token).get('/v1/agents')).status === 200, 'agents usable on B');
    return { pa: api(a.url, s.access_token), pb: api(b.url, s.access_token) };
  }

  async function runEnded(c: Api, sid: string, runId: string) {
    let run: any = null;
    await eventually(async () => {
      const s = (await c.get(`/v1/agents/sessions/${sid}`)).body;
      run = s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
      return !!run && ['completed', 'failed', 'cancelled'].includes(run.status);
    }, `run ${runId} ended`, 15_000);
    return run;
  }

  it('agents and sessions: a run on the shared job queue calls a graph tool and answers; its events read back on both replicas', async () => {
    const { pa, pb } = await proOwner();
    const agent = await ok(pa.post('/v1/agents', { name: 'Reader', template_type: 'researcher' }), 201);
    expect(await ok(pa.get(`/v1/agents/${agent.id}`))).toMatchObject({ id: agent.id, name: 'Reader' });
    // names are unique among an organization's agents, decided on the mirror
    const taken = await pa.post('/v1/agents', { name: 'reader', template_type: 'researcher' });
    expect([taken.status, taken.body.field]).toEqual([409, 'name']);

    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_a', name: 'strata_get_node', arguments: { action: 'get', uid: agent.node_uid } }] },
      { type: 'text', text: `The agent node is ${agent.node_uid}.`, usage: { input: 1500, output: 600 } },
    );
    const created = await ok(pa.post('/v1/agents/sessions', { agent_id: agent.id, title: 'First', message: 'What is your node?' }), 201);
    const run = await runEnded(pa, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'end_turn', steps: 2, tool_calls: 1, error: null });
    const types = ['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed'];
    expect((await ok(pa.get(`/v1/agents/sessions/${created.id}/events`))).items.map((e: any) => e.type)).toEqual(types);
    await eventually(async () => (await pb.get(`/v1/agents/sessions/${created.id}/events`)).body.items?.length === types.length, 'events on B');
    const onB = (await ok(pb.get(`/v1/agents/sessions/${created.id}/events`))).items;
    expect(onB.map((e: any) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(onB.find((e: any) => e.type === 'tool.result').data).toMatchObject({ tool_call_id: 'call_a', status: 'ok', result: { uid: agent.node_uid, node_type: 'Agent' } });
    // the run's Trace node went through the worker's graph read model
    expect(await ok(pb.get(`/node/${run.trace_uid}`))).toMatchObject({ node_type: 'Trace' });
    // usage and credits come from the mirror too
    await eventually(async () => (await pb.get(`/v1/agents/${agent.id}`)).body.usage?.runs === 1, 'agent usage on B');
    const usage = await ok(pb.get('/v1/usage'));
    expect(usage).toMatchObject({ agents: { active: 1 }, runs: { this_period: 1, running: 0, queued: 0 } });
    expect(usage.agent_credits.used).toBe(run.credits);
  });

  it('wait:true and ask_user: waits end on events any replica wrote (the mirror wakes them)', async () => {
    const { pa, pb } = await proOwner();
    const agent = await ok(pa.post('/v1/agents', { name: 'Asker', template_type: 'monitor' }), 201);
    const sid = (await ok(pa.post('/v1/agents/sessions', { agent_id: agent.id }), 201)).id;
    await eventually(async () => (await pb.get(`/v1/agents/sessions/${sid}`)).status === 200, 'session on B');
    llm.enqueue({ type: 'text', text: 'Hello!' });
    const one = await pb.post(`/v1/agents/sessions/${sid}/message`, { content: 'Hi', wait: true });
    expect([one.status, one.body.output, one.body.run?.status]).toEqual([200, 'Hello!', 'completed']);

    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which region?', options: ['EU', 'US'] } }] });
    const asked = await ok(pa.post(`/v1/agents/sessions/${sid}/message`, { content: 'Check the numbers' }), 202);
    let pending: any = null;
    await eventually(async () => (pending = (await pb.get(`/v1/agents/sessions/${sid}/pending-input`)).body).pending === true, 'question pending on B');
    expect(pending.request).toMatchObject({ run_id: asked.run_id, prompt: 'Which region?' });
    llm.enqueue({ type: 'text', text: 'EU it is.' });
    // answered on B: the run, wherever it waits, resumes
    await ok(pb.post(`/v1/agents/sessions/${sid}/respond`, { response: 'EU' }));
    const run = await runEnded(pa, sid, asked.run_id);
    expect(run.status).toBe('completed');
    const last = (await ok(pa.get(`/v1/agents/sessions/${sid}/events?limit=1000`))).items.slice(-3).map((e: any) => e.type);
    expect(last).toEqual(['inference.completed', 'message.assistant', 'run.completed']);
  });

  it('a run queued through one replica is run by another: the claiming replica waits for its mirror to show the run', async () => {
    const { pa } = await proOwner();
    const agent = await ok(pa.post('/v1/agents', { name: 'Relay', template_type: 'researcher' }), 201);
    // a replica whose log subscription delivers late: its mirror lags what A writes by 1.5 s
    const far = await startLaggingReplica(servers, { llm: llmConfig, readWaitMs: 10_000 }, 1500);
    try {
      // A and B stop running agent jobs: only the far replica's runner can claim what A enqueues
      await a.app.get(AgentRuns).beforeApplicationShutdown();
      await b.app.get(AgentRuns).beforeApplicationShutdown();
      llm.enqueue({ type: 'text', text: 'Answered far away.' });
      const created = await ok(pa.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Hello' }), 201);
      // claimed at once, long before its mirror shows the session
      far.app.get(AgentRuns).kick();
      const run = await runEnded(pa, created.id, created.run_id);
      expect(run).toMatchObject({ status: 'completed', error: null });
      const last = (await ok(pa.get(`/v1/agents/sessions/${created.id}/events`))).items.find((e: any) => e.type === 'message.assistant');
      expect(last.data).toMatchObject({ content: 'Answered far away.' });
    } finally {
      await far.close();
    }
  });

  it('a replica started later rebuilds the same ontology and agents read models from the log, and so does the embedded way of running them', async () => {
    const head = await servers.head();
    const c = await startReplica(servers, { llm: llmConfig });
    try {
      const [ma, mc] = [a.app.get(AccountsMirror), c.app.get(AccountsMirror)];
      await ma.waitFor(head, 5000);
      await mc.waitFor(head, 5000);
      await eventually(() => mc.graphReady, 'the later replica read the node streams');
      expect(dump(mc, [...ONTOLOGY_TABLES, ...AGENT_TABLES])).toEqual(dump(ma, [...ONTOLOGY_TABLES, ...AGENT_TABLES]));
      expect(dump(mc, ['onto_objects']).onto_objects.length).toBeGreaterThan(0);
      expect(dump(mc, ['agt_events']).agt_events.length).toBeGreaterThan(0);

      // the embedded default's way: the same projections over the whole log in one pass, in log order
      const db = new Database(':memory:');
      const embedded = [new OntologyProjection(db), new AgentsProjection(db)];
      const log = servers.remoteLog();
      for (let after = 0; ; ) {
        const page = await log.readAll({ after, limit: 500 });
        // as the embedded runner applies a batch: every event, then each projection's flush, then the commit
        db.transaction(() => {
          page.forEach((e) => embedded.forEach((p) => p.apply(e)));
          flushProjections(embedded);
        })();
        if (page.length < 500) break;
        after = page[page.length - 1].position;
      }
      expect(dumpDb(db, [...ONTOLOGY_TABLES, ...AGENT_TABLES])).toEqual(dump(ma, [...ONTOLOGY_TABLES, ...AGENT_TABLES]));
      db.close();
    } finally {
      await c.close();
    }
  });
});
