import { startServer } from './support/server';
import { mulberry32 } from './support/synthetic';
import { client, timeAll, pseudoWord } from './support/http-timing';
import type { AutocannonResult } from './support/load';
import { processCpuMs } from './support/process-cpu';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

/**
 * The operational ontology's figures, end to end over HTTP against the built service:
 *
 * - authored object create with validation (`POST /v1/ontology/objects`: required, type,
 *   enum, a reference to a live Client for Contracts, identity and duplicate check) from 32
 *   concurrent clients until STRATA_BENCH_ONTOLOGY_OBJECTS (50,000) objects exist — the
 *   seeding is the measurement: objects/s and p99 over all of it;
 * - 5,000 relations (`POST /ontology/relation`, one_to_many Client → Contract);
 * - `POST /ontology/objects/search` p50/p99 (one client, 1–2-word queries);
 * - `POST /ontology/query` at depth 2 p50/p99;
 * - last (so that it changes none of the figures above): 32-client legs of plain `POST /node`
 *   and of object creates, alternated, with the service's CPU time per request from /proc —
 *   what an object create costs next to a node write on the same service at the same moment,
 *   which its throughput on a shared machine cannot say.
 */
export async function run(ctx?: { url: string; token: string }): Promise<Record<string, number>> {
  const own = ctx ? null : await startServer();
  const target = ctx ?? own!;
  try {
    return await measure(target.url, target.token, own?.child.pid);
  } finally {
    await own?.stop();
  }
}

const N = Number(process.env.STRATA_BENCH_ONTOLOGY_OBJECTS ?? 50_000);
const CLIENTS = 32;
const RELATIONS = 5_000;
/** requests per alternated leg of the node / object comparison (three of each) */
const SIDE_BY_SIDE_LEG = 2_000;

async function measure(url: string, token: string, pid: number | undefined): Promise<Record<string, number>> {
  const out: Record<string, number> = { objects: N };
  const http = client(url, token);
  const rand = mulberry32(1717);
  const vocab = Array.from({ length: 5_000 }, (_, i) => pseudoWord(i, rand));
  const word = () => vocab[Math.floor(rand() * vocab.length)];

  const schema = await http.post('/v1/ontology/schemas', { name: 'bench' });
  await http.post(`/v1/ontology/schemas/${schema.id}/object-types`, {
    name: 'Client',
    fields: [
      { name: 'code', type: 'string', required: true },
      { name: 'tier', type: 'enum', enum: ['gold', 'silver', 'bronze'] },
      { name: 'employees', type: 'integer' },
    ],
    identity_fields: ['code'],
  });
  await http.post(`/v1/ontology/schemas/${schema.id}/object-types`, {
    name: 'Contract',
    fields: [
      { name: 'number', type: 'string', required: true },
      { name: 'client', type: 'reference', reference_object_type: 'Client', required: true },
      { name: 'value', type: 'number' },
    ],
    identity_fields: ['number'],
  });
  await http.post(`/v1/ontology/schemas/${schema.id}/relation-types`, { name: 'has_contract', source_type: 'Client', target_type: 'Contract', cardinality: 'one_to_many' });
  await http.post(`/v1/ontology/schemas/${schema.id}/activate`, {});

  // ---- authored creates, 32 clients: the first fifth Clients, then 1 Contract per 4 ----
  // autocannon, as the core bench's POST /node: a lean HTTP client, so that the figure is
  // the service's, not the load generator's (fetch costs the bench process about as much CPU
  // per request as the service spends, on the same two cores)
  const clients: string[] = [];
  const contracts: { uid: string; client: string }[] = [];
  let next = 0;
  const bodyOf = (i: number) => {
    const isContract = i >= N / 5 && i % 4 === 0 && clients.length > 0;
    if (isContract) {
      const c = clients[Math.floor(rand() * clients.length)];
      return { body: { schema_id: schema.id, object_type: 'Contract', canonical_name: `${word()} ${word()} agreement ${i}`, fields: { number: `K-${i}`, client: c, value: Math.round(rand() * 1e5) } }, client: c };
    }
    return { body: { schema_id: schema.id, object_type: 'Client', canonical_name: `${word()} ${word()} ${i}`, fields: { code: `C-${i}`, tier: ['gold', 'silver', 'bronze'][i % 3], employees: i % 5000 } }, client: null };
  };
  const failures: string[] = [];
  const result = await autocannon({
    url: url + '/v1/ontology/objects',
    connections: CLIENTS,
    amount: N,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          const { body, client: c } = bodyOf(next++);
          context.client = c;
          return { ...req, body: JSON.stringify(body) };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          if (status !== 201) {
            if (failures.length < 3) failures.push(`${status} ${body.slice(0, 200)}`);
            return;
          }
          const uid = /"uid":"([^"]+)"/.exec(body)![1]; // the answer's first key
          if (context.client) contracts.push({ uid, client: context.client as string });
          else clients.push(uid);
        },
      },
    ],
  });
  if (failures.length || result.errors || result.non2xx) throw new Error(`object create failed (${result.errors} errors, ${result.non2xx} non-2xx): ${failures.join(' | ')}`);
  out.create_objects_per_s = Math.round(result.requests.total / result.duration);
  out.create_p50_ms = result.latency.p50;
  // autocannon reports these too (the shared result type names only p50 and p99)
  const tail = result.latency as typeof result.latency & { p90: number; max: number };
  out.create_p90_ms = tail.p90;
  out.create_p99_ms = result.latency.p99;
  // the tail beyond p99: a GC pause, a checkpoint or a large commit batch shows here first
  out.create_max_ms = tail.max;

  // ---- relations: each contract to its client ----
  const r0 = performance.now();
  for (const c of contracts.slice(0, RELATIONS)) await http.post('/ontology/relation', { from_uid: c.client, to_uid: c.uid, relation_type: 'has_contract' });
  out.relations_per_s = Math.round(Math.min(RELATIONS, contracts.length) / ((performance.now() - r0) / 1000));

  // ---- search and query ----
  const queries = Array.from({ length: 400 }, () => (rand() < 0.5 ? word() : `${word()} ${word()}`));
  const search = await timeAll(queries, (q) => http.post('/ontology/objects/search', { query: q, schema_id: schema.id, limit: 20 }));
  out.search_p50_ms = search.p50;
  out.search_p99_ms = search.p99;
  const query = await timeAll(queries.slice(0, 200), (q) => http.post('/ontology/query', { query: q, schema_id: schema.id, depth: 2, limit: 10 }));
  out.query_depth2_p50_ms = query.p50;
  out.query_depth2_p99_ms = query.p99;

  // ---- an object create beside a node write: alternated legs, service CPU per request ----
  const legs = { node: { requests: 0, ms: 0, cpu: 0 }, object: { requests: 0, ms: 0, cpu: 0 } };
  let serial = 0;
  const leg = async (which: 'node' | 'object') => {
    const cpu0 = processCpuMs(pid);
    const r = await autocannon({
      url: url + (which === 'node' ? '/node' : '/v1/ontology/objects'),
      connections: CLIENTS,
      amount: SIDE_BY_SIDE_LEG,
      timeout: 60,
      requests: [
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          setupRequest: (req: Record<string, unknown>) => {
            const i = serial++;
            const body =
              which === 'node'
                ? { label: `Side by side ${i}`, node_type: 'Goal', props: { description: `written beside object ${i}`, priority: 'high' } }
                : { schema_id: schema.id, object_type: 'Client', canonical_name: `${word()} ${word()} side ${i}`, fields: { code: `S-${i}`, tier: 'gold', employees: i % 5000 } };
            return { ...req, body: JSON.stringify(body) };
          },
        },
      ],
    });
    const cpu1 = processCpuMs(pid);
    if (r.errors || r.non2xx) throw new Error(`${which} leg failed (${r.errors} errors, ${r.non2xx} non-2xx)`);
    const l = legs[which];
    l.requests += r.requests.total;
    l.ms += r.duration * 1000;
    l.cpu += cpu0 === null || cpu1 === null ? NaN : cpu1 - cpu0;
  };
  for (let round = 0; round < 3; round++) {
    await leg('node');
    await leg('object');
  }
  out.side_node_per_s = Math.round((1000 * legs.node.requests) / legs.node.ms);
  out.side_object_per_s = Math.round((1000 * legs.object.requests) / legs.object.ms);
  if (Number.isFinite(legs.node.cpu) && Number.isFinite(legs.object.cpu)) {
    out.side_node_cpu_ms = Math.round((1000 * legs.node.cpu) / legs.node.requests) / 1000;
    out.side_object_cpu_ms = Math.round((1000 * legs.object.cpu) / legs.object.requests) / 1000;
    out.side_object_vs_node_cpu = Math.round((100 * out.side_object_cpu_ms) / out.side_node_cpu_ms) / 100;
  }
  return out;
}




