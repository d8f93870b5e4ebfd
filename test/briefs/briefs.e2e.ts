import { FixedClock } from '@strata/domain/time';
import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { expectError } from '../retrieval/retrieval-fixture';
import { ALPHA, BETA, BriefWorld, seedBriefWorld } from './brief-world';

const NOW = 1_790_000_000;

const bytes = (s: string, start: number, end: number) => Buffer.from(s, 'utf8').subarray(start, end).toString('utf8');

describe('Projects and living briefs (REFERENCE §12): structural generation, versions, pins, corrections, grants', () => {
  let t: TestApp;
  let o: Api;
  let w: Api;
  let ro: Api;
  let owner: Awaited<ReturnType<typeof signUp>>;
  let world: BriefWorld;
  const clock = new FixedClock(NOW);
  const brief = (p = world.project) => `/projects/${p}/brief`;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    owner = await signUp(t.url);
    o = api(t.url, owner.access_token);
    w = api(t.url, (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key);
    ro = api(t.url, (await createApiKey(t.url, owner.access_token, { scopes: ['read'] })).key);
    world = await seedBriefWorld(w);
  }, 60_000);
  afterAll(() => t.close());

  it('checks the Project first: malformed, unknown and wrong-typed uids', async () => {
    expectError(await w.get('/projects/bad uid!/brief'), 400, 'invalid_uid', 'project_uid');
    expectError(await w.get('/projects/no-such-project/brief'), 404, 'not_found', 'project_uid');
    const r = await w.get(`/projects/${world.docA}/brief`);
    expectError(r, 400, 'wrong_node_type', 'project_uid');
    expect(r.body.expected).toEqual(['Project']);
    // the Project is checked before the body, the query and the version
    expectError(await w.post('/projects/no-such-project/brief/regenerate', { mode: 'nope' }), 404, 'not_found', 'project_uid');
    expectError(await w.patch('/projects/no-such-project/brief/items/bi_x', { action: 'nope' }), 404, 'not_found', 'project_uid');
    expectError(await w.get('/projects/no-such-project/brief/history?limit=abc'), 404, 'not_found', 'project_uid');
    expectError(await w.get('/projects/no-such-project/brief/history/abc'), 404, 'not_found', 'project_uid');
    expectError(await w.post(`/projects/${world.docA}/brief/regenerate`, { force: 'yes' }), 400, 'wrong_node_type', 'project_uid');
    expect((await w.get(brief())).body).toMatchObject({ project_uid: world.project, status: 'none', current_version: null, brief: null, regeneration: null, last_error: null, withheld_items: 0 });
  });

  it('generates the structural brief with byte-exact citations, then reuses it while sources are unchanged', async () => {
    const r = await w.post(`${brief()}/regenerate`, {});
    expect(r.status).toBe(201);
    expect(r.body.reused).toBe(false);
    const v = r.body.version;
    expect(v).toMatchObject({ project_uid: world.project, version: 1, created_at: NOW, trigger: 'regenerate', generated_by: 'structural', model: null, summary: null, previous_version: null });
    expect(v.source_counts).toEqual({ documents: 2, chunks: 2, nodes: 5, edges: 2 });
    expect(v.source_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const byKind = (k: string) => v.items.filter((i: any) => i.kind === k);
    expect(byKind('finding').map((i: any) => i.subject_uids)).toEqual([[world.ablates], [world.cracks]]);
    expect(byKind('tension').map((i: any) => i.text)).toEqual(['"Engineers argue tiles never crack" contradicts "Tiles crack under thermal load"']);
    expect(byKind('open_question').map((i: any) => i.subject_uids)).toEqual([[world.question], [world.hypothesis]]);
    expect(v.items.map((i: any) => i.rank)).toEqual([1, 2, 1, 1, 2]);
    const finding = byKind('finding')[0];
    expect(finding).toMatchObject({ text: 'The heat shield ablates at reentry', generated_text: 'The heat shield ablates at reentry', confidence: 0.9, origin: 'structural', pinned: false, correction: null, stale: false, first_version: 1 });
    // cited in both documents, ordered by document title, each quote exactly the chunk's bytes
    expect(finding.citations.map((c: any) => c.document_title)).toEqual(['Alpha report', 'Beta memo']);
    expect(bytes(ALPHA, finding.citations[0].char_start, finding.citations[0].char_end)).toBe(finding.citations[0].quote);
    expect(bytes(BETA, finding.citations[1].char_start, finding.citations[1].char_end)).toBe('the heat shield ablates at reentry');
    // a label anchored after multi-byte characters: offsets are bytes, not UTF-16 units
    const hyp = byKind('open_question')[1].citations[0];
    expect(hyp.quote).toBe('Café crème résumé');
    expect(hyp.char_start).toBe(Buffer.byteLength(BETA.slice(0, BETA.indexOf('Café')), 'utf8'));
    expect(bytes(BETA, hyp.char_start, hyp.char_end)).toBe('Café crème résumé');
    // the ids are deterministic: the same item has the same id after a forced regeneration
    const again = await w.post(`${brief()}/regenerate`, {});
    expect([again.status, again.body.reused, again.body.version.version]).toEqual([200, true, 1]);
    const state = (await w.get(brief())).body;
    expect(state).toMatchObject({ status: 'current', current_version: 1, source_fingerprint: v.source_fingerprint });
    clock.advance(10);
    const forced = await w.post(`${brief()}/regenerate`, { force: true, mode: 'structural', reason: 'Monday' });
    expect([forced.status, forced.body.version.version, forced.body.version.previous_version]).toEqual([201, 2, 1]);
    expect(forced.body.version.items.map((i: any) => i.id)).toEqual(v.items.map((i: any) => i.id));
    expect(forced.body.version.changes).toEqual([]);
  });

  it('turns stale when a source changes; the next version says what changed materially', async () => {
    const p = await w.patch(`/node/${world.cracks}`, { props: { content: 'Tiles crack under heavy thermal load' } });
    expect(p.status).toBe(200);
    expect((await w.get(brief())).body.status).toBe('stale');
    clock.advance(10);
    const r = await w.post(`${brief()}/regenerate`, {});
    expect(r.status).toBe(201);
    const changes = r.body.version.changes;
    expect(changes.filter((c: any) => c.type === 'text_changed').map((c: any) => c.kind).sort()).toEqual(['finding', 'tension']);
    expect(changes.find((c: any) => c.kind === 'finding')).toMatchObject({ material: true, before: { text: 'Tiles crack under thermal load' }, after: { text: 'Tiles crack under heavy thermal load' } });
    expect(r.body.version.material_change_count).toBe(2);
    expect((await w.get(brief())).body.status).toBe('current');
  });

  it('pins, unpins and corrects items with expected_version; every refusal writes nothing', async () => {
    const cur = (await w.get(brief())).body.brief;
    const q = cur.items.find((i: any) => i.kind === 'open_question' && i.subject_uids[0] === world.hypothesis);
    const item = `${brief()}/items/${q.id}`;
    expectError(await w.patch(item, { action: 'archive' }), 400, 'unknown_action');
    expectError(await w.patch(`${brief()}/items/bi_nope`, { action: 'pin' }), 404, 'not_found', 'item_id');
    expectError(await w.patch(item, { action: 'pin', expected_version: cur.version - 1 }), 409, 'version_conflict');
    expectError(await w.patch(item, { action: 'correct', citations: [{ chunk_uid: world.chunkB, quote: 'tiles' }] }), 400, 'missing_field', 'text');
    expectError(await w.patch(item, { action: 'correct', text: 'x' }), 400, 'missing_field', 'citations');
    const bad = async (c: Record<string, unknown>, status: number, code: string, reason?: string) => {
      const r = await w.patch(item, { action: 'correct', text: 'Crème only', citations: [{ chunk_uid: world.chunkB, quote: 'Café crème' }, c] });
      expectError(r, status, code);
      if (reason) expect(r.body).toMatchObject({ index: 1, reason });
    };
    await bad({ chunk_uid: world.chunkB, quote: 'not in the chunk' }, 422, 'invalid_citation', 'quote_not_found');
    await bad({ chunk_uid: world.chunkB, quote: 'Tests', char_start: 1, char_end: 6 }, 422, 'invalid_citation', 'offsets_mismatch');
    await bad({ chunk_uid: world.outsideChunk, quote: 'Gamma' }, 422, 'invalid_citation', 'not_admitted');
    await bad({ chunk_uid: 'chunk-that-does-not-exist', quote: 'x' }, 404, 'not_found');
    expect((await w.get(brief())).body.current_version).toBe(cur.version);

    clock.advance(5);
    const pin = await w.patch(item, { action: 'pin', expected_version: cur.version });
    expect(pin.status).toBe(200);
    expect(pin.body).toMatchObject({ changed: true, version: { version: cur.version + 1, trigger: 'pin', source_fingerprint: cur.source_fingerprint, material_change_count: 0 } });
    expect(pin.body.item).toMatchObject({ pinned: true, pinned_at: NOW + 25, rank: 1 });
    expect(pin.body.version.changes).toEqual([{ type: 'pinned', item_id: q.id, kind: 'open_question', material: false, before: { text: 'Café crème résumé' }, after: { text: 'Café crème résumé' } }]);
    const noop = await w.patch(item, { action: 'pin' });
    expect([noop.body.changed, noop.body.version.version]).toEqual([false, cur.version + 1]);

    const start = Buffer.byteLength(BETA.slice(0, BETA.indexOf('crème')), 'utf8');
    const fix = await w.patch(item, { action: 'correct', text: 'Crème only', reason: 'typo', citations: [{ chunk_uid: world.chunkB, quote: 'crème', char_start: start, char_end: start + Buffer.byteLength('crème') }] });
    expect(fix.status).toBe(200);
    expect(fix.body.item).toMatchObject({ text: 'Crème only', generated_text: 'Café crème résumé', correction: { text: 'Crème only', reason: 'typo' } });
    expect(fix.body.item.citations).toEqual([
      { chunk_uid: world.chunkB, document_uid: world.docB, document_title: 'Beta memo', chunk_index: 0, node_uid: null, char_start: start, char_end: start + 6, quote: 'crème', page_start: null, page_end: null },
    ]);
    expect(fix.body.version.changes.map((c: any) => c.type)).toEqual(['corrected']);
    expect(fix.body.version.material_change_count).toBe(1);

    // the correction and the pin carry into the next regeneration
    clock.advance(5);
    const next = await w.post(`${brief()}/regenerate`, { force: true });
    const carried = next.body.version.items.find((i: any) => i.id === q.id);
    expect(carried).toMatchObject({ text: 'Crème only', pinned: true, rank: 1, correction: { text: 'Crème only' } });
    expect(next.body.version.changes).toEqual([]);

    // unpinned, it stays (the regeneration produced it) and ranks after the other question again
    const un = await w.patch(item, { action: 'unpin' });
    expect(un.body.item).toMatchObject({ pinned: false, rank: 2 });
  });

  it('pages the history newest first and serves each version as it was', async () => {
    const h = await w.get(`${brief()}/history?limit=2`);
    expect(h.status).toBe(200);
    const head = (await w.get(brief())).body.current_version;
    expect(h.body).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(h.body.items.map((i: any) => i.version)).toEqual([head, head - 1]);
    expect(h.body.items[0]).toMatchObject({ trigger: 'unpin', generated_by: 'structural', item_counts: { finding: 2, tension: 1, open_question: 2 } });
    const third = (await w.get(`${brief()}/history?limit=100`)).body.items.find((i: any) => i.version === 3);
    expect(third.material_changes.map((c: any) => c.type)).toEqual(['text_changed', 'text_changed']);
    const v1 = await w.get(`${brief()}/history/1`);
    expect(v1.body).toMatchObject({ version: 1, previous_version: null });
    expectError(await w.get(`${brief()}/history/0`), 400, 'invalid_field', 'version');
    expectError(await w.get(`${brief()}/history/abc`), 400, 'invalid_field', 'version');
    expectError(await w.get(`${brief()}/history/999`), 404, 'not_found');
  });

  it('applies the effective Project role: read-only keys, org viewers, grants and agent-bound keys', async () => {
    // a read-only key reads but may not write
    expect((await ro.get(brief())).status).toBe(200);
    expectError(await ro.post(`${brief()}/regenerate`, {}), 403, 'read_only_credential');
    // an org viewer is a Project viewer until a grant raises them
    const viewer = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: viewer.email, role: 'viewer' })).status).toBeLessThan(300);
    const v = api(t.url, viewer.access_token, { org: owner.org_id });
    expect((await v.get(brief())).status).toBe(200);
    const denied = await v.post(`${brief()}/regenerate`, {});
    expectError(denied, 403, 'forbidden');
    expect(denied.body.required_role).toBe('agent');
    // a Project-scoped key does not reach another Project
    const scoped = api(t.url, (await createApiKey(t.url, owner.access_token, { project_uids: [world.other] })).key);
    expectError(await scoped.get(brief()), 404, 'not_found', 'project_uid');

    // grants: refusals first
    const grants = `/v1/projects/${world.project}/grants`;
    expectError(await o.post(grants, { principal_uid: 'team:x', role: 'viewer' }), 400, 'invalid_field', 'principal_uid');
    const wrongRole = await o.post(grants, { principal_uid: `user:${viewer.user_id}`, role: 'agent' });
    expectError(wrongRole, 400, 'invalid_field', 'role');
    expect(wrongRole.body.allowed).toEqual(['viewer', 'editor']);
    const agentRole = await o.post(grants, { principal_uid: 'agent:scout', role: 'editor' });
    expect([agentRole.body.code, agentRole.body.error, agentRole.body.allowed]).toEqual(['invalid_field', 'an agent takes the role viewer or agent', ['viewer', 'agent']]);
    expectError(await o.post(grants, { principal_uid: 'user:stranger', role: 'viewer' }), 404, 'not_found', 'principal_uid');
    expectError(await o.post(grants, { principal_uid: 'agent:ghost', role: 'agent' }), 404, 'not_found', 'principal_uid');
    expectError(await w.get(grants), 403, 'api_key_not_allowed');
    expect((await o.get(grants)).body.items).toEqual([]);
    // the path's Project before the body and the query
    expectError(await o.post('/v1/projects/no-such-project/grants', {}), 404, 'not_found', 'project_uid');
    expectError(await o.post('/v1/projects/no-such-project/grants', { principal_uid: 'bob', role: 'viewer' }), 404, 'not_found', 'project_uid');
    expectError(await o.post(`/v1/projects/${world.docA}/grants`, { role: 7 }), 400, 'wrong_node_type', 'project_uid');
    expectError(await o.get('/v1/projects/no-such-project/grants?limit=-1'), 404, 'not_found', 'project_uid');
    expectError(await o.post(grants, {}), 400, 'missing_field', 'principal_uid');
    expectError(await o.post(grants, { principal_uid: `user:${viewer.user_id}`, role: 7 }), 400, 'invalid_field', 'role');

    const g = await o.post(grants, { principal_uid: `user:${viewer.user_id}`, role: 'editor' });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({ project_uid: world.project, principal_uid: `user:${viewer.user_id}`, role: 'editor', granted_by: `user:${owner.user_id}` });
    expect((await o.post(grants, { principal_uid: `user:${viewer.user_id}`, role: 'editor' })).status).toBe(200);
    expect((await v.post(`${brief()}/regenerate`, {})).status).toBe(200);
    const cur = (await v.get(brief())).body.brief;
    expect((await v.patch(`${brief()}/items/${cur.items[0].id}`, { action: 'pin' })).status).toBe(200);

    // an agent-bound key: unrestricted until its agent holds a grant; then only its grants count
    const agentKey = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'scout' })).key);
    expect((await agentKey.get(brief())).status).toBe(200);
    expect((await o.post(`/v1/projects/${world.other}/grants`, { principal_uid: 'agent:scout', role: 'viewer' })).status).toBe(201);
    expectError(await agentKey.get(brief()), 404, 'not_found', 'project_uid');
    expect((await agentKey.get(brief(world.other))).status).toBe(200);
    expectError(await agentKey.post(`${brief(world.other)}/regenerate`, {}), 403, 'forbidden');
    expect((await o.post(grants, { principal_uid: 'agent:scout', role: 'agent' })).status).toBe(201);
    expect((await agentKey.post(`${brief()}/regenerate`, { force: true })).status).toBe(201);
    const pinByAgent = await agentKey.patch(`${brief()}/items/${cur.items[1].id}`, { action: 'pin' });
    expectError(pinByAgent, 403, 'forbidden');
    expect(pinByAgent.body.required_role).toBe('editor');

    const list = await o.get(`${grants}?limit=1`);
    expect(list.body).toMatchObject({ limit: 1, offset: 0, has_more: true });
    expect(list.body.items[0].principal_uid).toBe(`user:${viewer.user_id}`);
    expect((await o.delete(`${grants}/agent:scout`)).body).toEqual({ project_uid: world.project, principal_uid: 'agent:scout', revoked: true });
    expectError(await o.delete(`${grants}/agent:scout`), 404, 'not_found', 'principal_uid');
    expectError(await agentKey.get(brief()), 404, 'not_found');
  });

  it('answers 501 llm_not_configured for mode llm without a model', async () => {
    expectError(await w.post(`${brief()}/regenerate`, { mode: 'llm' }), 501, 'llm_not_configured');
    expectError(await w.post(`${brief()}/regenerate`, { mode: 'fast' }), 400, 'invalid_field', 'mode');
    expectError(await w.post(`${brief()}/regenerate`, { force: 'yes' }), 400, 'invalid_field', 'force');
  });
});
