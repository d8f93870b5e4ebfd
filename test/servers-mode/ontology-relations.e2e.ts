import { Api, api, signUpWithKey } from '../support/http';
import { clientServices } from '../ontology/ontology-fixture';
import { eventually } from './support/eventually';
import { ModelReplicaPair, Worker, startModelReplicaPair } from './support/servers-mode-app';

/**
 * Relation cardinality in servers mode: two API replicas on one log each decide against the
 * graph as they see it, so two creates that together break a one_to_many or one_to_one limit,
 * sent to the two replicas at once, must still give one 201 and one 409 cardinality_violation.
 */
describe('servers mode: relation cardinality across replicas', () => {
  let pair: ModelReplicaPair;
  let worker: Worker;
  beforeAll(async () => {
    pair = await startModelReplicaPair();
    worker = pair.worker;
  });
  afterAll(async () => pair?.close());
  afterEach(() => expect(worker.problems).toEqual([]));

  async function created(k: Api, body: Record<string, unknown>): Promise<string> {
    const r = await k.post('/v1/ontology/objects', body);
    if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${r.text}`);
    return r.body.uid;
  }

  it('two replicas filling one endpoint at once: one 201, one 409 cardinality_violation; a tombstoned edge frees it', async () => {
    const s0 = await signUpWithKey(pair.a.url);
    const [ka, kb] = [api(pair.a.url, s0.key), api(pair.b.url, s0.key)];
    const s = await clientServices(ka);
    const schema = s.schema.id;
    const rounds = 5;
    const uids: { x: string; y: string; contract: string; p: string; q: string; r: string }[] = [];
    for (let i = 0; i < rounds; i++) {
      const x = await created(ka, { schema_id: schema, object_type: 'Client', canonical_name: `X ${i}`, fields: { code: `X-${i}` } });
      const y = await created(ka, { schema_id: schema, object_type: 'Client', canonical_name: `Y ${i}`, fields: { code: `Y-${i}` } });
      const contract = await created(ka, { schema_id: schema, object_type: 'Contract', canonical_name: `C ${i}`, fields: { number: `C-${i}`, client: x } });
      const p = await created(ka, { schema_id: schema, object_type: 'Client', canonical_name: `P ${i}`, fields: { code: `P-${i}` } });
      const q = await created(ka, { schema_id: schema, object_type: 'Client', canonical_name: `Q ${i}`, fields: { code: `Q-${i}` } });
      const r = await created(ka, { schema_id: schema, object_type: 'Client', canonical_name: `R ${i}`, fields: { code: `R-${i}` } });
      uids.push({ x, y, contract, p, q, r });
    }
    await eventually(async () => (await kb.get(`/ontology/objects?schema_id=${schema}&limit=100`)).body.items?.length === rounds * 6, 'objects on B');

    for (const { x, y, contract, p, q, r } of uids) {
      // one_to_many: a contract has one client
      const [ra, rb] = await Promise.all([
        ka.post('/ontology/relation', { from_uid: x, to_uid: contract, relation_type: 'has_contract' }),
        kb.post('/ontology/relation', { from_uid: y, to_uid: contract, relation_type: 'has_contract' }),
      ]);
      expect([ra.status, rb.status].sort()).toEqual([201, 409]);
      const lost = ra.status === 409 ? ra : rb;
      expect(lost.body).toMatchObject({ code: 'cardinality_violation', uid: contract });
      // one_to_one and symmetric: p has one partner
      const [pa, pb] = await Promise.all([
        ka.post('/ontology/relation', { from_uid: p, to_uid: q, relation_type: 'partner_of' }),
        kb.post('/ontology/relation', { from_uid: r, to_uid: p, relation_type: 'partner_of' }),
      ]);
      expect([pa.status, pb.status].sort()).toEqual([201, 409]);
      expect((pa.status === 409 ? pa : pb).body.code).toBe('cardinality_violation');
    }

    const first = uids[0];
    let contracts: { uid: string; from_uid: string }[] = [];
    await eventually(async () => {
      const e = (await kb.get(`/edges?to_uid=${first.contract}&edge_type=HasContract`)).body;
      contracts = e.items ?? e;
      return contracts.length === 1;
    }, 'the winning edge on B');
    // tombstoning the winner frees the endpoint, on either replica
    const del = await ka.delete(`/edge/${contracts[0].uid}`);
    expect(del.status).toBe(200);
    const other = contracts[0].from_uid === first.x ? first.y : first.x;
    let retry = { status: 0 };
    await eventually(async () => {
      retry = await kb.post('/ontology/relation', { from_uid: other, to_uid: first.contract, relation_type: 'has_contract' });
      return retry.status !== 409;
    }, 'endpoint free again on B');
    expect(retry.status).toBe(201);
  });
});
