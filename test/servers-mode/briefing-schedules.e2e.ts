import { api, signUpWithKey } from '../support/http';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually } from './support/eventually';
import { Replica, Worker, startReplica, startWorker } from './support/servers-mode-app';

/**
 * Briefing schedules in servers mode: the schedules and runs live in each replica's log mirror,
 * so a schedule created on one replica is seen, sent and run from the other.
 */
describe('servers mode: briefing schedules through the replicas’ mirrors', () => {
  let servers: EmbeddedServers;
  let a: Replica;
  let b: Replica;
  let worker: Worker;

  beforeAll(async () => {
    servers = new EmbeddedServers();
    worker = startWorker(servers, 'w1');
    a = await startReplica(servers);
    b = await startReplica(servers);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.stop();
    await servers?.close();
  });

  it('creates on one replica, sends now and reads the delivered run on the other', async () => {
    const s = await signUpWithKey(a.url);
    const oa = api(a.url, s.access_token);
    const ob = api(b.url, s.access_token);
    const project = (await api(a.url, s.key).post('/node', { node_type: 'Project', label: 'Orion' })).body.uid;
    const created = await oa.post('/v1/briefings/schedules', { project_uid: project, channel: 'in_app', recipient: `user:${s.user_id}`, interval_secs: 86400 });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await eventually(async () => (await ob.get(`/v1/briefings/schedules/${id}`)).status === 200, 'schedule visible on B');
    const sent = await ob.post(`/v1/briefings/schedules/${id}/send-now`, {});
    expect(sent.status).toBe(202);
    await eventually(async () => {
      const g = (await oa.get(`/v1/briefings/schedules/${id}`)).body;
      return g.runs?.[0]?.status === 'delivered';
    }, 'run delivered, seen on A');
    const g = (await oa.get(`/v1/briefings/schedules/${id}`)).body;
    expect(g.runs[0]).toMatchObject({ id: sent.body.run.id, trigger: 'send_now', brief_version: 1, attempts: 1 });
  });
});
