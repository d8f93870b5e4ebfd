import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const TEXT = [
  'Ada Lovelace worked with Charles Babbage at the University of London in England.',
  'On 12 March 1843 she published her notes on the analytical engine.',
  'Will the analytical engine compute?',
  'I prefer green tea.',
  'The analytical engine is a machine.',
].join(' ');

const offline = () => loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm;

describe('POST /ingest/chunk (offline provider)', () => {
  let t: TestApp;
  let key: string;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: offline(), rateLimitPerMinute: 10_000_000 });
    const s = await signUp(t.url);
    key = (await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] })).key;
  });
  afterAll(() => t.close());

  it('extracts a chunk: Chunk node, extracted nodes, ExtractedFrom edges with anchored locations, confidence 0.6', async () => {
    const c = api(t.url, key);
    const res = await c.post('/ingest/chunk', { content: TEXT, label: 'Lovelace notes' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ document_uid: null, layers: ['reality', 'epistemic', 'memory'], nodes_deduplicated: 0, errors: [], deduplicated: false });
    expect(res.body.nodes_created).toBeGreaterThanOrEqual(8);
    expect(res.body.extracted_node_uids).toHaveLength(res.body.nodes_created);
    expect(res.body.edges_created).toBe(res.body.nodes_created);

    const chunk = await c.get(`/node/${res.body.chunk_uid}`);
    expect(chunk.body).toMatchObject({ node_type: 'Chunk', label: 'Lovelace notes', props: { content: TEXT, chunk_type: 'document', chunk_index: 0, processing_status: 'completed', extraction_count: res.body.nodes_created }, version: 1 });

    const people = await c.get('/nodes?node_type=Person');
    expect(people.body.items.map((n: { label: string }) => n.label).sort()).toEqual(['Ada Lovelace', 'Charles Babbage']);
    expect(people.body.items[0].confidence).toBe(0.6);

    const edges = await c.get(`/edges?to_uid=${res.body.chunk_uid}&edge_type=ExtractedFrom`);
    expect(edges.status).toBe(200);
    const bytes = Buffer.from(TEXT, 'utf8');
    const items = edges.body.items ?? edges.body;
    expect(items).toHaveLength(res.body.nodes_created);
    for (const e of items) {
      expect(e.props).toMatchObject({ method: 'offline', confidence: 0.6 });
      const loc = JSON.parse(e.props.location);
      expect(bytes.subarray(loc.start, loc.end).toString('utf8')).toBe(loc.exact);
    }
  });

  it('answers identical content with the existing chunk (200, deduplicated), and reuses known entities', async () => {
    const c = api(t.url, key);
    const again = await c.post('/ingest/chunk', { content: TEXT });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ deduplicated: true, nodes_created: 0, extracted_node_uids: [] });

    const more = await c.post('/ingest/chunk', { content: 'Ada Lovelace met Charles Babbage again in London.' });
    expect(more.status).toBe(201);
    expect(more.body.nodes_deduplicated).toBeGreaterThanOrEqual(2);
    const people = await c.get('/nodes?node_type=Person');
    expect(people.body.items).toHaveLength(2);
  });

  it('flags a near match as a possible duplicate and creates the node', async () => {
    const c = api(t.url, key);
    const res = await c.post('/ingest/chunk', { content: 'Ada Lovelac wrote to Charles Babbage.', layers: ['reality'] });
    expect(res.status).toBe(201);
    const people = (await c.get('/nodes?node_type=Person')).body.items;
    const near = people.find((n: { label: string }) => n.label === 'Ada Lovelac');
    expect(near).toBeDefined();
    const dup = await c.get(`/edges?from_uid=${near.uid}&edge_type=PossibleDuplicate`);
    const items = dup.body.items ?? dup.body;
    expect(items).toHaveLength(1);
    expect(items[0].to_uid).toBe(people.find((n: { label: string }) => n.label === 'Ada Lovelace').uid);
    expect(items[0].props).toMatchObject({ method: 'fuzzy', status: 'pending' });
    expect(items[0].props.similarity).toBeGreaterThanOrEqual(0.7);
    expect(items[0].props.similarity).toBeLessThan(0.9);
  });

  it('places a chunk in a document: ChunkOf with the next index, label "<title> · chunk <i>"', async () => {
    const c = api(t.url, key);
    const doc = await c.post('/node', { node_type: 'Document', label: 'Notes', props: { title: 'Notes', document_type: 'note', processing_status: 'completed' } });
    expect(doc.status).toBe(201);
    const first = await c.post('/ingest/chunk', { content: 'Grace Hopper joined the Navy in 1943.', document_uid: doc.body.uid });
    const second = await c.post('/ingest/chunk', { content: 'Grace Hopper wrote a compiler in 1952.', document_uid: doc.body.uid });
    expect(first.status).toBe(201);
    expect(second.body.document_uid).toBe(doc.body.uid);
    const chunk = await c.get(`/node/${second.body.chunk_uid}`);
    expect(chunk.body).toMatchObject({ label: 'Notes · chunk 1', props: { chunk_index: 1 } });
    // identical content under another parent is not a duplicate
    const standalone = await c.post('/ingest/chunk', { content: 'Grace Hopper joined the Navy in 1943.' });
    expect(standalone.status).toBe(201);
  });

  it('a standalone chunk is never answered with the chunk of a deleted document, which cleanup would then remove', async () => {
    const c = api(t.url, key);
    const content = 'Hedy Lamarr patented frequency hopping in Vienna.';
    const doc = await c.post('/node', { node_type: 'Document', label: 'Patents', props: { title: 'Patents', document_type: 'note', processing_status: 'completed' } });
    const inDoc = await c.post('/ingest/chunk', { content, document_uid: doc.body.uid, layers: ['reality'] });
    expect(inDoc.status).toBe(201);
    expect((await c.delete(`/node/${doc.body.uid}`)).status).toBe(200);

    const alone = await c.post('/ingest/chunk', { content, layers: ['reality'] });
    expect(alone.status).toBe(201);
    expect(alone.body).toMatchObject({ document_uid: null, deduplicated: false });
    expect(alone.body.chunk_uid).not.toBe(inDoc.body.chunk_uid);
    expect((await c.post('/ingest/cleanup', {})).body.chunks_tombstoned).toBe(1);
    expect((await c.get(`/node/${alone.body.chunk_uid}`)).body.tombstone_at).toBeNull();
    // and the standalone chunk is what identical content finds from now on
    expect((await c.post('/ingest/chunk', { content })).body).toMatchObject({ chunk_uid: alone.body.chunk_uid, deduplicated: true });
  });

  it.each([
    ['no content', 400, 'missing_field', {}],
    ['an unknown layer', 400, 'invalid_field', { content: 'x', layers: ['reality', 'feelings'] }],
    ['an unknown chunk_type', 400, 'invalid_field', { content: 'x', chunk_type: 'poem' }],
    ['the ontology layer with no active schema', 409, 'schema_not_active', { content: 'x', layers: ['ontology'] }],
    ['a missing document', 404, 'not_found', { content: 'x', document_uid: 'no-such-doc' }],
    ['content over 100,000 characters', 413, 'payload_too_large', { content: 'x'.repeat(100_001) }],
  ])('refuses %s: %i %s, nothing written', async (_name, status, code, body) => {
    const c = api(t.url, key);
    const before = (await c.get('/stats')).body.total_nodes;
    const res = await c.post('/ingest/chunk', body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((await c.get('/stats')).body.total_nodes).toBe(before);
  });

  it('answers 502 upstream_error and writes nothing when every pass fails', async () => {
    const c = api(t.url, key);
    const before = (await c.get('/stats')).body.total_nodes;
    const res = await c.post('/ingest/chunk', { content: 'Plans and tasks.', layers: ['agent'] });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('upstream_error');
    expect((await c.get('/stats')).body.total_nodes).toBe(before);
  });

  it('lists the passes that failed while the others commit', async () => {
    const res = await api(t.url, key).post('/ingest/chunk', { content: 'Linus Torvalds wrote Git in 2005.', layers: ['reality', 'agent'] });
    expect(res.status).toBe(201);
    expect(res.body.errors).toEqual([{ layer: 'agent', error: 'the offline extractor has no agent pass' }]);
    expect(res.body.nodes_created).toBeGreaterThan(0);
  });
});

describe('ingestion without a language model', () => {
  it('answers 501 llm_not_configured before anything is written', async () => {
    const t = await startTestApp();
    try {
      const s = await signUp(t.url);
      const c = api(t.url, s.access_token);
      const res = await c.post('/ingest/chunk', { content: 'Ada Lovelace' });
      expect(res.status).toBe(501);
      expect(res.body.code).toBe('llm_not_configured');
      expect((await c.get('/stats')).body.total_nodes).toBe(0);
    } finally {
      await t.close();
    }
  });
});
