import { FixedClock } from '@strata/domain/time';
import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { link, mk } from '../retrieval/retrieval-fixture';
import { BriefWorld, seedBriefWorld } from './brief-world';

const NOW = 1_790_000_000;
const SECRET = 'Which supplier cracked the tiles?';

/**
 * REFERENCE §12.3 withholding and §13.1: an item touching a node the caller cannot read is
 * absent for it, in the items and everywhere else the brief would name it.
 */
describe('a brief item the caller cannot see stays out of what it reads', () => {
  let t: TestApp;
  let w: Api;
  let member: Api;
  let world: BriefWorld;
  let secretItem: string;
  let secretLink: string;
  let hiddenChunk: string;
  const clock = new FixedClock(NOW);
  const brief = () => `/projects/${world.project}/brief`;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    w = api(t.url, (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key);
    world = await seedBriefWorld(w);
    // an open question extracted from an admitted chunk, but kept in a Space the member has no grant on
    const space = (await o.post('/node', { node_type: 'Space', label: 'Procurement' })).body.uid;
    const secretNode = await mk(w, 'Question', SECRET, { space_uid: space, props: { text: SECRET } });
    secretLink = await link(w, secretNode, world.chunkA, 'ExtractedFrom');
    // a second admitted document whose chunk is in the Space too
    const doc = await mk(w, 'Document', 'Supplier memo', { space_uid: space, props: { title: 'Supplier memo', document_type: 'note' } });
    hiddenChunk = await mk(w, 'Chunk', 'Supplier · 0', { space_uid: space, props: { content: 'The supplier changed the resin.', chunk_index: 0, chunk_type: 'text' } });
    await link(w, hiddenChunk, doc, 'ChunkOf');
    await link(w, doc, world.project, 'PartOfProject');
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    member = api(t.url, m.access_token, { org: owner.org_id });
    const v1 = await w.post(`${brief()}/regenerate`, {});
    expect(v1.status).toBe(201);
    secretItem = v1.body.version.items.find((i: { text: string }) => i.text === SECRET).id;
    expect(v1.body.version.changes.map((c: { item_id: string }) => c.item_id)).toContain(secretItem);
  }, 60_000);
  afterAll(() => t.close());

  it('answers 404 to a pin or correction of an item or on a chunk the caller cannot see, and writes nothing', async () => {
    const before = (await w.get(brief())).body.current_version;
    const pin = await member.patch(`${brief()}/items/${secretItem}`, { action: 'pin' });
    expect([pin.status, pin.body.code, pin.body.field]).toEqual([404, 'not_found', 'item_id']);
    expect(pin.text).not.toContain(SECRET);
    const fix = await member.patch(`${brief()}/items/${secretItem}`, { action: 'correct', text: 'no', citations: [{ chunk_uid: world.chunkA, quote: 'Tiles' }] });
    expect([fix.status, fix.body.code, fix.body.field]).toEqual([404, 'not_found', 'item_id']);
    // a visible item corrected with a quote from a chunk kept in that Space
    const visible = (await member.get(brief())).body.brief.items[0].id;
    const cited = await member.patch(`${brief()}/items/${visible}`, { action: 'correct', text: 'no', citations: [{ chunk_uid: hiddenChunk, quote: 'supplier' }] });
    expect([cited.status, cited.body.code, cited.body.field]).toEqual([404, 'not_found', 'citations[0].chunk_uid']);
    expect((await w.get(brief())).body.current_version).toBe(before);
  });

  it('leaves the hidden item out of the changes of every version it reads', async () => {
    const state = (await member.get(brief())).body;
    expect(state.withheld_items).toBe(1);
    expect(state.brief.items.map((i: { id: string }) => i.id)).not.toContain(secretItem);
    expect(JSON.stringify(state.brief.changes)).not.toContain(SECRET);
    expect(state.brief.changes.map((c: { item_id: string }) => c.item_id)).not.toContain(secretItem);
    expect(state.brief.changes).toHaveLength(state.brief.items.length);
    // the count of material changes is of the changes it is shown, not of the hidden one too
    expect(state.brief.material_change_count).toBe(state.brief.changes.length);
    const one = await member.get(`${brief()}/history/1`);
    expect(JSON.stringify(one.body)).not.toContain(SECRET);
    expect(one.body.material_change_count).toBe(one.body.changes.length);
    const history = await member.get(`${brief()}/history`);
    expect(JSON.stringify(history.body)).not.toContain(SECRET);
    expect(history.body.items[0].material_change_count).toBe(history.body.items[0].material_changes.length);
    // a removal names the item of the version before: hidden there as well (the node stays in its Space)
    expect((await w.delete(`/node/${world.question}`)).status).toBe(200);
    expect((await w.delete(`/edge/${secretLink}`)).status).toBe(200);
    clock.advance(10);
    const v2 = (await w.post(`${brief()}/regenerate`, {})).body.version;
    expect(v2.changes.map((c: { type: string; item_id: string }) => [c.type, c.item_id === secretItem])).toEqual(
      expect.arrayContaining([['removed', true], ['removed', false]]),
    );
    const seen = (await member.get(`${brief()}/history/2`)).body;
    expect(seen.changes).toEqual(v2.changes.filter((c: { item_id: string }) => c.item_id !== secretItem));
    expect(seen.changes).toHaveLength(1);
    expect(seen.material_change_count).toBe(1);
    // the owner's key sees every change
    expect(JSON.stringify((await w.get(`${brief()}/history/1`)).body.changes)).toContain(SECRET);
  });
});
