import { Api, api, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { link, mk } from './retrieval-fixture';

/**
 * A Document in a Space the caller cannot read is absent for it (REFERENCE §13.1), so the
 * provenance shown beside what it can read never names that Document: not its uid, not its title.
 * The world: a Claim extracted from two unspaced Chunks, one of a Document in the Vault Space,
 * one of an unspaced Document; a member without a grant on the Vault reads everything but that
 * Document.
 */
describe('provenance of readable nodes names only readable Documents', () => {
  let t: TestApp;
  let owner: Api;
  let member: Api;
  const u: Record<string, string> = {};
  const SECRET = 'Secret merger memo';

  beforeAll(async () => {
    t = await startTestApp();
    const o = await signUp(t.url);
    owner = api(t.url, o.access_token);
    const node = (body: { node_type: string; label: string } & Record<string, unknown>) => mk(owner, body.node_type, body.label, body);
    const edge = (from_uid: string, to_uid: string, edge_type: string) => link(owner, from_uid, to_uid, edge_type);
    u.vault = await node({ label: 'Vault', node_type: 'Space' });
    const pages = JSON.stringify([{ page: 1, char_start: 0 }, { page: 7, char_start: 100 }]);
    u.secretDoc = await node({ label: SECRET, node_type: 'Document', space_uid: u.vault, props: { title: SECRET, document_type: 'article', page_offsets: pages } });
    u.secretChunk = await node({ label: 'memo · chunk 0', node_type: 'Chunk', props: { content: 'Kumquat harvest doubled: kumquat harvest figures', chunk_index: 0, char_offset_start: 150 } });
    u.publicDoc = await node({ label: 'Public harvest report', node_type: 'Document', props: { title: 'Public harvest report', document_type: 'article' } });
    u.publicChunk = await node({ label: 'report · chunk 0', node_type: 'Chunk', props: { content: 'kumquat yields rose', chunk_index: 0 } });
    u.claim = await node({ label: 'Kumquat harvest doubled', node_type: 'Claim' });
    await edge(u.secretChunk, u.secretDoc, 'ChunkOf');
    await edge(u.publicChunk, u.publicDoc, 'ChunkOf');
    await edge(u.claim, u.secretChunk, 'ExtractedFrom');
    await edge(u.claim, u.publicChunk, 'ExtractedFrom');
    const m = await signUp(t.url);
    const joined = await owner.post(`/v1/orgs/${o.org_id}/members`, { email: m.email, role: 'member' });
    if (joined.status >= 300) throw new Error(`add member: ${joined.status} ${joined.text}`);
    member = api(t.url, m.access_token, { org: o.org_id });
  }, 60_000);
  afterAll(() => t.close());

  const publicOnly = () => [{ uid: u.publicDoc, title: 'Public harvest report' }];

  it('the member cannot read the Vault Document, but reads the Claim and both Chunks', async () => {
    expect((await member.get(`/node/${u.secretDoc}`)).status).toBe(404);
    for (const uid of [u.claim, u.secretChunk, u.publicChunk]) expect((await member.get(`/node/${uid}`)).status).toBe(200);
  });

  it('/retrieve include_sources lists only the Documents the caller can read', async () => {
    for (const action of ['text', 'hybrid', 'semantic']) {
      const r = await member.post('/retrieve', { action, query: 'kumquat harvest doubled', include_sources: true, node_types: ['Claim', 'Chunk'], k: 10 });
      expect(r.status).toBe(200);
      const claim = r.body.find((x: any) => x.node.uid === u.claim);
      expect(claim.node.source_documents).toEqual(publicOnly());
      const chunk = r.body.find((x: any) => x.node.uid === u.secretChunk);
      if (chunk) expect(chunk.node.source_documents).toEqual([]);
      expect(r.text).not.toContain(u.secretDoc);
      expect(r.text).not.toContain(SECRET);
    }
    // the owner reads both
    const full = await owner.post('/retrieve', { action: 'text', query: 'kumquat harvest doubled', include_sources: true });
    expect(full.body.find((x: any) => x.node.uid === u.claim).node.source_documents.map((d: any) => d.uid).sort()).toEqual([u.secretDoc, u.publicDoc].sort());
  });

  it('/traverse include_provenance lists only the Documents the caller can read', async () => {
    const sub = await member.post('/traverse', { action: 'subgraph', start_uid: u.claim, max_depth: 1, include_provenance: true });
    expect(sub.status).toBe(200);
    expect(sub.body.nodes.find((n: any) => n.uid === u.claim).source_documents).toEqual(publicOnly());
    expect(sub.text).not.toContain(u.secretDoc);
    expect(sub.text).not.toContain(SECRET);
    const chain = await member.post('/traverse', { action: 'chain', start_uid: u.claim, max_depth: 1, include_provenance: true });
    expect(chain.status).toBe(200);
    expect(chain.body.steps.find((s: any) => s.node_uid === u.claim).source_documents).toEqual(publicOnly());
    expect(chain.text).not.toContain(u.secretDoc);
    expect(chain.text).not.toContain(SECRET);
  });

  it('/retrieve/context annotates source_documents with readable Documents only', async () => {
    const r = await member.post('/retrieve/context', { query: 'kumquat harvest doubled', node_types: ['Claim'], article_limit: 0 });
    expect(r.status).toBe(200);
    expect(r.body.graph.nodes.find((n: any) => n.uid === u.claim).source_documents).toEqual(publicOnly());
    expect(r.text).not.toContain(u.secretDoc);
    expect(r.text).not.toContain(SECRET);
  });

  it('chunk hits of /search include_chunks and /retrieve/context name only a Document the caller can read', async () => {
    const search = await member.post('/search', { query: 'kumquat', include_chunks: true });
    expect(search.status).toBe(200);
    const byChunk = (list: any[]) => Object.fromEntries(list.map((c: any) => [c.chunk_uid, [c.document_uid, c.document_title]]));
    expect(byChunk(search.body.chunks)).toEqual({ [u.secretChunk]: [null, null], [u.publicChunk]: [u.publicDoc, 'Public harvest report'] });
    expect(search.text).not.toContain(u.secretDoc);
    expect(search.text).not.toContain(SECRET);
    const ctx = await member.post('/retrieve/context', { query: 'kumquat', chunk_limit: 5, article_limit: 0 });
    expect(ctx.status).toBe(200);
    expect(byChunk(ctx.body.chunks)).toEqual({ [u.secretChunk]: [null, null], [u.publicChunk]: [u.publicDoc, 'Public harvest report'] });
    expect(ctx.text).not.toContain(u.secretDoc);
    expect(ctx.text).not.toContain(SECRET);
    // the owner reads the Vault Document
    const full = await owner.post('/search', { query: 'kumquat', include_chunks: true });
    expect(byChunk(full.body.chunks)[u.secretChunk]).toEqual([u.secretDoc, SECRET]);
  });

  it('/retrieve/context takes no pages from the page map of a Document the caller cannot read', async () => {
    const body = { query: 'kumquat harvest doubled', node_types: ['Claim'], article_limit: 0 };
    const secretChunk = (r: any) => r.body.graph.nodes.find((n: any) => n.uid === u.claim).source_chunks.find((c: any) => c.chunk_uid === u.secretChunk);
    const seen = await owner.post('/retrieve/context', body);
    expect(secretChunk(seen)).toMatchObject({ char_start: 0, page_start: 7, page_end: 7, quote: 'Kumquat harvest doubled' });
    const hidden = await member.post('/retrieve/context', body);
    expect(secretChunk(hidden)).toMatchObject({ char_start: 0, page_start: null, page_end: null, quote: 'Kumquat harvest doubled' });
  });
});
