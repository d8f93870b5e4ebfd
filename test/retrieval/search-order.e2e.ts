import { Api } from '../support/http';
import { expectError, mk, startRetrieval, until, RetrievalFixture } from './retrieval-fixture';

type Ranked = { node: { uid: string; salience: number }; score: number; legs?: { leg: string; rank: number; score: number }[] };
const uids = (xs: any[]): string[] => xs.map((x) => x.node?.uid ?? x.uid);

/**
 * REFERENCE §5.1: search-like results are sorted by score, then salience, then uid, and a page
 * is that order's [offset, offset + limit) whatever the page size. The indexes rank by score
 * alone and cut among equal scores in orders of their own (uid, insertion), so the boundary of
 * a page is where this goes wrong.
 */
describe('search pages are exact slices of the score, salience, uid order', () => {
  let f: RetrievalFixture;
  /** four nodes with equal text (equal BM25 and equal vectors), in the expected order */
  let order: string[];
  const retrieve = (body: Record<string, unknown>) => f.w.post('/retrieve', body);
  const page = async (c: Api, body: Record<string, unknown>) => {
    const r = await c.post('/retrieve', body);
    if (r.status !== 200) throw new Error(`${JSON.stringify(body)}: ${r.status} ${r.text}`);
    return r.body as Ranked[];
  };

  beforeAll(async () => {
    f = await startRetrieval();
    for (let i = 0; i < 6; i++) await mk(f.w, 'Idea', `filler note ${i}`);
    // created first, so the vector index (equal scores: insertion order) would put it first
    const low = await mk(f.w, 'Idea', 'quokka', { salience: 0.2 });
    const rest = [await mk(f.w, 'Idea', 'quokka', { salience: 0.8 }), await mk(f.w, 'Idea', 'quokka', { salience: 0.8 }), await mk(f.w, 'Idea', 'quokka', { salience: 0.8 })];
    // the smallest uid of the three drops to 0.5, so uid order is never the expected order
    const mid = [...rest].sort()[0];
    expect((await f.w.patch(`/node/${mid}`, { salience: 0.5 })).status).toBe(200);
    order = [...rest.filter((u) => u !== mid).sort(), mid, low];
    await until('the four vectors', async () => (await page(f.w, { action: 'semantic', query: 'quokka', k: 10 })).filter((r) => r.score > 0.999).length === 4);
  }, 60_000);
  afterAll(() => f.close());

  it('text and POST /search: every limit gives the first N of the full order', async () => {
    const full = await page(f.w, { action: 'text', query: 'quokka' });
    expect(uids(full)).toEqual(order);
    expect(new Set(full.map((r) => r.score)).size).toBe(1);
    for (let n = 1; n <= 4; n++) {
      expect(uids(await page(f.w, { action: 'text', query: 'quokka', limit: n }))).toEqual(order.slice(0, n));
      expect(uids((await f.w.post('/search', { query: 'quokka', limit: n })).body)).toEqual(order.slice(0, n));
    }
  });

  it('semantic, /embeddings/search-text and /embeddings/search: every k gives the first k', async () => {
    const vector = (await f.w.get(`/node/${order[3]}/embedding`)).body.vector;
    for (let k = 1; k <= 4; k++) {
      expect(uids(await page(f.w, { action: 'semantic', query: 'quokka', k }))).toEqual(order.slice(0, k));
      expect(uids((await f.w.post('/embeddings/search-text', { text: 'quokka', k })).body)).toEqual(order.slice(0, k));
      expect(uids((await f.w.post('/embeddings/search', { vector, k })).body)).toEqual(order.slice(0, k));
    }
  });

  it('hybrid ranks ties inside each leg by salience, then uid, before fusing', async () => {
    const full = await page(f.w, { action: 'hybrid', query: 'quokka', k: 4, explain: true });
    expect(uids(full)).toEqual(order);
    full.forEach((r, i) => {
      expect(r.legs!.find((l) => l.leg === 'fts')!.rank).toBe(i + 1);
      expect(r.legs!.find((l) => l.leg === 'vec')!.rank).toBe(i + 1);
    });
    for (let k = 1; k <= 4; k++) expect(uids(await page(f.w, { action: 'hybrid', query: 'quokka', k }))).toEqual(order.slice(0, k));
  });

  it('preferences with a query: equal matches come by salience, not uid', async () => {
    const a = await mk(f.w, 'Preference', 'Pref theme', { salience: 0.3, props: { key: 'theme', value: 'dark' } });
    const b = await mk(f.w, 'Preference', 'Pref theme', { salience: 0.3, props: { key: 'theme', value: 'dark' } });
    const [first, second] = [a, b].sort();
    expect((await f.w.patch(`/node/${second}`, { salience: 0.9 })).status).toBe(200);
    await until('both preference vectors', async () => (await page(f.w, { action: 'semantic', query: 'pref theme', node_types: ['Preference'] })).length === 2);
    const r = await page(f.w, { action: 'preferences', query: 'pref theme' });
    expect(uids(r)).toEqual([second, first]);
    expect(uids(await page(f.w, { action: 'preferences', query: 'pref theme', k: 1 }))).toEqual([second]);
    expect(uids(await page(f.w, { action: 'preferences', query: 'pref theme', k: 1, offset: 1 }))).toEqual([first]);
  });

  it('limit/offset: text, semantic and hybrid return items [offset, offset + limit)', async () => {
    expect(uids(await page(f.w, { action: 'text', query: 'quokka', limit: 2, offset: 1 }))).toEqual(order.slice(1, 3));
    expect(uids(await page(f.w, { action: 'text', query: 'quokka', limit: 2, offset: 3 }))).toEqual(order.slice(3));
    expect(await page(f.w, { action: 'text', query: 'quokka', offset: 4 })).toEqual([]);
    expect(uids((await f.w.post('/search', { query: 'quokka', limit: 1, offset: 2 })).body)).toEqual([order[2]]);
    expect(uids(await page(f.w, { action: 'semantic', query: 'quokka', k: 2, offset: 1 }))).toEqual(order.slice(1, 3));
    expect(uids(await page(f.w, { action: 'semantic', query: 'quokka', limit: 1, offset: 3 }))).toEqual([order[3]]);
    expect(uids(await page(f.w, { action: 'hybrid', query: 'quokka', k: 2, offset: 2 }))).toEqual(order.slice(2, 4));
    expect(uids(await page(f.w, { action: 'hybrid', query: 'quokka', k: 1, offset: 1 }))).toEqual([order[1]]);
  });

  it('limit/offset: a negative or fractional offset is 400 invalid_field', async () => {
    for (const action of ['text', 'semantic', 'hybrid', 'preferences']) {
      expectError(await retrieve({ action, query: 'quokka', offset: -1 }), 400, 'invalid_field', 'offset');
      expectError(await retrieve({ action, query: 'quokka', offset: 1.5 }), 400, 'invalid_field', 'offset');
      expectError(await retrieve({ action, query: 'quokka', offset: 'two' }), 400, 'invalid_field', 'offset');
    }
    expectError(await f.w.post('/search', { query: 'quokka', offset: -1 }), 400, 'invalid_field', 'offset');
  });

  it('many ties: every page size is a prefix of the largest, and pages concatenate to it', async () => {
    const labels = ['marmot alpine', 'marmot valley', 'marmot'];
    for (let i = 0; i < 45; i++) await mk(f.w, 'Idea', labels[i % 3], { salience: ((i * 7) % 5) / 5 });
    const query = 'marmot alpine';
    await until('the marmot vectors', async () => (await page(f.w, { action: 'semantic', query, k: 100, node_types: ['Idea'] })).filter((r) => r.score > 0).length >= 45);
    const textAll = uids(await page(f.w, { action: 'text', query, limit: 1000 }));
    const semAll = uids(await page(f.w, { action: 'semantic', query, k: 1000 }));
    expect(textAll).toHaveLength(45);
    for (const n of [1, 2, 5, 10, 16, 31, 44]) {
      expect(uids(await page(f.w, { action: 'text', query, limit: n }))).toEqual(textAll.slice(0, n));
      expect(uids((await f.w.post('/search', { query, limit: n })).body)).toEqual(textAll.slice(0, n));
      expect(uids(await page(f.w, { action: 'semantic', query, k: n }))).toEqual(semAll.slice(0, n));
    }
    // hybrid legs are max(5·k, 50) long: the same for every k ≤ 10
    const hybridTen = uids(await page(f.w, { action: 'hybrid', query, k: 10 }));
    for (const k of [1, 3, 7]) expect(uids(await page(f.w, { action: 'hybrid', query, k }))).toEqual(hybridTen.slice(0, k));
    for (const size of [7, 10]) {
      const textPages: string[] = [];
      const semPages: string[] = [];
      for (let offset = 0; offset < 60; offset += size) {
        textPages.push(...uids(await page(f.w, { action: 'text', query, limit: size, offset })));
        semPages.push(...uids(await page(f.w, { action: 'semantic', query, k: size, offset })));
      }
      expect(textPages).toEqual(textAll);
      expect(semPages).toEqual(semAll.slice(0, semPages.length));
      expect(semPages.length).toBe(Math.min(semAll.length, 60));
    }
    // and each full list is in the §5.1 order
    for (const list of [await page(f.w, { action: 'text', query, limit: 1000 }), await page(f.w, { action: 'semantic', query, k: 1000 })]) {
      for (let i = 1; i < list.length; i++) {
        const [p, q] = [list[i - 1], list[i]];
        const ok = p.score > q.score || (p.score === q.score && (p.node.salience > q.node.salience || (p.node.salience === q.node.salience && p.node.uid < q.node.uid)));
        expect(ok).toBe(true);
      }
    }
  }, 120_000);
});
