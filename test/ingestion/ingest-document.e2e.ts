import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { minimalPdf } from '@strata/extraction/readers/testing/minimal-pdf';
import { at as atInstant } from '@strata/domain/testing/fixed-time';

const PARAGRAPHS = [
  'Ada Lovelace worked with Charles Babbage at the University of London in England.',
  'On 12 March 1843 she published her notes on the analytical engine. The analytical engine was never finished.',
  'Will the analytical engine compute? We hypothesise that engines may think.',
  'Our goal is to build a parser. We decided to use TypeScript. Run the tests before merging.',
  'Grace Hopper joined the Navy in 1943. Grace Hopper wrote a compiler in 1952.',
];
const ARTICLE = `Engines and people\n\n${PARAGRAPHS.join('\n\n')}`;

type Client = ReturnType<typeof api>;

async function finished(c: Client, jobId: string) {
  return eventually(
    async () => {
      const j = await c.get(`/jobs/${jobId}`);
      return ['completed', 'failed', 'cancelled'].includes(j.body.status) ? j.body : null;
    },
    { what: `job ${jobId} finished`, timeoutMs: 20_000 },
  );
}

describe('POST /ingest/document and /ingest/session (offline provider)', () => {
  let t: TestApp;
  let c: Client;
  const clock = new FixedClock(atInstant('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm, rateLimitPerMinute: 10_000_000 });
    const s = await signUp(t.url);
    c = api(t.url, (await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] })).key);
  });
  afterAll(() => t.close());

  it('queues a document (202), writes it pending, and a job chunks and extracts it to completed', async () => {
    const res = await c.post('/ingest/document', { content: ARTICLE, chunk_size: 100, chunk_overlap: 0, authors: ['A. Lovelace'], doi: '10.1/x', language: 'en' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(String), document_uid: expect.any(String), deduplicated: false });
    const job = await finished(c, res.body.job_id);
    expect(job).toMatchObject({ kind: 'ingest_document', title: 'Engines and people', status: 'completed', document_uid: res.body.document_uid, error: null });
    expect(job.result).toMatchObject({ document_uid: res.body.document_uid, chunks_failed: 0, errors: [] });
    expect(job.result.chunks_completed).toBeGreaterThanOrEqual(2);
    expect(job.progress.total_chunks).toBe(job.result.chunks_completed);
    expect(job.progress.processed_chunks).toBe(job.progress.total_chunks);
    expect(job.result.nodes_created).toBeGreaterThan(5);
    expect(job.completed_at).toBe(clock.now());

    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(doc).toMatchObject({
      node_type: 'Document',
      label: 'Engines and people',
      props: { title: 'Engines and people', document_type: 'article', processing_status: 'completed', content_length: Buffer.byteLength(ARTICLE), chunk_count: job.result.chunks_completed, authors: ['A. Lovelace'], doi: '10.1/x', language: 'en' },
    });
    const chunkEdges = (await c.get(`/edges?to_uid=${res.body.document_uid}&edge_type=ChunkOf`)).body;
    const edges = chunkEdges.items ?? chunkEdges;
    expect(edges).toHaveLength(job.result.chunks_completed);
    const bytes = Buffer.from(ARTICLE, 'utf8');
    for (const e of edges) {
      const chunk = (await c.get(`/node/${e.from_uid}`)).body;
      expect(chunk.label).toBe(`Engines and people · chunk ${chunk.props.chunk_index}`);
      expect(chunk.props.processing_status).toBe('completed');
      // written once, with its extraction: not pending first and then again completed
      expect(chunk.version).toBe(1);
      expect(bytes.subarray(chunk.props.char_offset_start, chunk.props.char_offset_end).toString('utf8')).toBe(chunk.props.content);
    }
    // reality and epistemic by default: no intent-layer nodes
    expect((await c.get('/nodes?node_type=Goal')).body.items).toHaveLength(0);
    expect((await c.get('/nodes?node_type=Claim')).body.items.length).toBeGreaterThan(0);
  });

  it('answers identical content with the existing document (200) unless force_reingest', async () => {
    const first = await c.post('/ingest/document', { content: 'Alan Turing was born in London in 1912.' });
    expect(first.status).toBe(202);
    await finished(c, first.body.job_id);
    const same = await c.post('/ingest/document', { content: 'Alan Turing was born in London in 1912.' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ job_id: null, document_uid: first.body.document_uid, deduplicated: true });
    const forced = await c.post('/ingest/document', { content: 'Alan Turing was born in London in 1912.', force_reingest: true });
    expect(forced.status).toBe(202);
    expect(forced.body.document_uid).not.toBe(first.body.document_uid);
    await finished(c, forced.body.job_id);
  });

  it('admits the document to a project (PartOfProject), also when it is answered as a duplicate', async () => {
    const project = await c.post('/node', { node_type: 'Project', label: 'Engines', props: { name: 'Engines', description: 'x' } });
    expect(project.status).toBe(201);
    const res = await c.post('/ingest/document', { content: 'Alan Turing was born in London in 1912.', project_uid: project.body.uid });
    expect(res.status).toBe(200);
    const part = (await c.get(`/edges?from_uid=${res.body.document_uid}&edge_type=PartOfProject`)).body;
    const items = part.items ?? part;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ to_uid: project.body.uid, props: { admitted_at: clock.now() } });
    const again = await c.post('/ingest/document', { content: 'Alan Turing was born in London in 1912.', project_uid: project.body.uid });
    expect(again.status).toBe(200);
    expect((await c.get(`/edges?from_uid=${res.body.document_uid}&edge_type=PartOfProject`)).body).toHaveLength(1);
  });

  it('ingests a session: a transcript Document captured in a new closed Session, every layer', async () => {
    const transcript = 'Kwame: We decided to ship on Friday.\n\nAisha: I prefer smaller releases. Our goal is to cut review time.';
    const res = await c.post('/ingest/session', { content: transcript, title: 'Standup', occurred_at: '2030-01-01T09:00:00Z', participants: [{ name: 'Kwame', role: 'lead' }, { name: 'Aisha' }] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(String), document_uid: expect.any(String), session_uid: expect.any(String) });
    const job = await finished(c, res.body.job_id);
    expect(job).toMatchObject({ kind: 'ingest_session', status: 'completed' });
    expect(job.result.session_uid).toBe(res.body.session_uid);
    const session = (await c.get(`/node/${res.body.session_uid}`)).body;
    const at = atInstant('2030-01-01T09:00:00Z');
    expect(session).toMatchObject({ node_type: 'Session', label: 'Standup', props: { started_at: at, ended_at: at } });
    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(doc.props.document_type).toBe('transcript');
    const captured = (await c.get(`/edges?from_uid=${res.body.document_uid}&edge_type=CapturedIn`)).body;
    expect((captured.items ?? captured)[0].to_uid).toBe(res.body.session_uid);
    const labels = async (type: string) => (await c.get(`/nodes?node_type=${type}`)).body.items.map((n: { label: string }) => n.label);
    expect(await labels('Decision')).toContain('Kwame: We decided to ship on Friday.');
    expect(await labels('Preference')).toContain('Aisha: I prefer smaller releases.');
    expect(await labels('Person')).toEqual(expect.arrayContaining(['Kwame', 'Aisha']));
  });

  it('a new Session starts and ends at occurred_at to the millisecond', async () => {
    const res = await c.post('/ingest/session', { content: 'Lin: the build is green.', occurred_at: '2029-06-01T10:00:00.250Z', layers: ['reality'] });
    expect(res.status).toBe(202);
    await finished(c, res.body.job_id);
    const at = atInstant('2029-06-01T10:00:00.250Z');
    expect(at % 1).toBeCloseTo(0.25);
    expect((await c.get(`/node/${res.body.session_uid}`)).body.props).toMatchObject({ started_at: at, ended_at: at });
  });

  it('takes occurred_at with partial precision: a month starts the new Session at its first day', async () => {
    const res = await c.post('/ingest/session', { content: 'Noor: the March numbers are in.', occurred_at: '2029-03', layers: ['reality'] });
    expect(res.status).toBe(202);
    await finished(c, res.body.job_id);
    const at = atInstant('2029-03-01T00:00:00Z');
    expect((await c.get(`/node/${res.body.session_uid}`)).body.props).toMatchObject({ started_at: at, ended_at: at });
    expect((await c.post('/ingest/document', { content: 'A year-old memo about Lisbon.', occurred_at: '2028', layers: ['reality'] })).status).toBe(202);
  });

  it('keeps when a session occurred on its Document: /retrieve/context names it with the source document', async () => {
    const res = await c.post('/ingest/session', { content: 'Margaret Hamilton reviewed the lander code in Boston.', title: 'Code review', occurred_at: '2029-11-03', layers: ['reality'] });
    expect(res.status).toBe(202);
    expect((await finished(c, res.body.job_id)).status).toBe('completed');
    expect((await c.get(`/node/${res.body.document_uid}`)).body.props.occurred_at).toBe('2029-11-03');

    const ctx = await c.post('/retrieve/context', { query: 'Margaret Hamilton', node_types: ['Person'], node_limit: 5 });
    expect(ctx.status).toBe(200);
    const hamilton = ctx.body.graph.nodes.find((n: { label: string }) => n.label === 'Margaret Hamilton');
    expect(hamilton.source_documents).toEqual([{ uid: res.body.document_uid, title: 'Code review', occurred_at: '2029-11-03' }]);
  });

  it('runs an organization’s ingestion jobs one at a time, in order, showing queue_position while pending, and cancels a pending one at once', async () => {
    const runner = t.app.get((await import('@strata/jobs/runner/job-runner')).JobRunner);
    // the runner polls once an hour meanwhile and is not woken by an enqueue: the jobs stay
    // queued while the test looks at them, and it ticks by hand
    await runner.stop();
    runner.start(3600);
    const wake = jest.spyOn(runner, 'wake').mockImplementation(() => undefined);
    try {
      const a = await c.post('/ingest/document', { content: 'First queued document about Paris.' });
      clock.advance(1);
      const b = await c.post('/ingest/document', { content: 'Second queued document about Rome.' });
      clock.advance(1);
      const d = await c.post('/ingest/document', { content: 'Third queued document about Oslo.' });
      expect((await c.get(`/jobs/${a.body.job_id}`)).body).toMatchObject({ status: 'pending', queue_position: 1 });
      expect((await c.get(`/jobs/${d.body.job_id}`)).body).toMatchObject({ status: 'pending', queue_position: 3 });
      const list = await c.get('/jobs?kind=ingest_document&status=pending');
      expect(list.body.items.map((j: { id: string }) => j.id)).toEqual([d.body.job_id, b.body.job_id, a.body.job_id]);

      const cancelled = await c.post(`/jobs/${b.body.job_id}/cancel`, {});
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expect((await c.get(`/node/${b.body.document_uid}`)).body.props.processing_status).toBe('failed');
      expect((await c.post(`/jobs/${b.body.job_id}/cancel`, {})).body.code).toBe('invalid_transition');

      await runner.tick();
      // one job of the organization at a time: the oldest
      const running = (await c.get('/jobs?kind=ingest_document')).body.items.filter((j: { status: string }) => j.status === 'processing' || j.status === 'completed');
      expect(running.map((j: { id: string }) => j.id)).toContain(a.body.job_id);
      expect((await c.get(`/jobs/${d.body.job_id}`)).body.status).toBe('pending');
      await runner.settled();
      expect((await c.get(`/jobs/${a.body.job_id}`)).body.status).toBe('completed');
      await runner.tick();
      await runner.settled();
      expect((await c.get(`/jobs/${d.body.job_id}`)).body.status).toBe('completed');
    } finally {
      wake.mockRestore();
      await runner.stop();
      runner.start(2);
    }
  });

  it('reads a PDF sent as content_base64: its pages become the page map of the extracted quotes', async () => {
    const pdf = minimalPdf(['Dorothy Vaughan wrote notes in London in 1843.', 'Katherine Johnson joined the Navy in Boston in 1943.']);
    const res = await c.post('/ingest/document', { content_base64: pdf.toString('base64'), mime_type: 'application/pdf', title: 'Two pages', layers: ['reality'] });
    expect(res.status).toBe(202);
    expect((await finished(c, res.body.job_id)).status).toBe('completed');
    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(doc.props).toMatchObject({ mime_type: 'application/pdf', content_length: Buffer.byteLength('Dorothy Vaughan wrote notes in London in 1843.\n\nKatherine Johnson joined the Navy in Boston in 1943.') });
    const hopper = (await c.get('/nodes?node_type=Person')).body.items.find((n: { label: string }) => n.label === 'Katherine Johnson');
    const provenance = (await c.get(`/edges?from_uid=${hopper.uid}&edge_type=ExtractedFrom`)).body;
    const loc = JSON.parse(provenance[0].props.location);
    expect(loc).toMatchObject({ exact: 'Katherine Johnson', page_start: 2, page_end: 2 });
    const lovelace = (await c.get('/nodes?node_type=Person')).body.items.find((n: { label: string }) => n.label === 'Dorothy Vaughan');
    expect(JSON.parse((await c.get(`/edges?from_uid=${lovelace.uid}&edge_type=ExtractedFrom`)).body[0].props.location)).toMatchObject({ page_start: 1 });
  });

  it('keeps the page map on the Document: /retrieve/context gives the pages of an extracted quote', async () => {
    const first = 'Mae Jemison trained in Houston in 1987.';
    const second = 'Sally Ride flew from Orlando in 1983.';
    const content = `Two pages of flights\n\n${first}\n\n${second}`;
    const page2 = Buffer.byteLength(`Two pages of flights\n\n${first}\n\n`);
    const page_offsets = [{ page: 1, char_start: 0 }, { page: 2, char_start: page2 }];
    const res = await c.post('/ingest/document', { content, page_offsets, page_count: 2, layers: ['reality'] });
    expect(res.status).toBe(202);
    expect((await finished(c, res.body.job_id)).status).toBe('completed');
    const doc = (await c.get(`/node/${res.body.document_uid}`)).body;
    expect(JSON.parse(doc.props.page_offsets)).toEqual(page_offsets);
    expect(doc.props.page_count).toBe(2);

    const ctx = await c.post('/retrieve/context', { query: 'Sally Ride', node_types: ['Person'], node_limit: 5 });
    expect(ctx.status).toBe(200);
    const ride = ctx.body.graph.nodes.find((n: { label: string }) => n.label === 'Sally Ride');
    expect(ride.source_chunks).toHaveLength(1);
    expect(ride.source_chunks[0]).toMatchObject({ quote: 'Sally Ride', page_start: 2, page_end: 2 });
  });

  it('reuses the node an alias names: an extracted name equal to an existing alias is deduplicated, not created', async () => {
    const known = await c.post('/node', { node_type: 'Person', label: 'Mary Winston', props: { full_name: 'Mary Winston' } });
    expect(known.status).toBe(201);
    expect((await c.post('/reality/entity', { action: 'alias', text: 'Mary Jackson', canonical_uid: known.body.uid })).status).toBe(200);
    const res = await c.post('/ingest/document', { content: 'Mary Jackson joined the team in Hampton in 1951.\n\nMary Jackson became an engineer in 1958.', title: 'Aliases', chunk_size: 100, chunk_overlap: 0 });
    expect(res.status).toBe(202);
    const job = await finished(c, res.body.job_id);
    expect(job.status).toBe('completed');
    expect(job.result.nodes_deduplicated).toBeGreaterThanOrEqual(1);
    const people = (await c.get('/nodes?node_type=Person&limit=500')).body.items.map((n: { label: string }) => n.label);
    expect(people).toContain('Mary Winston');
    expect(people).not.toContain('Mary Jackson');
    const cited = await c.get(`/edges?from_uid=${known.body.uid}&edge_type=ExtractedFrom`);
    expect((cited.body.items ?? cited.body).length).toBeGreaterThanOrEqual(1);
  });

  it('reads HTML sent as content_base64', async () => {
    const html = '<html><body><h1>Notes</h1><p>Barbara Liskov taught at MIT in 1972.</p></body></html>';
    const res = await c.post('/ingest/document', { content_base64: Buffer.from(html).toString('base64'), mime_type: 'text/html', layers: ['reality'] });
    expect(res.status).toBe(202);
    expect((await finished(c, res.body.job_id)).status).toBe('completed');
    expect((await c.get(`/node/${res.body.document_uid}`)).body.label).toBe('NOTES');
  });

  it('measures page offsets in UTF-8 bytes: a page may start at the content end, not past it', async () => {
    // 'Pages: é' is 8 characters and 9 bytes
    const past = await c.post('/ingest/document', { content: 'Pages: é', page_offsets: [{ page: 1, char_start: 0 }, { page: 2, char_start: 10 }] });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ code: 'invalid_field', field: 'page_offsets[1].char_start' });
    const end = await c.post('/ingest/document', { content: 'Pages: é', page_offsets: [{ page: 1, char_start: 0 }, { page: 2, char_start: 9 }], layers: ['reality'] });
    expect(end.status).toBe(202);
    await finished(c, end.body.job_id);
  });

  it.each([
    ['no content', 400, 'missing_field', {}],
    ['an unreadable PDF', 422, 'unreadable_content', { content_base64: Buffer.from('%PDF-1.4 broken').toString('base64'), mime_type: 'application/pdf' }],
    ['a file type it cannot read', 400, 'invalid_field', { content_base64: 'aGVsbG8=', mime_type: 'image/png' }],
    ['a file without its mime_type', 400, 'missing_field', { content_base64: 'aGVsbG8=' }],
    ['both content and content_base64', 400, 'invalid_field', { content: 'x', content_base64: 'aGVsbG8=', mime_type: 'text/plain' }],
    ['an unknown layer', 400, 'invalid_field', { content: 'x', layers: ['dreams'] }],
    ['an unknown content_type', 400, 'invalid_field', { content: 'x', content_type: 'poem' }],
    ['a chunk_size out of range', 400, 'invalid_field', { content: 'x', chunk_size: 50 }],
    ['an overlap as large as the chunk', 400, 'invalid_field', { content: 'x', chunk_size: 200, chunk_overlap: 200 }],
    ['a malformed page map', 400, 'invalid_field', { content: 'x', page_offsets: [{ page: 2, char_start: 10 }, { page: 1, char_start: 0 }] }],
    ['a page starting past the end of the content', 400, 'invalid_field', { content: 'héllo', page_offsets: [{ page: 1, char_start: 0 }, { page: 2, char_start: 7 }] }],
    ['a project that does not exist', 404, 'not_found', { content: 'x', project_uid: 'nope' }],
    ['the ontology layer without an active schema', 409, 'schema_not_active', { content: 'x', layers: ['ontology'] }],
    ['content over 5 MiB', 413, 'payload_too_large', { content: 'é'.repeat(2_700_000) }],
  ])('refuses a document with %s: %i %s, nothing written', async (_name, status, code, body) => {
    const before = (await c.get('/stats')).body.total_nodes;
    const jobs = (await c.get('/jobs')).body.items.length;
    const res = await c.post('/ingest/document', body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await c.get('/stats')).body.total_nodes).toBe(before);
    expect((await c.get('/jobs')).body.items.length).toBe(jobs);
  });

  it.each([
    ['a session that does not exist', 404, 'not_found', { content: 'x', session_uid: 'nope' }],
    ['a malformed occurred_at', 400, 'invalid_field', { content: 'x', occurred_at: 'yesterday' }],
    ['participants without names', 400, 'missing_field', { content: 'x', participants: [{ role: 'lead' }] }],
  ])('refuses a session with %s: %i %s, nothing written', async (_name, status, code, body) => {
    const before = (await c.get('/stats')).body.total_nodes;
    const res = await c.post('/ingest/session', body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await c.get('/stats')).body.total_nodes).toBe(before);
  });
});

describe('asynchronous ingestion without a language model', () => {
  it('answers 501 llm_not_configured on every route that needs one, before anything is written', async () => {
    const t = await startTestApp();
    try {
      const s = await signUp(t.url);
      const c = api(t.url, s.access_token);
      for (const [path, body] of [['/ingest/document', { content: 'x' }], ['/ingest/session', { content: 'x' }], ['/ingest/resume/some-doc', {}]] as const) {
        const res = await c.post(path, body);
        expect(res.status).toBe(501);
        expect(res.body.code).toBe('llm_not_configured');
      }
      expect((await c.get('/stats')).body.total_nodes).toBe(0);
      expect((await c.get('/jobs')).body.items).toHaveLength(0);
    } finally {
      await t.close();
    }
  });
});
