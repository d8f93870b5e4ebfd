import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const TEXT = 'Grace Hopper worked at Harvard University in Boston. The compiler changed programming.';

describe('ingestion into a Space (REFERENCE §13.1 space_uid on /ingest/*)', () => {
  let t: TestApp;
  let o: Api;
  let owner: Awaited<ReturnType<typeof signUp>>;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm, rateLimitPerMinute: 10_000_000 });
    owner = await signUp(t.url);
    o = api(t.url, owner.access_token);
  });
  afterAll(() => t.close());

  const space = async (label: string) => (await o.post('/node', { label, node_type: 'Space' })).body.uid as string;
  const spacesOf = async (uid: string) => (await o.get(`/edges?from_uid=${uid}&edge_type=InSpace`)).body.map((e: { to_uid: string }) => e.to_uid);
  const finished = (c: Api, id: string) =>
    eventually(
      async () => {
        const r = await c.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 50 },
    );

  it('/ingest/chunk with space_uid places the Chunk and every extracted node in the Space; dedup matches only nodes of the same Spaces', async () => {
    const a = await space('Research');
    const outside = await o.post('/node', { label: 'Grace Hopper', node_type: 'Person' });
    const res = await o.post('/ingest/chunk', { content: TEXT, layers: ['reality'], space_uid: a });
    expect(res.status).toBe(201);
    expect(await spacesOf(res.body.chunk_uid)).toEqual([a]);
    for (const uid of res.body.extracted_node_uids) expect(await spacesOf(uid)).toEqual([a]);
    // the unspaced Grace Hopper is not reused for material placed in the Space
    expect(res.body.extracted_node_uids).not.toContain(outside.body.uid);
    const again = await o.post('/ingest/chunk', { content: `${TEXT} Again.`, layers: ['reality'], space_uid: a });
    expect(again.body.nodes_deduplicated).toBeGreaterThan(0);
    const graces = (await o.get('/nodes?node_type=Person')).body.items.filter((n: { label: string }) => n.label === 'Grace Hopper');
    expect(graces).toHaveLength(2);
    // the same text outside the Space is other material: neither revealed nor reused
    const plain = await o.post('/ingest/chunk', { content: TEXT, layers: ['reality'] });
    expect(plain.status).toBe(201);
    expect(plain.body.chunk_uid).not.toBe(res.body.chunk_uid);
    expect(plain.body.extracted_node_uids).toContain(outside.body.uid);
  });

  it('/ingest/document: a Space-scoped key ingests into its Space; the Document, its Chunks and the extracted nodes are all placed there', async () => {
    const b = await space('Field notes');
    const key = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [b], scopes: ['read', 'write'] })).key);
    const res = await key.post('/ingest/document', { content: `${TEXT}\n\nAda Lovelace lived in London.`, title: 'Placed', layers: ['reality'] });
    expect(res.status).toBe(202);
    const job = await finished(o, res.body.job_id);
    expect(job.status).toBe('completed');
    expect(await spacesOf(res.body.document_uid)).toEqual([b]);
    const chunks = (await o.get(`/edges?to_uid=${res.body.document_uid}&edge_type=ChunkOf`)).body;
    expect(chunks.length).toBeGreaterThan(0);
    for (const e of chunks) expect(await spacesOf(e.from_uid)).toEqual([b]);
    expect(job.result.extracted_node_uids.length).toBeGreaterThan(0);
    for (const uid of job.result.extracted_node_uids) expect(await spacesOf(uid)).toEqual([b]);
    // the key sees what it ingested
    expect((await key.get(`/node/${job.result.extracted_node_uids[0]}`)).status).toBe(200);
  });

  it('a Space the caller may not write or see is refused before anything is written; a Project-scoped key may not ingest', async () => {
    const c = await space('Closed');
    const other = await space('Other');
    const key = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [other], scopes: ['read', 'write'] })).key);
    const before = (await o.get('/nodes?node_type=Document')).body.items.length;
    const hidden = await key.post('/ingest/document', { content: 'Hidden text about Paris.', space_uid: c });
    expect([hidden.status, hidden.body.code]).toEqual([404, 'not_found']);
    const notSpace = await o.post('/ingest/document', { content: 'Text about Rome.', space_uid: (await o.post('/node', { label: 'x', node_type: 'Concept' })).body.uid });
    expect([notSpace.status, notSpace.body.code]).toEqual([400, 'wrong_node_type']);
    expect((await o.get('/nodes?node_type=Document')).body.items.length).toBe(before);
    const project = (await o.post('/node', { label: 'P', node_type: 'Project' })).body.uid;
    const scoped = api(t.url, (await createApiKey(t.url, owner.access_token, { project_uids: [project], scopes: ['read', 'write'] })).key);
    const denied = await scoped.post('/ingest/chunk', { content: TEXT });
    expect([denied.status, denied.body.code]).toEqual([403, 'scope_denied']);
  });
});
