import { expectError, link, mk, newOrg, startRetrieval, RetrievalFixture } from './retrieval-fixture';

describe('aliases, resolution, merge and /reality/entity', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval();
  });
  afterAll(() => f.close());

  const entity = (body: Record<string, unknown>) => f.w.post('/reality/entity', body);

  describe('POST /alias, GET /aliases/{uid}', () => {
    it('creates (201), replaces the score of an existing pair (200) and lists by score', async () => {
      const n = await mk(f.w, 'Organization', 'International Business Machines');
      const a = await f.w.post('/alias', { text: 'IBM', canonical_uid: n });
      expect(a.status).toBe(201);
      expect(a.body).toEqual({ text: 'IBM', canonical_uid: n, score: 1, created_at: expect.any(Number) });
      expect((await f.w.post('/alias', { text: 'Big Blue', canonical_uid: n, alias_score: 0.6 })).status).toBe(201);
      const again = await f.w.post('/alias', { text: 'ibm', canonical_uid: n, match_score: 0.9 });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ canonical_uid: n, score: 0.9, created_at: a.body.created_at });
      const list = await f.w.get(`/aliases/${n}`);
      expect(list.body).toEqual([
        { text: 'IBM', score: 0.9, created_at: a.body.created_at },
        { text: 'Big Blue', score: 0.6, created_at: expect.any(Number) },
      ]);
      // aliases are not versioned, and the node stays writable (its stream revision moved)
      const patched = await f.w.patch(`/node/${n}`, { summary: 'computing company', expected_version: 1 });
      expect(patched.status).toBe(200);
      expect(patched.body.version).toBe(2);
    });

    it('rejects bad input and unknown or tombstoned nodes, writing nothing', async () => {
      const n = await mk(f.w, 'Person', 'Grace Hopper');
      expectError(await f.w.post('/alias', { canonical_uid: n }), 400, 'missing_field', 'text');
      expectError(await f.w.post('/alias', { text: '!!!', canonical_uid: n }), 400, 'invalid_field', 'text');
      expectError(await f.w.post('/alias', { text: 'x'.repeat(501), canonical_uid: n }), 400, 'invalid_field', 'text');
      expectError(await f.w.post('/alias', { text: 'Amazing Grace', canonical_uid: n, score: 1.5 }), 400, 'invalid_field', 'score');
      expectError(await f.w.post('/alias', { text: 'Amazing Grace', canonical_uid: 'bad uid' }), 400, 'invalid_uid', 'canonical_uid');
      expectError(await f.w.post('/alias', { text: 'Amazing Grace', canonical_uid: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found', 'canonical_uid');
      const dead = await mk(f.w, 'Person', 'Nobody');
      await f.w.delete(`/node/${dead}`);
      expectError(await f.w.post('/alias', { text: 'Ghost', canonical_uid: dead }), 404, 'not_found', 'canonical_uid');
      expect((await f.w.get(`/aliases/${n}`)).body).toEqual([]);
      expectError(await f.w.get('/aliases/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
      expectError(await f.ro.post('/alias', { text: 'Amazing Grace', canonical_uid: n }), 403, 'read_only_credential');
    });
  });

  describe('GET /resolve', () => {
    it('answers an exact normalised match and fuzzy matches scored 0..1, never repeating the exact one', async () => {
      const tesla = await mk(f.w, 'Person', 'Nikola Tesla');
      const teslaInc = await mk(f.w, 'Organization', 'Tesla Motors');
      await f.w.post('/alias', { text: 'Tesla Inc.', canonical_uid: teslaInc });
      const r = await f.w.get('/resolve?text=' + encodeURIComponent('  NIKOLA   tesla!! '));
      expect(r.status).toBe(200);
      expect(r.body.exact).toEqual({ uid: tesla, label: 'Nikola Tesla', node_type: 'Person', score: 1 });
      expect(r.body.fuzzy.map((m: any) => m.uid)).not.toContain(tesla);
      const fz = await f.w.get('/resolve?text=Tesla%20Motor&min_score=0.3');
      expect(fz.body.exact).toBeNull();
      expect(fz.body.fuzzy[0]).toMatchObject({ uid: teslaInc, label: 'Tesla Motors', node_type: 'Organization', matched_text: 'Tesla Motors' });
      expect(fz.body.fuzzy[0].score).toBeGreaterThan(0.5);
      expect(fz.body.fuzzy[0].score).toBeLessThan(1);
      for (const m of fz.body.fuzzy) expect(m.score).toBeGreaterThanOrEqual(0.3);
      const byAlias = await f.w.get('/resolve?text=tesla%20inc');
      expect(byAlias.body.exact).toMatchObject({ uid: teslaInc, score: 1 });
      const people = await f.w.get('/resolve?text=Tesla&node_types=Person&min_score=0.1');
      expect(people.body.fuzzy.every((m: any) => m.node_type === 'Person')).toBe(true);
      expect((await f.w.get('/resolve?text=Tesla&min_score=0&limit=1')).body.fuzzy).toHaveLength(1);
    });

    it('is accent-insensitive and ignores tombstoned nodes', async () => {
      const n = await mk(f.w, 'Place', 'Zürich');
      expect((await f.w.get('/resolve?text=zurich')).body.fuzzy.map((m: any) => m.uid)).toContain(n);
      expect((await f.w.get('/resolve?text=Z%C3%BCrich')).body.exact?.uid).toBe(n);
      await f.w.delete(`/node/${n}`);
      const after = await f.w.get('/resolve?text=Z%C3%BCrich');
      expect(after.body.exact).toBeNull();
      expect(after.body.fuzzy.map((m: any) => m.uid)).not.toContain(n);
    });

    it('rejects a missing text and bad numbers', async () => {
      expectError(await f.w.get('/resolve'), 400, 'missing_field', 'text');
      expectError(await f.w.get('/resolve?text=a&limit=0'), 400, 'invalid_field', 'limit');
      expectError(await f.w.get('/resolve?text=a&min_score=2'), 400, 'invalid_field', 'min_score');
    });
  });

  describe('POST /entities/merge', () => {
    it('retargets edges, drops self-loops and duplicates, moves aliases, keeps the label as an alias, all at once', async () => {
      const keep = await mk(f.w, 'Person', 'Alan Turing');
      const dup = await mk(f.w, 'Person', 'A. M. Turing');
      const paper = await mk(f.w, 'Claim', 'On computable numbers');
      const bletchley = await mk(f.w, 'Place', 'Bletchley Park');
      const e1 = await link(f.w, paper, dup, 'AuthoredBy');
      const e2 = await link(f.w, dup, bletchley, 'BasedIn');
      await link(f.w, keep, bletchley, 'BasedIn'); // e3 would duplicate this
      const e3 = await link(f.w, dup, bletchley, 'BasedIn');
      const loop = await link(f.w, keep, dup, 'RelatedTo');
      const pd = await link(f.w, dup, keep, 'PossibleDuplicate', { props: { similarity: 0.8, status: 'pending' } });
      await f.w.post('/alias', { text: 'Turing', canonical_uid: dup, score: 0.7 });
      await f.w.post('/alias', { text: 'turing', canonical_uid: keep, score: 0.4 });
      await f.w.post('/alias', { text: 'AMT', canonical_uid: dup, score: 0.5 });

      const r = await f.w.post('/entities/merge', { keep_uid: keep, merge_uid: dup, reason: 'same person' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ keep_uid: keep, merge_uid: dup, edges_retargeted: 1, edges_dropped: 4, aliases_merged: 2, alias_added: true, keep_version: 1 });
      // one of e2/e3 moved, the other (now a duplicate) was tombstoned; e1 moved
      expect((await f.w.get(`/edge/between?from_uid=${paper}&to_uid=${keep}`)).body.map((e: any) => e.uid)).toEqual([e1]);
      const hist = await f.w.get(`/edge/${e1}/history`);
      expect(hist.body[1]).toMatchObject({ change_type: 'update', change_reason: 'merge' });
      const moved = (await f.w.get(`/edge/between?from_uid=${keep}&to_uid=${bletchley}`)).body;
      expect(moved).toHaveLength(1);
      for (const gone of [e2, e3, loop]) {
        const h = (await f.w.get(`/edge/${gone}/history`)).body;
        expect(h[h.length - 1].change_type).toBe('tombstone');
      }
      const pdHist = (await f.w.get(`/edge/${pd}/history`)).body;
      expect(pdHist[pdHist.length - 1].snapshot).toMatchObject({ props: { status: 'merged' }, tombstone_at: expect.any(Number) });
      const merged = (await f.w.get(`/node/${dup}`)).body;
      expect(merged).toMatchObject({ tombstone_reason: `merged into ${keep}`, version: 2 });
      const aliases = (await f.w.get(`/aliases/${keep}`)).body;
      expect(aliases).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ text: 'turing', score: 0.7 }),
          expect.objectContaining({ text: 'AMT', score: 0.5 }),
          expect.objectContaining({ text: 'A. M. Turing', score: 0.8 }),
        ]),
      );
      expect((await f.w.get(`/aliases/${dup}`)).body).toEqual([]);
      expect((await f.w.get(`/node/${keep}`)).body.version).toBe(1);
    });

    it('merges an Entity into a specific type, refuses other mixes, itself and tombstoned nodes', async () => {
      const person = await mk(f.w, 'Person', 'Marie Curie');
      const ent = await mk(f.w, 'Entity', 'M. Curie', { props: { entity_type: 'other', canonical_name: 'M. Curie' } });
      const claim = await mk(f.w, 'Claim', 'Radium glows');
      expectError(await f.w.post('/entities/merge', { keep_uid: person, merge_uid: person }), 400, 'invalid_field', 'merge_uid');
      expectError(await f.w.post('/entities/merge', { keep_uid: person, merge_uid: claim }), 400, 'wrong_node_type', 'merge_uid');
      expectError(await f.w.post('/entities/merge', { keep_uid: ent, merge_uid: person }), 400, 'wrong_node_type', 'merge_uid');
      expectError(await f.w.post('/entities/merge', { keep_uid: person }), 400, 'missing_field', 'merge_uid');
      const gone = await mk(f.w, 'Person', 'Pierre Curie');
      await f.w.delete(`/node/${gone}`);
      expectError(await f.w.post('/entities/merge', { keep_uid: gone, merge_uid: person }), 404, 'not_found', 'keep_uid');
      expect((await f.w.get(`/node/${person}`)).body.tombstone_at).toBeNull();
      const ok = await f.w.post('/entities/merge', { keep_uid: person, merge_uid: ent });
      expect(ok.status).toBe(200);
      expectError(await f.w.post('/entities/merge', { keep_uid: person, merge_uid: ent }), 404, 'not_found', 'merge_uid');
      expectError(await f.ro.post('/entities/merge', { keep_uid: person, merge_uid: claim }), 403, 'read_only_credential');
    });
  });

  describe('/reality/entity', () => {
    it('create: types from entity_type, name defaults, then find by alias or by label over the whole type', async () => {
      const p = await entity({ action: 'create', label: 'Ada Lovelace', props: { entity_type: 'Person', description: 'mathematician' } });
      expect(p.status).toBe(201);
      expect(p.body).toMatchObject({ node_type: 'Person', created: true, matched_by: null, props: { full_name: 'Ada Lovelace', description: 'mathematician' } });
      expect(p.body.props.entity_type).toBeUndefined();
      const again = await entity({ action: 'create', label: 'ADA lovelace!', props: { entity_type: 'person', description: 'changed' } });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ uid: p.body.uid, created: false, matched_by: 'alias', version: 1, props: { description: 'mathematician' } });

      const e = await entity({ action: 'create', label: 'Acme Widget', props: { entity_type: 'product' } });
      expect(e.body).toMatchObject({ node_type: 'Entity', props: { entity_type: 'product', canonical_name: 'Acme Widget' } });
      const other = await entity({ action: 'create', label: 'Thing' });
      expect(other.body.props.entity_type).toBe('other');
      const concept = await entity({ action: 'create', label: 'Entropy', props: { entity_type: 'concept' } });
      expect(concept.body).toMatchObject({ node_type: 'Concept', layer: 'reality', props: { name: 'Entropy' } });

      // a node made elsewhere (no alias) is found by its normalised label, and gets the alias
      const plain = await mk(f.w, 'Organization', 'Royal Society');
      const found = await entity({ action: 'create', label: 'royal  society', props: { entity_type: 'organization' } });
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ uid: plain, matched_by: 'label', created: false });
      expect((await f.w.get(`/aliases/${plain}`)).body).toEqual([{ text: 'royal  society', score: 1, created_at: expect.any(Number) }]);
      // another type with the same label is a different entity
      const place = await entity({ action: 'create', label: 'Royal Society', props: { entity_type: 'place' } });
      expect(place.status).toBe(201);
    });

    it('create: the label match covers the whole type, beyond any sample', async () => {
      const batch = await f.w.post('/batch', { nodes: Array.from({ length: 600 }, (_, i) => ({ label: `Filler person ${i}`, node_type: 'Person' })) });
      expect(batch.status).toBe(201);
      const target = batch.body.node_uids[3];
      const r = await entity({ action: 'create', label: 'filler person 3', props: { entity_type: 'person' } });
      expect(r.body).toMatchObject({ uid: target, matched_by: 'label' });
    }, 30_000);

    it('alias, resolve, fuzzy_resolve, merge and relate', async () => {
      const a = (await entity({ action: 'create', label: 'Charles Babbage', props: { entity_type: 'person' } })).body.uid;
      const al = await entity({ action: 'alias', text: 'Father of the computer', canonical_uid: a, alias_score: 0.9 });
      expect(al.status).toBe(200);
      expect(al.body).toEqual({ status: 'ok', text: 'Father of the computer', canonical_uid: a, alias_score: 0.9 });
      const res = await entity({ action: 'resolve', text: 'father of the COMPUTER' });
      expect(res.body).toEqual({ uid: a, label: 'Charles Babbage', node_type: 'Person', score: 0.9 });
      expect((await entity({ action: 'resolve', text: 'nobody at all' })).body).toEqual({ uid: null });
      expect((await entity({ action: 'resolve', text: 'Charles Babbage', node_types: ['Organization'] })).body).toEqual({ uid: null });
      const fz = await entity({ action: 'fuzzy_resolve', text: 'Charles Babage', limit: 3 });
      expect(fz.status).toBe(200);
      expect(fz.body.matches[0]).toMatchObject({ uid: a, label: 'Charles Babbage', matched_text: 'Charles Babbage' });

      const engine = (await entity({ action: 'create', label: 'Analytical Engine', props: { entity_type: 'concept' } })).body.uid;
      const rel = await entity({ action: 'relate', source_uid: a, target_uid: engine, edge_type: 'expert_in', weight: 0.7, props: { level: 'pioneer' } });
      expect(rel.status).toBe(201);
      expect(rel.body).toEqual({ uid: expect.any(String), edge_type: 'ExpertIn', source_uid: a, target_uid: engine, layer: 'reality', version: 1 });
      expectError(await entity({ action: 'relate', source_uid: a, target_uid: engine, edge_type: 'ExpertIn', props: { bogus: 1 } }), 422, 'unknown_props_fields');

      const dup = await mk(f.w, 'Person', 'C. Babbage');
      const m = await entity({ action: 'merge', keep_uid: a, merge_uid: dup });
      expect(m.status).toBe(200);
      expect(m.body).toMatchObject({ keep_uid: a, merge_uid: dup, alias_added: true });
    });

    it('fuzzy_resolve and GET /resolve keep candidates scoring 0 when min_score is 0 (only scores below it drop)', async () => {
      const nation = await mk(f.w, 'Nation', 'Qqq Www');
      const fz = await entity({ action: 'fuzzy_resolve', text: 'Ada Lovelace', min_score: 0, node_types: ['Nation'] });
      expect(fz.status).toBe(200);
      expect(fz.body.matches).toContainEqual({ uid: nation, label: 'Qqq Www', node_type: 'Nation', score: 0, matched_text: 'Qqq Www' });
      const rs = await f.w.get('/resolve?text=Ada%20Lovelace&min_score=0&node_types=Nation');
      expect(rs.body.fuzzy).toContainEqual({ uid: nation, label: 'Qqq Www', node_type: 'Nation', score: 0, matched_text: 'Qqq Www' });
      // the default min_score (0.3) still drops it
      expect((await entity({ action: 'fuzzy_resolve', text: 'Ada Lovelace', node_types: ['Nation'] })).body.matches).toEqual([]);
    });

    it('unknown actions, bad input and read-only credentials', async () => {
      const u = await entity({ action: 'explode' });
      expectError(u, 400, 'unknown_action');
      expect(u.body.valid_actions).toEqual(['create', 'alias', 'resolve', 'fuzzy_resolve', 'merge', 'relate']);
      expectError(await entity({}), 400, 'unknown_action');
      expectError(await entity({ action: 'create' }), 400, 'missing_field', 'label');
      expectError(await entity({ action: 'create', label: 'X', props: { entity_type: 5 } }), 400, 'invalid_props');
      expectError(await entity({ action: 'create', label: 'X', props: { entity_type: 'person', bogus: 1 } }), 422, 'unknown_props_fields');
      expectError(await entity({ action: 'create', label: 'X', confidence: 3 }), 400, 'invalid_field', 'confidence');
      expectError(await entity({ action: 'alias', text: 'x' }), 400, 'missing_field', 'canonical_uid');
      expectError(await entity({ action: 'resolve' }), 400, 'missing_field', 'text');
      expectError(await entity({ action: 'fuzzy_resolve', text: 'x', min_score: -1 }), 400, 'invalid_field', 'min_score');
      expectError(await entity({ action: 'relate', source_uid: 'x' }), 400, 'missing_field', 'target_uid');
      expectError(await f.ro.post('/reality/entity', { action: 'create', label: 'Y' }), 403, 'read_only_credential');
      expect((await f.ro.post('/reality/entity', { action: 'resolve', text: 'Charles Babbage' })).status).toBe(200);
      expect((await f.w.post('/search', { query: 'X' })).body.filter((n: any) => n.label === 'X')).toEqual([]);
    });

    it('keeps organizations apart', async () => {
      const mine = (await entity({ action: 'create', label: 'Secret Project Lead', props: { entity_type: 'person' } })).body.uid;
      const other = await newOrg(f.app);
      const theirs = await other.w.post('/reality/entity', { action: 'create', label: 'Secret Project Lead', props: { entity_type: 'person' } });
      expect(theirs.status).toBe(201);
      expect(theirs.body.uid).not.toBe(mine);
      expect((await other.w.get('/resolve?text=secret%20project%20lead')).body.exact.uid).toBe(theirs.body.uid);
      expectError(await other.w.post('/alias', { text: 'mine', canonical_uid: mine }), 404, 'not_found');
      expectError(await other.w.get(`/aliases/${mine}`), 404, 'not_found');
    });
  });
});
