import { randomUUID } from 'node:crypto';
import type { TextDocument, TextIndex } from '../text-index.port';
import { expectExactTieOrder, seededRandom } from './tie-order';

export interface TextIndexConformanceOptions {
  /** per-test timeout (server adapters need more) */
  timeoutMs?: number;
  /** called once after the suite, after `close()` */
  teardown?: () => Promise<void> | void;
}

/**
 * The one behavioural contract every TextIndex adapter must meet. Each test works in its own
 * fresh organization, so adapters sharing one server index (Meilisearch) need no reset
 * between tests. Scores are compared only relative to each other: BM25 and Meilisearch's
 * ranking score live on different scales.
 */
export function describeTextIndexConformance(
  name: string,
  factory: () => TextIndex | Promise<TextIndex>,
  options: TextIndexConformanceOptions = {},
): void {
  describe(`TextIndex conformance: ${name}`, () => {
    let index: TextIndex;
    const orgs: string[] = [];
    const newOrg = () => {
      const org = `org-${randomUUID()}`;
      orgs.push(org);
      return org;
    };
    const doc = (org: string, uid: string, fields: Partial<TextDocument> = {}): TextDocument => ({
      org,
      uid,
      node_type: 'Note',
      layer: 'reality',
      label: '',
      summary: '',
      body: '',
      ...fields,
    });
    /** Unrelated documents so that test terms are rare and BM25 IDF stays positive. */
    const filler = (org: string, n = 12): TextDocument[] =>
      Array.from({ length: n }, (_, i) =>
        doc(org, `filler-${i}`, {
          label: `ledger entry ${i}`,
          summary: 'quarterly budget spreadsheet review',
          body: 'numbers columns totals accounting office paperwork',
        }),
      );
    const uids = (hits: Array<{ uid: string }>) => hits.map((h) => h.uid);

    if (options.timeoutMs) jest.setTimeout(options.timeoutMs);

    beforeAll(async () => {
      index = await factory();
    });

    afterAll(async () => {
      if (index) {
        for (const org of orgs) await index.removeOrg(org).catch(() => undefined);
        await index.close();
      }
      await options.teardown?.();
    });

    it('keeps organizations isolated', async () => {
      const a = newOrg();
      const b = newOrg();
      await index.upsert([
        doc(a, 'shared-uid', { label: 'Kestrel migration' }),
        doc(b, 'shared-uid', { label: 'Kestrel migration' }),
        doc(b, 'only-b', { label: 'Kestrel nesting' }),
      ]);
      expect(uids(await index.search({ org: a, query: 'kestrel', limit: 10 }))).toEqual(['shared-uid']);
      expect(uids(await index.search({ org: b, query: 'kestrel', limit: 10 })).sort()).toEqual(['only-b', 'shared-uid']);
      expect(await index.count(a)).toBe(1);
      expect(await index.count(b)).toBe(2);

      await index.remove(a, ['shared-uid']);
      expect(await index.search({ org: a, query: 'kestrel', limit: 10 })).toEqual([]);
      expect(uids(await index.search({ org: b, query: 'kestrel', limit: 10 })).sort()).toEqual(['only-b', 'shared-uid']);
    });

    it('ranks label matches above summary matches above body matches', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'in-body', { label: 'plain title', summary: 'ordinary short summary here', body: 'some words zephyr and more words' }),
        doc(org, 'in-label', { label: 'zephyr title', summary: 'ordinary short summary here', body: 'some words about other things now' }),
        doc(org, 'in-summary', { label: 'plain title', summary: 'ordinary zephyr summary here', body: 'some words about other things now' }),
      ]);
      const hits = await index.search({ org, query: 'zephyr', limit: 10 });
      expect(uids(hits)).toEqual(['in-label', 'in-summary', 'in-body']);
      expect(hits[0].score).toBeGreaterThan(hits[1].score);
      expect(hits[1].score).toBeGreaterThan(hits[2].score);
      for (const h of hits) expect(h.score).toBeGreaterThan(0);
    });

    it('stems English words (running finds runs)', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'runs', { label: 'She runs every morning' }),
        doc(org, 'connections', { summary: 'network connections were dropped' }),
      ]);
      expect(uids(await index.search({ org, query: 'running', limit: 10 }))).toEqual(['runs']);
      expect(uids(await index.search({ org, query: 'connected', limit: 10 }))).toEqual(['connections']);
    });

    it('folds case and diacritics (cafe finds Café and back)', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'cafe-accent', { label: 'Café Society' }),
        doc(org, 'naive-plain', { body: 'a naive approach to CRÈME brulee' }),
      ]);
      expect(uids(await index.search({ org, query: 'cafe', limit: 10 }))).toEqual(['cafe-accent']);
      expect(uids(await index.search({ org, query: 'CAFÉ', limit: 10 }))).toEqual(['cafe-accent']);
      // decomposed é (e + U+0301) is the same word
      expect(uids(await index.search({ org, query: 'cafe\u0301', limit: 10 }))).toEqual(['cafe-accent']);
      expect(uids(await index.search({ org, query: 'naïve crème', limit: 10 }))).toEqual(['naive-plain']);
    });

    it('ORs query terms and ranks documents matching more terms first', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'alpha', { label: 'glacier report' }),
        doc(org, 'omega', { label: 'volcano report' }),
        doc(org, 'both', { label: 'glacier volcano report' }),
      ]);
      const hits = await index.search({ org, query: 'glacier volcano', limit: 10 });
      expect(uids(hits).sort()).toEqual(['alpha', 'both', 'omega']);
      expect(hits[0].uid).toBe('both');
      // a term that matches nothing does not turn OR into AND
      expect(uids(await index.search({ org, query: 'glacier xylophonequartz', limit: 10 }))).toContain('alpha');
    });

    it('filters by node_types (OR), exclude_node_types, layer and uids', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'goal-1', { node_type: 'Goal', layer: 'intent', label: 'harbor expansion goal' }),
        doc(org, 'claim-1', { node_type: 'Claim', layer: 'epistemic', label: 'harbor depth claim' }),
        doc(org, 'doc-1', { node_type: 'Document', layer: 'reality', label: 'harbor survey document' }),
        doc(org, 'chunk-1', { node_type: 'Chunk', layer: 'reality', label: 'harbor survey chunk' }),
      ]);
      const q = { org, query: 'harbor', limit: 10 };
      expect(uids(await index.search({ ...q, node_types: ['Goal', 'Claim'] })).sort()).toEqual(['claim-1', 'goal-1']);
      expect(uids(await index.search({ ...q, node_types: ['Goal'] }))).toEqual(['goal-1']);
      expect(uids(await index.search({ ...q, exclude_node_types: ['Document', 'Chunk'] })).sort()).toEqual([
        'claim-1',
        'goal-1',
      ]);
      expect(uids(await index.search({ ...q, layer: 'reality' })).sort()).toEqual(['chunk-1', 'doc-1']);
      expect(uids(await index.search({ ...q, uids: ['claim-1', 'chunk-1', 'nope'] })).sort()).toEqual([
        'chunk-1',
        'claim-1',
      ]);
      expect(await index.search({ ...q, uids: [] })).toEqual([]);
      expect(
        uids(await index.search({ ...q, layer: 'reality', exclude_node_types: ['Chunk'], uids: ['doc-1', 'chunk-1', 'goal-1'] })),
      ).toEqual(['doc-1']);
      expect(await index.search({ ...q, node_types: ['Goal'], layer: 'epistemic' })).toEqual([]);
    });

    it('respects limit and sorts by score descending', async () => {
      const org = newOrg();
      await index.upsert(
        Array.from({ length: 8 }, (_, i) => doc(org, `n${i}`, { label: `lantern ${'x'.repeat(i + 1)}`, body: 'lantern '.repeat(i) })),
      );
      const hits = await index.search({ org, query: 'lantern', limit: 3 });
      expect(hits).toHaveLength(3);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
      expect(await index.search({ org, query: 'lantern', limit: 0 })).toEqual([]);
    });

    it('drops hits below min_score', async () => {
      const org = newOrg();
      await index.upsert([
        ...filler(org),
        doc(org, 'strong', { label: 'meridian meridian', summary: 'meridian' }),
        doc(org, 'medium', { summary: 'meridian line' }),
        doc(org, 'weak', { body: 'somewhere far down a long body the word meridian appears once among many words' }),
      ]);
      const all = await index.search({ org, query: 'meridian', limit: 10 });
      expect(uids(all)).toEqual(['strong', 'medium', 'weak']);
      const cut = all[1].score;
      const kept = await index.search({ org, query: 'meridian', limit: 10, min_score: cut });
      expect(uids(kept)).toEqual(['strong', 'medium']);
      for (const h of kept) expect(h.score).toBeGreaterThanOrEqual(cut);
      expect(await index.search({ org, query: 'meridian', limit: 10, min_score: all[0].score * 2 + 1 })).toEqual([]);
    });

    it('replaces a document on upsert and really removes on remove', async () => {
      const org = newOrg();
      await index.upsert([...filler(org), doc(org, 'n1', { label: 'orchid greenhouse' })]);
      await index.upsert([doc(org, 'n1', { label: 'cactus greenhouse', node_type: 'Goal' })]);
      expect(await index.count(org)).toBe(13);
      expect(await index.search({ org, query: 'orchid', limit: 10 })).toEqual([]);
      expect(uids(await index.search({ org, query: 'cactus', limit: 10, node_types: ['Goal'] }))).toEqual(['n1']);

      await index.remove(org, ['n1', 'never-existed']);
      expect(await index.search({ org, query: 'cactus greenhouse', limit: 10 })).toEqual([]);
      expect(await index.count(org)).toBe(12);
      await index.remove(org, []);
      expect(await index.count(org)).toBe(12);
    });

    it('scores by the documents present alone: after updates and removals exactly as an organization written once with them', async () => {
      const edited = newOrg();
      const fresh = newOrg();
      const present = (org: string) => [
        ...filler(org),
        doc(org, 'long', { label: 'kiwi kiwi orchard harvest crates tractor', summary: 'fruit farm', body: 'kiwi vines on wires' }),
        doc(org, 'short', { label: 'kiwi' }),
        doc(org, 'edited', { label: 'orchard notes', summary: 'weekly' }),
      ];
      // the edited organization's history: superseded texts, removed documents, a removal undone
      await index.upsert([...present(edited), ...Array.from({ length: 8 }, (_, i) => doc(edited, `gone-${i}`, { label: `kiwi kiwi crate ${i}`, body: 'orchard '.repeat(i) }))]);
      for (let i = 0; i < 31; i++) await index.upsert([doc(edited, 'edited', { label: `draft ${i} ${'kiwi '.repeat(i % 4)}`, summary: 'orchard '.repeat(i), body: 'tractor' })]);
      await index.upsert([doc(edited, 'long', { label: 'kiwi', node_type: 'Goal' }), doc(edited, 'short', { label: 'kiwi', node_type: 'Goal' })]);
      await index.remove(edited, ['short', ...Array.from({ length: 8 }, (_, i) => `gone-${i}`)]);
      await index.upsert(present(edited).slice(-3));
      await index.upsert(present(fresh));

      expect(await index.count(edited)).toBe(await index.count(fresh));
      for (const query of ['kiwi', 'kiwi orchard', 'orchard notes', 'fruit tractor wires', 'weekly crates']) {
        const want = await index.search({ org: fresh, query, limit: 20 });
        const got = await index.search({ org: edited, query, limit: 20 });
        expect(uids(got)).toEqual(uids(want));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
      }
    });

    it('removeOrg drops only that organization', async () => {
      const a = newOrg();
      const b = newOrg();
      await index.upsert([doc(a, 'x', { label: 'pelican' }), doc(a, 'y', { label: 'pelican two' }), doc(b, 'x', { label: 'pelican' })]);
      await index.removeOrg(a);
      expect(await index.count(a)).toBe(0);
      expect(await index.search({ org: a, query: 'pelican', limit: 10 })).toEqual([]);
      expect(uids(await index.search({ org: b, query: 'pelican', limit: 10 }))).toEqual(['x']);
      await index.removeOrg(`org-${randomUUID()}`); // unknown org is a no-op
    });

    it('treats hostile query strings as plain words and never throws', async () => {
      const org = newOrg();
      await index.upsert([...filler(org), doc(org, 'target', { label: 'quasar signal' })]);
      const hostile = [
        '"',
        '""',
        '"quasar',
        'quasar*',
        '*',
        'NEAR(quasar signal)',
        'NEAR',
        'quasar NOT signal',
        'AND OR NOT',
        '-quasar',
        'label:quasar',
        '{label}: quasar',
        'org_tag : anything',
        'quasar^2',
        "'; DROP TABLE text_docs; --",
        '(((',
        ')',
        '\\',
        '\u0000quasar',
        '🚀 quasar 🚀',
        'q'.repeat(10_000),
        Array.from({ length: 500 }, (_, i) => `w${i}`).join(' '),
        '   ',
        '',
        '\u0301',
      ];
      for (const query of hostile) {
        const hits = await index.search({ org, query, limit: 5 });
        expect(Array.isArray(hits)).toBe(true);
        if (/quasar/i.test(query) && query.length < 100) expect(uids(hits)).toContain('target');
      }
      expect(await index.search({ org, query: '  \t ', limit: 5 })).toEqual([]);
    });

    it('orders thousands of tied hits by salience, then uid, at every page, after updates and removals', async () => {
      const org = newOrg();
      const rand = seededRandom(2323);
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
      // few distinct texts (so thousands of rows tie on score), few salience values (so many
      // also tie on salience), uids in no particular order
      const texts: Array<Partial<TextDocument>> = [
        { label: 'tern colony', summary: 'coastal survey' },
        { label: 'coastal survey', summary: 'tern colony' },
        { label: 'coastal survey', body: 'tern and gull colony' },
        { label: 'gull roost', summary: 'coastal survey' },
        { label: 'ledger entry', summary: 'quarterly budget review' },
        { label: 'ledger entry', summary: 'quarterly budget review', body: 'office paperwork' },
      ];
      const saliences = [0.1, 0.5, 0.5, 0.5, 0.9, 0.73];
      const uid = () => `n${Math.floor(rand() * 1e9).toString(36)}${Math.floor(rand() * 1e6).toString(36)}`;
      const docs = new Map<string, TextDocument>();
      for (let i = 0; i < 2400; i++) {
        const d = doc(org, uid(), { ...pick(texts), salience: pick(saliences) });
        docs.set(d.uid, d);
      }
      await index.upsert([...docs.values()]);
      const has = (word: string) => (d: TextDocument) => `${d.label} ${d.summary} ${d.body}`.split(' ').includes(word);
      const pages: Array<[number, number]> = [[0, 1], [0, 20], [1, 5], [17, 20], [250, 50], [999, 3], [1190, 25]];
      const check = async () => {
        const all = [...docs.values()];
        await expectExactTieOrder(index, { org, query: 'tern' }, all, has('tern'), pages);
        await expectExactTieOrder(index, { org, query: 'gull' }, all, has('gull'), pages);
        await expectExactTieOrder(index, { org, query: 'tern gull' }, all, (d) => has('tern')(d) || has('gull')(d), pages);
      };
      await check();

      // salience changes (decay, reinforcement), text edits that move rows between ties, removals
      const uids = [...docs.keys()];
      const moved = uids.filter(() => rand() < 0.1).map((u) => ({ uid: u, salience: pick(saliences) }));
      await index.setSalience(org, moved);
      for (const m of moved) docs.get(m.uid)!.salience = m.salience;
      const edited = uids.filter(() => rand() < 0.05).map((u) => ({ ...docs.get(u)!, ...pick(texts), salience: pick(saliences) }));
      await index.upsert(edited);
      for (const e of edited) docs.set(e.uid, e);
      const removed = uids.filter(() => rand() < 0.05);
      await index.remove(org, removed);
      for (const u of removed) docs.delete(u);
      await index.setSalience(org, [{ uid: removed[0], salience: 0.99 }]); // not indexed: ignored
      await check();
      expect(await index.count(org)).toBe(docs.size);
    });

    it('indexes diverse documents in one call and counts them', async () => {
      const org = newOrg();
      const docs = Array.from({ length: 120 }, (_, i) =>
        doc(org, `bulk-${i}`, { label: `item ${i} ${i % 2 ? 'odd' : 'even'}`, summary: 'bulk import', body: '' }),
      );
      await index.upsert(docs);
      await index.upsert(docs.slice(0, 10)); // idempotent
      expect(await index.count(org)).toBe(120);
      const odd = await index.search({ org, query: 'odd', limit: 1000 });
      expect(odd).toHaveLength(60);
      expect(await index.count(`org-${randomUUID()}`)).toBe(0);
    });
  });
}
