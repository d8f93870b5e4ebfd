import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';
import { JobRunner } from '@strata/jobs/runner/job-runner';

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

  it("a member does not see the job of a Document in a Space hidden from it, nor delete that Document; one it may only read is 403 and its job runs on", async () => {
    const hidden = (await o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential' } })).body.uid as string;
    const shared = await space('Shared');
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    expect((await o.post(`/v1/spaces/${shared}/grants`, { principal_uid: `user:${m.user_id}`, access: 'read' })).status).toBe(201);
    const member = api(t.url, m.access_token, { org: owner.org_id });
    await t.app.get(JobRunner).stop(); // jobs stay pending while the member looks
    try {
      const secret = (await o.post('/ingest/document', { content: TEXT, title: 'Settlement', space_uid: hidden })).body;
      const readable = (await o.post('/ingest/document', { content: `${TEXT} Shared.`, title: 'Shared notes', space_uid: shared })).body;
      const open = (await o.post('/ingest/document', { content: `${TEXT} Open.`, title: 'Open notes' })).body;
      const listed = (await member.get('/jobs')).body;
      expect(listed.items.map((j: { id: string }) => j.id).sort()).toEqual([readable.job_id, open.job_id].sort());
      expect(listed.has_more).toBe(false);
      expect((await member.get(`/jobs?document_uid=${secret.document_uid}`)).body.items).toEqual([]);
      for (const r of [await member.get(`/jobs/${secret.job_id}`), await member.post(`/jobs/${secret.job_id}/cancel`, {}), await member.delete(`/ingest/document/${secret.document_uid}`)])
        expect([r.status, r.body.code]).toEqual([404, 'not_found']);
      const readOnly = await member.delete(`/ingest/document/${readable.document_uid}`);
      expect([readOnly.status, readOnly.body.code]).toEqual([403, 'forbidden']);
      // nothing was cancelled or deleted
      for (const id of [secret.job_id, readable.job_id]) expect((await o.get(`/jobs/${id}`)).body.status).toBe('pending');
      expect((await o.get(`/node/${secret.document_uid}`)).body.tombstone_at).toBeNull();
      expect((await member.get(`/jobs/${open.job_id}`)).body.document_uid).toBe(open.document_uid);
    } finally {
      t.app.get(JobRunner).start(2);
    }
  });
});
