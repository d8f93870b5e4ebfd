import { randomUUID } from 'node:crypto';
import { exactSearch } from '../embedded/vector-math';
import type { DistanceMetric, VectorIndex, VectorItem } from '../vector-index.port';

export interface VectorIndexConformanceOptions {
  timeoutMs?: number;
  teardown?: () => Promise<void> | void;
}

/**
 * The behavioural contract of every VectorIndex adapter. Each test uses fresh organizations,
 * so server adapters need no reset between tests.
 */
export function describeVectorIndexConformance(
  name: string,
  factory: () => VectorIndex | Promise<VectorIndex>,
  options: VectorIndexConformanceOptions = {},
): void {
  describe(`VectorIndex conformance: ${name}`, () => {
    let index: VectorIndex;
    const orgs: string[] = [];
    const newOrg = () => {
      const org = `org-${randomUUID()}`;
      orgs.push(org);
      return org;
    };
    const item = (uid: string, vector: number[], node_type = 'Note', layer = 'reality'): VectorItem => ({
      uid,
      vector,
      node_type,
      layer,
    });
    let seed = 12345;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const randomVector = (d: number) => Array.from({ length: d }, () => rand() * 2 - 1);

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
      await index.configure(a, { dimensions: 3, metric: 'cosine' });
      await index.configure(b, { dimensions: 3, metric: 'cosine' });
      await index.upsert(a, [item('same', [1, 0, 0])]);
      await index.upsert(b, [item('same', [0, 1, 0]), item('only-b', [1, 0, 0])]);
      const hitsA = await index.search({ org: a, vector: [1, 0, 0], k: 10 });
      expect(hitsA.map((h) => h.uid)).toEqual(['same']);
      expect(hitsA[0].score).toBeCloseTo(1, 5);
      const hitsB = await index.search({ org: b, vector: [1, 0, 0], k: 10 });
      expect(hitsB.map((h) => h.uid)).toEqual(['only-b', 'same']);
      expect(await index.count(a)).toBe(1);
      expect(await index.count(b)).toBe(2);
    });

    it('answers an unconfigured organization with nothing', async () => {
      const org = newOrg();
      expect(await index.search({ org, vector: [1, 2, 3], k: 5 })).toEqual([]);
      expect(await index.count(org)).toBe(0);
    });

    it('scores cosine as 1 − cosine distance', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 3, metric: 'cosine' });
      await index.upsert(org, [item('x', [2, 0, 0]), item('y', [0, 3, 0]), item('xy', [1, 1, 0]), item('neg', [-1, 0, 0])]);
      const hits = await index.search({ org, vector: [5, 0, 0], k: 10 });
      expect(hits.map((h) => h.uid)).toEqual(['x', 'xy', 'y', 'neg']);
      expect(hits[0].score).toBeCloseTo(1, 5);
      expect(hits[1].score).toBeCloseTo(Math.SQRT1_2, 5);
      expect(hits[2].score).toBeCloseTo(0, 5);
      expect(hits[3].score).toBeCloseTo(-1, 5);
    });

    it('scores dot as the raw dot product', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 2, metric: 'dot' });
      await index.upsert(org, [item('a', [2, 3]), item('b', [10, -1]), item('c', [-1, -1])]);
      const hits = await index.search({ org, vector: [1, 1], k: 10 });
      expect(hits.map((h) => h.uid)).toEqual(['b', 'a', 'c']);
      expect(hits[0].score).toBeCloseTo(9, 4);
      expect(hits[1].score).toBeCloseTo(5, 4);
      expect(hits[2].score).toBeCloseTo(-2, 4);
    });

    it('scores euclidean as 1 / (1 + distance)', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 2, metric: 'euclidean' });
      await index.upsert(org, [item('same', [1, 1]), item('near', [2, 3]), item('far', [10, 10])]);
      const hits = await index.search({ org, vector: [1, 1], k: 10 });
      expect(hits.map((h) => h.uid)).toEqual(['same', 'near', 'far']);
      expect(hits[0].score).toBeCloseTo(1, 5);
      expect(hits[1].score).toBeCloseTo(1 / (1 + Math.sqrt(5)), 5);
      expect(hits[2].score).toBeCloseTo(1 / (1 + Math.sqrt(162)), 5);
    });

    it('returns every vector when k exceeds the count, best first', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 4, metric: 'cosine' });
      await index.upsert(org, [item('a', [1, 0, 0, 0]), item('b', [1, 1, 0, 0]), item('c', [0, 0, 1, 0])]);
      const hits = await index.search({ org, vector: [1, 0, 0, 0], k: 1000 });
      expect(hits.map((h) => h.uid)).toEqual(['a', 'b', 'c']);
      expect(await index.search({ org, vector: [1, 0, 0, 0], k: 1 })).toHaveLength(1);
    });

    it('drops hits below the threshold', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 2, metric: 'cosine' });
      await index.upsert(org, [item('a', [1, 0]), item('b', [1, 1]), item('c', [0, 1])]);
      const hits = await index.search({ org, vector: [1, 0], k: 10, threshold: 0.5 });
      expect(hits.map((h) => h.uid)).toEqual(['a', 'b']);
      expect(await index.search({ org, vector: [1, 0], k: 10, threshold: 1.5 })).toEqual([]);
    });

    it('filters by node_types (OR), exclude_node_types and layer, exactly', async () => {
      const org = newOrg();
      const d = 16;
      await index.configure(org, { dimensions: d, metric: 'cosine' });
      const types = ['Claim', 'Goal', 'Document', 'Chunk', 'Person'];
      const items = Array.from({ length: 400 }, (_, i) =>
        item(`n${i}`, randomVector(d), types[i % types.length], i % 3 === 0 ? 'epistemic' : 'reality'),
      );
      // a rare type: few members, far from most queries
      items.push(item('rare-1', randomVector(d), 'Rare', 'intent'), item('rare-2', randomVector(d), 'Rare', 'intent'));
      await index.upsert(org, items);
      const check = async (
        filter: { node_types?: string[]; exclude_node_types?: string[]; layer?: string },
        keep: (it: VectorItem) => boolean,
      ) => {
        for (let n = 0; n < 3; n++) {
          const query = randomVector(d);
          const pool = items.filter(keep);
          const expected = exactSearch(pool.map((it) => it.vector as number[]), query, 'cosine', 10).map(
            (h) => pool[h.index].uid,
          );
          const hits = await index.search({ org, vector: query, k: 10, ...filter });
          expect(hits.map((h) => h.uid)).toEqual(expected);
        }
      };
      await check({ node_types: ['Claim', 'Goal'] }, (it) => it.node_type === 'Claim' || it.node_type === 'Goal');
      await check({ exclude_node_types: ['Document', 'Chunk'] }, (it) => it.node_type !== 'Document' && it.node_type !== 'Chunk');
      await check({ layer: 'epistemic' }, (it) => it.layer === 'epistemic');
      await check({ node_types: ['Rare'] }, (it) => it.node_type === 'Rare');
      await check({ node_types: ['Claim'], layer: 'epistemic' }, (it) => it.node_type === 'Claim' && it.layer === 'epistemic');
      expect(await index.search({ org, vector: randomVector(d), k: 10, node_types: ['Nothing'] })).toEqual([]);
    });

    it('replaces a vector on upsert and really removes on remove', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 2, metric: 'cosine' });
      await index.upsert(org, [item('a', [1, 0]), item('b', [0, 1])]);
      await index.upsert(org, [item('a', [0, 1], 'Goal')]);
      expect(await index.count(org)).toBe(2);
      const hits = await index.search({ org, vector: [0, 1], k: 10 });
      expect(hits.map((h) => h.uid).sort()).toEqual(['a', 'b']);
      expect(hits[0].score).toBeCloseTo(1, 5);
      expect(hits[1].score).toBeCloseTo(1, 5);
      expect((await index.search({ org, vector: [0, 1], k: 10, node_types: ['Goal'] })).map((h) => h.uid)).toEqual(['a']);

      await index.remove(org, ['a', 'never-there']);
      expect(await index.count(org)).toBe(1);
      expect((await index.search({ org, vector: [1, 0], k: 10 })).map((h) => h.uid)).toEqual(['b']);
      await index.remove(org, ['b']);
      expect(await index.search({ org, vector: [1, 0], k: 10 })).toEqual([]);
      await index.upsert(org, [item('a', [1, 0])]);
      expect((await index.search({ org, vector: [1, 0], k: 10 })).map((h) => h.uid)).toEqual(['a']);
    });

    it('removes many vectors and keeps answering exactly', async () => {
      const org = newOrg();
      const d = 8;
      await index.configure(org, { dimensions: d, metric: 'euclidean' });
      const items = Array.from({ length: 300 }, (_, i) => item(`n${i}`, randomVector(d)));
      await index.upsert(org, items);
      const removed = items.filter((_, i) => i % 3 !== 0).map((it) => it.uid);
      await index.remove(org, removed);
      const left = items.filter((_, i) => i % 3 === 0);
      expect(await index.count(org)).toBe(left.length);
      const query = randomVector(d);
      const hits = await index.search({ org, vector: query, k: 1000 });
      expect(hits.map((h) => h.uid).sort()).toEqual(left.map((it) => it.uid).sort());
      const expected = exactSearch(left.map((it) => it.vector as number[]), query, 'euclidean', 5).map((h) => left[h.index].uid);
      expect((await index.search({ org, vector: query, k: 5 })).map((h) => h.uid)).toEqual(expected);
    });

    it('keeps vectors when reconfigured identically and drops them when dimensions or metric change', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 2, metric: 'cosine' });
      await index.upsert(org, [item('a', [1, 0])]);
      await index.configure(org, { dimensions: 2, metric: 'cosine' });
      expect(await index.count(org)).toBe(1);

      await index.configure(org, { dimensions: 2, metric: 'dot' });
      expect(await index.count(org)).toBe(0);
      expect(await index.search({ org, vector: [1, 0], k: 5 })).toEqual([]);
      await index.upsert(org, [item('b', [3, 0])]);
      const dotHits = await index.search({ org, vector: [2, 0], k: 5 });
      expect(dotHits.map((h) => h.uid)).toEqual(['b']);
      expect(dotHits[0].score).toBeCloseTo(6, 4);

      await index.configure(org, { dimensions: 3, metric: 'dot' });
      expect(await index.count(org)).toBe(0);
      await index.upsert(org, [item('c', [0, 0, 1])]);
      expect((await index.search({ org, vector: [0, 0, 2], k: 5 })).map((h) => h.uid)).toEqual(['c']);
    });

    it('rejects vectors of the wrong length', async () => {
      const org = newOrg();
      await index.configure(org, { dimensions: 3, metric: 'cosine' });
      await expect(index.upsert(org, [item('a', [1, 0])])).rejects.toMatchObject({ code: 'dimension_mismatch' });
      await expect(index.search({ org, vector: [1, 0], k: 5 })).rejects.toMatchObject({ code: 'dimension_mismatch' });
      expect(await index.count(org)).toBe(0);
    });

    it('removeOrg drops only that organization', async () => {
      const a = newOrg();
      const b = newOrg();
      for (const org of [a, b]) {
        await index.configure(org, { dimensions: 2, metric: 'cosine' });
        await index.upsert(org, [item('x', [1, 0]), item('y', [0, 1])]);
      }
      await index.removeOrg(a);
      expect(await index.count(a)).toBe(0);
      expect(await index.search({ org: a, vector: [1, 0], k: 5 })).toEqual([]);
      expect(await index.count(b)).toBe(2);
      await index.removeOrg(`org-${randomUUID()}`);
    });

    it.each<DistanceMetric>(['cosine', 'dot', 'euclidean'])('finds the exact top-10 on a small %s space', async (metric) => {
      const org = newOrg();
      const d = 24;
      await index.configure(org, { dimensions: d, metric });
      const items = Array.from({ length: 500 }, (_, i) => item(`n${i}`, randomVector(d)));
      await index.upsert(org, items);
      let agree = 0;
      for (let n = 0; n < 10; n++) {
        const query = randomVector(d);
        const expected = exactSearch(items.map((it) => it.vector as number[]), query, metric, 10);
        const hits = await index.search({ org, vector: query, k: 10 });
        expect(hits).toHaveLength(10);
        const want = new Set(expected.map((h) => items[h.index].uid));
        agree += hits.filter((h) => want.has(h.uid)).length;
        // whatever is returned carries its true score
        for (const h of hits) {
          const it = items.find((x) => x.uid === h.uid)!;
          expect(h.score).toBeCloseTo(exactSearch([it.vector as number[]], query, metric, 1)[0].score, 4);
        }
      }
      expect(agree / 100).toBeGreaterThanOrEqual(0.95);
    });
  });
}
