import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { expectError, link, mk } from '../retrieval/retrieval-fixture';
import { seedBriefWorld } from '../briefs/brief-world';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * REFERENCE §12.2 and §13.3: an agent that holds Project grants acts inside their admitted sets
 * only; a `viewer` grant reads there, an `agent` grant also writes (nodes in Nodes(P), and
 * Documents admitted to P).
 */
describe('Project grants bound an agent’s graph reads and writes (REFERENCE §12.2, §13.3)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm });
  });
  afterAll(() => t.close());

  it('viewer reads, agent writes, anything else is out of scope', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const world = await seedBriefWorld(o);
    const gamma = await mk(o, 'Claim', 'Gamma claim', { props: { content: 'Gamma says nothing' } });
    await link(o, gamma, world.outsideChunk, 'ExtractedFrom');
    const loose = await mk(o, 'Claim', 'Loose claim');
    const agent = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'scout' })).key);

    // without grants the agent acts organization-wide (the default)
    expect((await agent.patch(`/node/${loose}`, { props: { content: 'edited while unrestricted' } })).status).toBe(200);

    expect((await o.post(`/v1/projects/${world.project}/grants`, { principal_uid: 'agent:scout', role: 'viewer' })).status).toBe(201);
    expect((await o.post(`/v1/projects/${world.other}/grants`, { principal_uid: 'agent:scout', role: 'agent' })).status).toBe(201);

    // reads: the admitted sets of its Projects, with the Projects; nothing else
    for (const uid of [world.ablates, world.chunkA, world.docA, world.project, gamma, world.other]) expect([uid, (await agent.get(`/node/${uid}`)).status]).toEqual([uid, 200]);
    expectError(await agent.get(`/node/${loose}`), 404, 'not_found');
    const claims = (await agent.get('/nodes?node_type=Claim&limit=100')).body.items.map((n: { uid: string }) => n.uid);
    expect(claims).toContain(gamma);
    expect(claims).not.toContain(loose);

    // writes: an `agent` grant writes Nodes(P); a `viewer` grant does not; outside both is absent
    expect((await agent.patch(`/node/${gamma}`, { props: { content: 'Gamma, revised' } })).status).toBe(200);
    const refused = await agent.patch(`/node/${world.ablates}`, { props: { content: 'rewritten' } });
    expect([refused.status, refused.body.code, refused.body.required_role]).toEqual([403, 'forbidden', 'agent']);
    expect((await o.get(`/node/${world.ablates}`)).body.props.content).toBe('The heat shield ablates at reentry');
    expectError(await agent.patch(`/node/${loose}`, { props: { content: 'x' } }), 404, 'not_found');
    // an edge into the viewer Project's set is a write there too
    const into = await agent.post('/edge', { from_uid: gamma, to_uid: world.ablates, edge_type: 'Supports' });
    expect([into.status, into.body.code]).toEqual([403, 'forbidden']);
    expect((await agent.post('/edge', { from_uid: gamma, to_uid: world.outsideChunk, edge_type: 'RelatedTo' })).status).toBe(201);

    // admitting a Document (ingestion with project_uid): into the `agent` Project yes, into the `viewer` one no
    const admitViewer = await agent.post('/ingest/document', { content: 'Field notes: tiles hold.', title: 'Field notes', project_uid: world.project });
    expect([admitViewer.status, admitViewer.body.code, admitViewer.body.required_role]).toEqual([403, 'forbidden', 'agent']);
    const admitted = await agent.post('/ingest/document', { content: 'Field notes: Ada Lovelace inspected the tiles in London.', title: 'Field notes', project_uid: world.other });
    expect(admitted.status).toBe(202);
    const job = await eventually(async () => {
      const j = (await agent.get(`/jobs/${admitted.body.job_id}`)).body;
      return ['completed', 'failed'].includes(j.status) ? j : null;
    }, { what: 'the ingestion job' });
    expect(job.status).toBe('completed'); // its units write inside the `agent` Project's set
    expect((await agent.get(`/node/${admitted.body.document_uid}`)).status).toBe(200);

    // raising the grant lets it write there from the next request
    expect((await o.post(`/v1/projects/${world.project}/grants`, { principal_uid: 'agent:scout', role: 'agent' })).status).toBe(200);
    expect((await agent.patch(`/node/${world.ablates}`, { props: { content: 'The heat shield ablates at reentry, measured' } })).status).toBe(200);
    // users are not bound by their Project grants' scope: a member still writes organization-wide
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    await o.post(`/v1/projects/${world.project}/grants`, { principal_uid: `user:${m.user_id}`, role: 'viewer' });
    expect((await api(t.url, m.access_token, { org: owner.org_id }).patch(`/node/${loose}`, { props: { content: 'by a member' } })).status).toBe(200);
  });

  it('what a confined agent creates must land inside a Project where its grant is `agent` (or a Space it writes), on every create path', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const world = await seedBriefWorld(o);
    const agent = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'drafter' })).key);
    const claims = async () => (await o.get('/nodes?node_type=Claim&limit=1000')).body.items.length;
    // unrestricted (no grant yet): it creates anywhere
    expect((await agent.post('/node', { label: 'Loose note', node_type: 'Claim' })).status).toBe(201);
    expect((await o.post(`/v1/projects/${world.other}/grants`, { principal_uid: 'agent:drafter', role: 'agent' })).status).toBe(201);
    expect((await o.post(`/v1/projects/${world.project}/grants`, { principal_uid: 'agent:drafter', role: 'viewer' })).status).toBe(201);
    const before = await claims();
    const outside = (r: { status: number; body: any }) => expect([r.status, r.body.code, r.body.required_role]).toEqual([403, 'forbidden', 'agent']);

    // a node joining no Project: refused on the generic routes, /batch, cognitive routes and ingestion
    outside(await agent.post('/node', { label: 'Stray claim', node_type: 'Claim' }));
    outside(await agent.post('/batch', { nodes: [{ label: 'Stray A', node_type: 'Claim' }, { label: 'Stray B', node_type: 'Claim' }] }));
    outside(await agent.post('/reality/capture', { action: 'observation', label: 'Stray observation' }));
    outside(await agent.post('/ingest/document', { content: 'Stray notes: tiles hold.', title: 'Stray notes' }));
    // extracted from a chunk of the `viewer` Project: a write there, refused
    const viewerOnly = await agent.post('/batch', { nodes: [{ ref: 'c', label: 'Claim on Orion', node_type: 'Claim' }], edges: [{ from_ref: 'c', to_uid: world.chunkA, edge_type: 'ExtractedFrom' }] });
    outside(viewerOnly);
    // a Document admitted nowhere, or an Article (an output, never a source)
    outside(await agent.post('/batch', { nodes: [{ ref: 'd', label: 'Loose doc', node_type: 'Document', props: { title: 'Loose doc' } }], edges: [] }));
    outside(await agent.post('/batch', { nodes: [{ ref: 'a', label: 'Vega article', node_type: 'Article', props: { content: 'x' } }], edges: [{ from_ref: 'a', to_uid: world.other, edge_type: 'PartOfProject' }] }));
    expect(await claims()).toBe(before);
    expect((await o.get('/nodes?node_type=Document&limit=1000')).body.items.map((n: { label: string }) => n.label)).not.toContain('Stray notes');

    // inside the `agent` Project: a Claim extracted from its chunk, a Document admitted with its Chunk
    const inside = await agent.post('/batch', {
      nodes: [
        { ref: 'c', label: 'Gamma is quiet', node_type: 'Claim' },
        { ref: 'd', label: 'Delta notes', node_type: 'Document', props: { title: 'Delta notes' } },
        { ref: 'k', label: 'Delta · 0', node_type: 'Chunk', props: { content: 'Delta says tiles hold.', chunk_index: 0 } },
        { ref: 'q', label: 'Do tiles hold?', node_type: 'Question', props: { text: 'Do tiles hold?' } },
      ],
      edges: [
        { from_ref: 'c', to_uid: world.outsideChunk, edge_type: 'ExtractedFrom' },
        { from_ref: 'd', to_uid: world.other, edge_type: 'PartOfProject' },
        { from_ref: 'k', to_ref: 'd', edge_type: 'ChunkOf' },
        { from_ref: 'q', to_ref: 'k', edge_type: 'ExtractedFrom' },
      ],
    });
    expect(inside.status).toBe(201);
    // what it made is in its scope: it reads it back
    for (const uid of inside.body.node_uids) expect([uid, (await agent.get(`/node/${uid}`)).status]).toEqual([uid, 200]);
    // ingestion into the `agent` Project still works (the Document is admitted in the same request)
    expect((await agent.post('/ingest/document', { content: 'Epsilon notes: tiles hold.', title: 'Epsilon notes', project_uid: world.other })).status).toBe(202);
    // a chunk of an admitted Document joins the Project; one of no Document does not
    expect((await agent.post('/ingest/chunk', { content: 'Delta adds: seals hold too.', document_uid: inside.body.refs.d })).status).toBe(201);
    outside(await agent.post('/ingest/chunk', { content: 'A chunk of nothing.' }));
    // a transcript's new Session node joins no admitted set
    outside(await agent.post('/ingest/session', { content: 'Ada: tiles hold. Bob: agreed.', title: 'Stand-up', project_uid: world.other }));

    // a Space it may write: a spaced node is the Space rule's, not the Projects'
    const space = (await o.post('/node', { label: 'Drafts', node_type: 'Space' })).body.uid;
    outside(await agent.post('/node', { label: 'Draft claim', node_type: 'Claim' }));
    // a Space it holds no grant on is absent for it (§13.1: a Space the caller cannot see → 404)
    expect((await agent.get(`/node/${space}`)).status).toBe(404);
    expectError(await agent.post('/node', { label: 'Draft claim', node_type: 'Claim', space_uid: space }), 404, 'not_found');
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: 'agent:drafter', access: 'write' })).status).toBe(201);
    const drafted = await agent.post('/node', { label: 'Draft claim', node_type: 'Claim', space_uid: space });
    expect(drafted.status).toBe(201);
    expect((await agent.get(`/node/${drafted.body.uid}`)).status).toBe(200);

    // a user is not confined by its Project grants: a member creates anywhere
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    await o.post(`/v1/projects/${world.other}/grants`, { principal_uid: `user:${m.user_id}`, role: 'editor' });
    expect((await api(t.url, m.access_token, { org: owner.org_id }).post('/node', { label: 'Member claim', node_type: 'Claim' })).status).toBe(201);
  });
});
