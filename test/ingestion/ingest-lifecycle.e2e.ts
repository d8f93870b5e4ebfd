import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

type Client = ReturnType<typeof api>;

async function finished(c: Client, jobId: string) {
  return eventually(
    async () => {
      const j = await c.get(`/jobs/${jobId}`);
      return ['completed', 'failed', 'cancelled'].includes(j.body.status) ? j.body : null;
    },
    { what: `job ${jobId} finished`, timeoutMs: 150_000, everyMs: 50 },
  );
}

const edgesOf = async (c: Client, q: string) => {
  const r = await c.get(`/edges?${q}`);
  return (r.body.items ?? r.body) as { uid: string; from_uid: string; to_uid: string; tombstone_at: number | null }[];
};

/** A long article: many small chunks, so a job is still running when the test acts on it. */
const LONG = Array.from({ length: 300 }, (_, i) => `Paragraph ${i}: Grace Hopper met Alan Turing in London in ${1900 + (i % 100)}. The compiler grew ${i}% that year.`).join('\n\n');

/** Its first paragraphs: a few chunks of 100 tokens. */
const SHORT = LONG.split('\n\n').slice(0, 12).join('\n\n');

describe('ingestion jobs: cancel, resume, delete, cleanup (offline provider)', () => {
  let t: TestApp;
  let c: Client;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm, rateLimitPerMinute: 10_000_000 });
    const s = await signUp(t.url);
    c = api(t.url, (await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] })).key);
  });
  afterAll(() => t.close());

  it('cancels a running job after the chunk in progress: committed chunks stay, the Document is partial', async () => {
    const res = await c.post('/ingest/document', { content: LONG, chunk_size: 100, chunk_overlap: 0, title: 'Long' });
    expect(res.status).toBe(202);
    await eventually(async () => (await c.get(`/jobs/${res.body.job_id}`)).body.progress.processed_chunks >= 1, { what: 'a first chunk', timeoutMs: 30_000 });
    const cancel = await c.post(`/jobs/${res.body.job_id}/cancel`, {});
    expect(cancel.status).toBe(200);
    const job = await finished(c, res.body.job_id);
    expect(job.status).toBe('cancelled');
    expect(job.progress.processed_chunks).toBeLessThan(job.progress.total_chunks);
    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(doc.props.processing_status).toBe('partial');
    expect((await c.post(`/jobs/${res.body.job_id}/cancel`, {})).body.code).toBe('invalid_transition');

    // resume finishes only the chunks not yet completed
    const resumed = await c.post(`/ingest/resume/${res.body.document_uid}`, {});
    expect(resumed.status).toBe(202);
    expect(resumed.body.chunks_pending).toBe(job.progress.total_chunks - job.progress.processed_chunks);
    const again = await finished(c, resumed.body.job_id);
    expect(again).toMatchObject({ kind: 'ingest_resume', status: 'completed', document_uid: res.body.document_uid });
    expect(again.result.chunks_completed).toBe(job.progress.total_chunks);
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.processing_status).toBe('completed');
    // no chunk was extracted twice: one provenance edge per extracted node and chunk
    for (const e of (await edgesOf(c, `to_uid=${res.body.document_uid}&edge_type=ChunkOf`)).slice(0, 40)) {
      const chunk = (await c.get(`/node/${e.from_uid}`)).body;
      expect((await edgesOf(c, `to_uid=${e.from_uid}&edge_type=ExtractedFrom`)).length).toBe(chunk.props.extraction_count);
    }
    const nothing = await c.post(`/ingest/resume/${res.body.document_uid}`, {});
    expect(nothing.status).toBe(200);
    expect(nothing.body).toEqual({ job_id: null, document_uid: res.body.document_uid, chunks_pending: 0 });
  }, 240_000);

  it('fails a job whose every chunk failed (Document failed), and a resume with other layers completes it', async () => {
    const res = await c.post('/ingest/document', { content: 'Margaret Hamilton led the Apollo software team in 1969.', layers: ['agent'] });
    const job = await finished(c, res.body.job_id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/no chunk succeeded/);
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.processing_status).toBe('failed');

    const resumed = await c.post(`/ingest/resume/${res.body.document_uid}`, { layers: ['reality'] });
    expect(resumed.status).toBe(202);
    expect(resumed.body.chunks_pending).toBe(1);
    expect((await finished(c, resumed.body.job_id)).status).toBe('completed');
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.processing_status).toBe('completed');
    expect((await c.get('/nodes?node_type=Person')).body.items.map((n: { label: string }) => n.label)).toContain('Margaret Hamilton');
  });

  it("names a transcript's Session in its resumed job's result, as a session job's result does", async () => {
    const res = await c.post('/ingest/session', { content: 'Kwame: Margaret Hamilton led the Apollo software team in 1969.', title: 'Retro', layers: ['agent'] });
    expect(res.status).toBe(202);
    const first = await finished(c, res.body.job_id);
    expect(first.status).toBe('failed');
    const resumed = await c.post(`/ingest/resume/${res.body.document_uid}`, { layers: ['reality'] });
    expect(resumed.status).toBe(202);
    const job = await finished(c, resumed.body.job_id);
    expect(job).toMatchObject({ kind: 'ingest_resume', status: 'completed', result: { document_uid: res.body.document_uid, session_uid: res.body.session_uid, chunks_completed: 1 } });
    // a document that is not a transcript has none
    const doc = await c.post('/ingest/document', { content: 'Grace Hopper wrote the first compiler.', layers: ['agent'] });
    await finished(c, doc.body.job_id);
    const again = await finished(c, (await c.post(`/ingest/resume/${doc.body.document_uid}`, { layers: ['reality'] })).body.job_id);
    expect(again.status).toBe('completed');
    expect(again.result).not.toHaveProperty('session_uid');
  });

  it('a job cancelled before it started leaves its chunks pending: a resume extracts each of them once', async () => {
    const runner = t.app.get(JobRunner);
    await runner.stop();
    let res;
    try {
      // no runner: the job is still pending when it is cancelled
      res = await c.post('/ingest/document', { content: SHORT, chunk_size: 100, chunk_overlap: 0, title: 'Cancelled early' });
      expect(res.status).toBe(202);
      const cancel = await c.post(`/jobs/${res.body.job_id}/cancel`, {});
      expect(cancel.body).toMatchObject({ status: 'cancelled' });
    } finally {
      runner.start(2);
    }
    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(doc.props.processing_status).toBe('failed');
    const chunks = await edgesOf(c, `to_uid=${res.body.document_uid}&edge_type=ChunkOf`);
    expect(chunks.length).toBeGreaterThan(1);
    expect(doc.props.chunk_count).toBe(chunks.length);

    const resumed = await c.post(`/ingest/resume/${res.body.document_uid}`, {});
    expect(resumed.status).toBe(202);
    expect(resumed.body.chunks_pending).toBe(chunks.length);
    const job = await finished(c, resumed.body.job_id);
    expect(job).toMatchObject({ status: 'completed', result: { chunks_completed: chunks.length, chunks_failed: 0 } });
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.processing_status).toBe('completed');
    for (const e of chunks) {
      const chunk = (await c.get(`/node/${e.from_uid}`)).body;
      expect(chunk.props.processing_status).toBe('completed');
      expect((await edgesOf(c, `to_uid=${e.from_uid}&edge_type=ExtractedFrom`)).length).toBe(chunk.props.extraction_count);
    }
    expect((await c.post(`/ingest/resume/${res.body.document_uid}`, {})).body.chunks_pending).toBe(0);
  });

  it('refuses a resume while the document has a job (409 job_active), and for what is not a live Document', async () => {
    const runner = t.app.get(JobRunner);
    await runner.stop();
    runner.start(3600);
    try {
      const res = await c.post('/ingest/document', { content: 'Katherine Johnson computed orbits at NASA in 1962.' });
      const busy = await c.post(`/ingest/resume/${res.body.document_uid}`, {});
      expect(busy.status).toBe(409);
      expect(busy.body).toMatchObject({ code: 'job_active', job_id: res.body.job_id });
      await runner.tick();
      await runner.settled();
    } finally {
      await runner.stop();
      runner.start(2);
    }
    expect((await c.post('/ingest/resume/no-such-doc', {})).status).toBe(404);
    const person = (await c.get('/nodes?node_type=Person')).body.items[0];
    const wrong = await c.post(`/ingest/resume/${person.uid}`, {});
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('wrong_node_type');
    expect((await c.post('/ingest/resume/bad uid!', {})).body.code).toBe('invalid_uid');
  });

  it('deletes a document: its chunks and what only they provided; nodes extracted elsewhere lose only those provenance edges', async () => {
    const a = await c.post('/ingest/document', { content: 'Barbara Liskov lectured in Zurich in 1975.', layers: ['reality'] });
    const b = await c.post('/ingest/document', { content: 'Barbara Liskov designed CLU at MIT.', layers: ['reality'] });
    await finished(c, a.body.job_id);
    await finished(c, b.body.job_id);
    const people = (await c.get('/nodes?node_type=Person')).body.items;
    const liskov = people.find((n: { label: string }) => n.label === 'Barbara Liskov');
    const zurich = (await c.get('/nodes?node_type=Place')).body.items.find((n: { label: string }) => n.label === 'Zurich');
    expect(zurich).toBeDefined();
    expect(await edgesOf(c, `from_uid=${liskov.uid}&edge_type=ExtractedFrom`)).toHaveLength(2);
    const chunkOfA = (await edgesOf(c, `to_uid=${a.body.document_uid}&edge_type=ChunkOf`))[0].from_uid;

    const del = await c.delete(`/ingest/document/${a.body.document_uid}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ document_uid: a.body.document_uid, chunks_deleted: 1, jobs_cancelled: 0 });
    expect(del.body.nodes_deleted).toBeGreaterThanOrEqual(2); // Zurich and the 1975 Event
    expect(del.body.edges_deleted).toBeGreaterThan(0);
    expect((await c.get(`/node/${a.body.document_uid}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${chunkOfA}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${zurich.uid}`)).body.tombstone_at).not.toBeNull();
    const liskovNow = (await c.get(`/node/${liskov.uid}`)).body;
    expect(liskovNow.tombstone_at).toBeNull();
    expect(await edgesOf(c, `from_uid=${liskov.uid}&edge_type=ExtractedFrom`)).toHaveLength(1);
    expect((await c.delete(`/ingest/document/${a.body.document_uid}`)).status).toBe(404);

    const hard = await c.delete(`/ingest/document/${b.body.document_uid}?hard=true`);
    expect(hard.status).toBe(200);
    expect(hard.body.nodes_deleted).toBeGreaterThanOrEqual(1); // Liskov's last provenance went with it
    expect((await c.get(`/node/${b.body.document_uid}`)).status).toBe(404);
    expect((await c.get(`/node/${liskov.uid}`)).status).toBe(404);
    // the same content is new again once its document is gone
    expect((await c.post('/ingest/document', { content: 'Barbara Liskov designed CLU at MIT.', layers: ['reality'] })).status).toBe(202);
  });

  it('cancels the job of a document being deleted', async () => {
    const runner = t.app.get(JobRunner);
    // no runner: the job is pending when the delete comes, whatever jobs came before it
    await runner.stop();
    let res;
    try {
      res = await c.post('/ingest/document', { content: 'Frances Allen optimised compilers at IBM.' });
      expect((await c.get(`/jobs/${res.body.job_id}`)).body.status).toBe('pending');
      const del = await c.delete(`/ingest/document/${res.body.document_uid}`);
      expect(del.body).toMatchObject({ jobs_cancelled: 1, chunks_deleted: 0 });
      expect((await c.get(`/jobs/${res.body.job_id}`)).body.status).toBe('cancelled');
    } finally {
      runner.start(2);
    }
    // a runner that looks at the queue again never runs it
    await runner.tick();
    await runner.settled();
    expect((await c.get(`/jobs/${res.body.job_id}`)).body).toMatchObject({ status: 'cancelled', progress: { processed_chunks: 0 } });
    expect(await edgesOf(c, `to_uid=${res.body.document_uid}&edge_type=ChunkOf&include_tombstoned=true`)).toHaveLength(0);
  });

  it('deleting a document keeps a node a user created that its extraction reused; only its provenance edges go', async () => {
    const mine = await c.post('/node', { node_type: 'Person', label: 'Ada Lovelace', props: { full_name: 'Ada Lovelace' } });
    expect(mine.status).toBe(201);
    const res = await c.post('/ingest/document', { content: 'Ada Lovelace wrote notes in Boston in 1843.', layers: ['reality'] });
    const job = await finished(c, res.body.job_id);
    expect(job.result.extracted_node_uids).toContain(mine.body.uid);
    expect(await edgesOf(c, `from_uid=${mine.body.uid}&edge_type=ExtractedFrom`)).toHaveLength(1);

    for (const hard of [false, true]) {
      const del = await c.delete(`/ingest/document/${res.body.document_uid}${hard ? '?hard=true' : ''}`);
      expect(del.status).toBe(200);
      const node = await c.get(`/node/${mine.body.uid}`);
      expect(node.status).toBe(200);
      expect(node.body.tombstone_at).toBeNull();
      expect(await edgesOf(c, `from_uid=${mine.body.uid}&edge_type=ExtractedFrom`)).toHaveLength(0);
    }
    // what the extraction created itself went with the document
    expect((await c.get('/nodes?node_type=Place')).body.items.map((n: { label: string }) => n.label)).not.toContain('Boston');
  });

  it('cleans up chunks whose document is gone, never standalone chunks', async () => {
    const doc = await c.post('/node', { node_type: 'Document', label: 'Scratch', props: { title: 'Scratch', document_type: 'note', processing_status: 'completed' } });
    const inDoc = await c.post('/ingest/chunk', { content: 'Edsger Dijkstra lived in Austin in 1984.', document_uid: doc.body.uid });
    const alone = await c.post('/ingest/chunk', { content: 'Donald Knuth lives in Stanford.' });
    expect(inDoc.status).toBe(201);
    expect((await c.delete(`/node/${doc.body.uid}`)).status).toBe(200);
    const res = await c.post('/ingest/cleanup', {});
    expect(res.status).toBe(200);
    expect(res.body.chunks_tombstoned).toBe(1);
    expect(res.body.edges_tombstoned).toBeGreaterThan(0);
    expect((await c.get(`/node/${inDoc.body.chunk_uid}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${alone.body.chunk_uid}`)).body.tombstone_at).toBeNull();
    expect((await c.post('/ingest/cleanup', {})).body).toEqual({ chunks_tombstoned: 0, edges_tombstoned: 0 });
  });

  it('cleans up the chunks of a document that was purged: each chunk remembers the Document it was created for', async () => {
    const queued = await c.post('/ingest/document', { content: 'Adele Goldberg built Smalltalk in Palo Alto in 1972.', layers: ['reality'] });
    await finished(c, queued.body.job_id);
    const jobChunk = (await edgesOf(c, `to_uid=${queued.body.document_uid}&edge_type=ChunkOf`))[0].from_uid;
    const doc = await c.post('/node', { node_type: 'Document', label: 'Loose notes', props: { title: 'Loose notes', document_type: 'note', processing_status: 'completed' } });
    const direct = await c.post('/ingest/chunk', { content: 'Jean Sammet designed COBOL in Endicott.', document_uid: doc.body.uid, layers: ['reality'] });
    const alone = await c.post('/ingest/chunk', { content: 'Mary Shaw taught in Pittsburgh.', layers: ['reality'] });
    expect(direct.status).toBe(201);
    expect(alone.status).toBe(201);

    // a purge takes the ChunkOf edges along with the Documents
    const purged = await c.post('/nodes/delete', { uids: [queued.body.document_uid, doc.body.uid], hard_purge: true });
    expect(purged.body.nodes_purged).toBe(2);
    expect(await edgesOf(c, `from_uid=${jobChunk}&edge_type=ChunkOf&include_tombstoned=true`)).toHaveLength(0);

    const res = await c.post('/ingest/cleanup', {});
    expect(res.status).toBe(200);
    expect(res.body.chunks_tombstoned).toBe(2);
    expect((await c.get(`/node/${jobChunk}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${direct.body.chunk_uid}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${alone.body.chunk_uid}`)).body.tombstone_at).toBeNull();
  });

  it('needs no provider to delete or clean up', async () => {
    const bare = await startTestApp();
    try {
      const s = await signUp(bare.url);
      const k = api(bare.url, s.access_token);
      expect((await k.post('/ingest/cleanup', {})).body).toEqual({ chunks_tombstoned: 0, edges_tombstoned: 0 });
      expect((await k.delete('/ingest/document/nope')).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
