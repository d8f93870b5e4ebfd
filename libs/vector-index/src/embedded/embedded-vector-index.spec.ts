import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeVectorIndexConformance } from '../testing/vector-index.conformance';
import { EmbeddedVectorIndex } from './embedded-vector-index';
import { exactSearch } from './vector-math';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-vec-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describeVectorIndexConformance('EmbeddedVectorIndex', () => new EmbeddedVectorIndex(tempDir()));
// the same contract with the filtered-search paths forced through HNSW over-fetch
describeVectorIndexConformance('EmbeddedVectorIndex (no exact scan for filters)', () =>
  new EmbeddedVectorIndex(tempDir(), { exactScanLimit: 0 }),
);
// cosine spaces this small are searched by the 8-bit scan by default: the contract through the graph
describeVectorIndexConformance('EmbeddedVectorIndex (HNSW graph for every metric)', () =>
  new EmbeddedVectorIndex(tempDir(), { scanLimit: 0, exactScanLimit: 0 }),
);

describe('EmbeddedVectorIndex specifics', () => {
  let seed = 99;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const vec = (d: number) => Array.from({ length: d }, () => rand() * 2 - 1);
  /** A space searched through its HNSW graph (no 8-bit scan), and `count` 16-d vectors not yet upserted. */
  const graphSpace = (count: number) => {
    const d = 16;
    const index = new EmbeddedVectorIndex(tempDir(), { scanLimit: 0 });
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    const items = Array.from({ length: count }, (_, i) => ({ uid: `n${i}`, vector: Array.from(vec(d)), node_type: 'N', layer: 'r' }));
    return { index, items, d };
  };

  it('persists spaces across reopen and keeps the checkpoint', async () => {
    const dir = tempDir();
    const a = new EmbeddedVectorIndex(dir);
    a.configureSync('o1', { dimensions: 4, metric: 'euclidean' });
    a.configureSync('o2', { dimensions: 2, metric: 'dot' });
    a.upsertSync('o1', [
      { uid: 'x', vector: [1, 2, 3, 4], node_type: 'Claim', layer: 'epistemic' },
      { uid: 'y', vector: [0, 0, 0, 1], node_type: 'Goal', layer: 'intent' },
      { uid: 'z', vector: [9, 9, 9, 9], node_type: 'Goal', layer: 'intent' },
    ]);
    a.removeSync('o1', ['z']);
    a.upsertSync('o2', [{ uid: 'p', vector: [1, 1], node_type: 'Note', layer: 'reality' }]);
    a.flushSync(42);
    await a.close();

    const b = new EmbeddedVectorIndex(dir);
    expect(b.getCheckpoint()).toBe(42);
    expect(b.configOf('o1')).toEqual({ dimensions: 4, metric: 'euclidean' });
    expect(b.countSync('o1')).toBe(2);
    expect(b.getVector('o1', 'x')).toEqual([1, 2, 3, 4]);
    expect(b.getVector('o1', 'z')).toBeUndefined();
    const hits = b.searchSync({ org: 'o1', vector: [1, 2, 3, 4], k: 10 });
    expect(hits.map((h) => h.uid)).toEqual(['x', 'y']);
    expect(hits[0].score).toBeCloseTo(1, 6);
    expect(b.searchSync({ org: 'o1', vector: [1, 2, 3, 4], k: 10, node_types: ['Goal'] }).map((h) => h.uid)).toEqual(['y']);
    expect(b.searchSync({ org: 'o2', vector: [2, 3], k: 1 })[0].score).toBeCloseTo(5, 6);
    // the free slot left by z is reused
    b.upsertSync('o1', [{ uid: 'w', vector: [4, 3, 2, 1], node_type: 'Goal', layer: 'intent' }]);
    expect(b.countSync('o1')).toBe(3);
    await b.close();
  });

  it('forgets a removed organization on disk after flush', async () => {
    const dir = tempDir();
    const a = new EmbeddedVectorIndex(dir);
    a.configureSync('gone', { dimensions: 2, metric: 'cosine' });
    a.upsertSync('gone', [{ uid: 'x', vector: [1, 0], node_type: 'Note', layer: 'reality' }]);
    a.flushSync();
    expect(readdirSync(dir).filter((f) => f.startsWith('org-'))).toHaveLength(3);
    a.removeOrgSync('gone');
    a.flushSync();
    expect(readdirSync(dir).filter((f) => f.startsWith('org-'))).toHaveLength(0);
    await a.close();
    expect(new EmbeddedVectorIndex(dir).countSync('gone')).toBe(0);
  });

  it('clears every space for a rebuild, on disk too after flush', async () => {
    const dir = tempDir();
    const a = new EmbeddedVectorIndex(dir);
    for (const org of ['o1', 'o2']) {
      a.configureSync(org, { dimensions: 2, metric: 'cosine' });
      a.upsertSync(org, [{ uid: 'x', vector: [1, 0], node_type: 'Note', layer: 'reality' }]);
    }
    a.flushSync(7);
    a.clearSync();
    expect(a.countSync('o1') + a.countSync('o2')).toBe(0);
    expect(a.configOf('o1')).toBeUndefined();
    a.flushSync(0);
    await a.close();
    const b = new EmbeddedVectorIndex(dir);
    expect(b.configOf('o1')).toBeUndefined();
    expect(b.getCheckpoint()).toBe(0);
  });

  it('rebuilds the graph from stored vectors when the index file is missing or damaged', async () => {
    const dir = tempDir();
    const a = new EmbeddedVectorIndex(dir, { scanLimit: 0 });
    a.configureSync('o', { dimensions: 8, metric: 'cosine' });
    const items = Array.from({ length: 200 }, (_, i) => ({ uid: `n${i}`, vector: vec(8), node_type: 'Note', layer: 'reality' }));
    a.upsertSync('o', items);
    await a.close();
    const indexFile = readdirSync(dir).find((f) => f.endsWith('.usearch'))!;
    writeFileSync(join(dir, indexFile), 'garbage');
    const b = new EmbeddedVectorIndex(dir, { scanLimit: 0 });
    expect(b.countSync('o')).toBe(200);
    const query = vec(8);
    const expected = exactSearch(items.map((it) => it.vector), query, 'cosine', 5).map((h) => items[h.index].uid);
    expect(b.searchSync({ org: 'o', vector: query, k: 5 }).map((h) => h.uid)).toEqual(expected);
    rmSync(join(dir, indexFile));
    await b.close(); // flush writes a fresh graph
    expect(existsSync(join(dir, indexFile))).toBe(true);
  });

  it.each([
    ['the 8-bit scan', {}],
    ['the graph', { scanLimit: 0 }],
  ])('stays exact under heavy churn (updates and removals) through %s', (_, options) => {
    const index = new EmbeddedVectorIndex(tempDir(), options);
    const d = 16;
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    const live = new Map<string, number[]>();
    for (let round = 0; round < 5; round++) {
      const batch = Array.from({ length: 300 }, (_, i) => ({ uid: `n${(i * 7 + round * 13) % 500}`, vector: vec(d), node_type: 'Note', layer: 'reality' }));
      index.upsertSync('o', batch);
      for (const it of batch) live.set(it.uid, it.vector);
      const gone = [...live.keys()].filter((_, i) => i % 4 === round % 4);
      index.removeSync('o', gone);
      gone.forEach((uid) => live.delete(uid));
    }
    expect(index.countSync('o')).toBe(live.size);
    const uids = [...live.keys()];
    let agree = 0;
    for (let n = 0; n < 20; n++) {
      const q = vec(d);
      const expected = new Set(exactSearch(uids.map((u) => live.get(u)!), q, 'cosine', 10).map((h) => uids[h.index]));
      const hits = index.searchSync({ org: 'o', vector: q, k: 10 });
      expect(hits).toHaveLength(10);
      agree += hits.filter((h) => expected.has(h.uid)).length;
    }
    expect(agree / 200).toBeGreaterThanOrEqual(0.95);
    expect(index.searchSync({ org: 'o', vector: vec(d), k: 10_000 })).toHaveLength(live.size);
    index.compactSync('o');
    expect(index.countSync('o')).toBe(live.size);
    const q = vec(d);
    const expected = exactSearch(uids.map((u) => live.get(u)!), q, 'cosine', 5).map((h) => uids[h.index]);
    expect(index.searchSync({ org: 'o', vector: q, k: 5 }).map((h) => h.uid)).toEqual(expected);
  });

  it('rejects bad configurations and non-finite values, and upserts before configure', () => {
    const index = new EmbeddedVectorIndex(tempDir());
    expect(() => index.configureSync('o', { dimensions: 0, metric: 'cosine' })).toThrow(/dimensions/);
    expect(() => index.configureSync('o', { dimensions: 9000, metric: 'cosine' })).toThrow(/dimensions/);
    expect(() => index.configureSync('o', { dimensions: 2, metric: 'manhattan' as never })).toThrow(/metric/);
    expect(() => index.upsertSync('o', [{ uid: 'a', vector: [1, 2], node_type: 'N', layer: 'r' }])).toThrow(
      expect.objectContaining({ code: 'embedding_not_configured' }),
    );
    index.configureSync('o', { dimensions: 2, metric: 'cosine' });
    expect(() => index.upsertSync('o', [{ uid: 'a', vector: [1, NaN], node_type: 'N', layer: 'r' }])).toThrow(/finite/);
    expect(index.countSync('o')).toBe(0);
  });

  it('accepts Float32Array vectors and orders equal scores by uid', () => {
    const index = new EmbeddedVectorIndex(tempDir());
    index.configureSync('o', { dimensions: 2, metric: 'cosine' });
    index.upsertSync('o', [
      { uid: 'b', vector: new Float32Array([1, 0]), node_type: 'N', layer: 'r' },
      { uid: 'a', vector: new Float32Array([2, 0]), node_type: 'N', layer: 'r' },
    ]);
    expect(index.searchSync({ org: 'o', vector: new Float32Array([1, 0]), k: 2 }).map((h) => h.uid)).toEqual(['a', 'b']);
  });

  it('finds vectors the graph has not indexed yet, and indexes them in the background', async () => {
    const { index, items, d } = graphSpace(300);
    index.upsertSync('o', items);
    expect(index.pendingCount()).toBe(300);
    const q = vec(d);
    const expected = exactSearch(items.map((it) => Float32Array.from(it.vector)), q, 'cosine', 10).map((h) => items[h.index].uid);
    expect(index.searchSync({ org: 'o', vector: q, k: 10 }).map((h) => h.uid)).toEqual(expected);
    index.removeSync('o', ['n0']);
    expect(index.countSync('o')).toBe(299);
    await index.whenIndexed(); // the background indexing, not the caller, did it
    expect(index.pendingCount()).toBe(0);
    const rest = items.slice(1);
    const after = exactSearch(rest.map((it) => Float32Array.from(it.vector)), q, 'cosine', 10).map((h) => rest[h.index].uid);
    expect(index.searchSync({ org: 'o', vector: q, k: 10 }).map((h) => h.uid)).toEqual(after);
    await index.close();
  });

  it('leaves a node in the graph when an upsert brings the vector, type and layer it holds, and re-indexes it when any of them changes', async () => {
    const { index, items } = graphSpace(50);
    index.upsertSync('o', items);
    await index.whenIndexed();
    expect(index.pendingCount()).toBe(0);
    // the same vectors again (as numbers that round to the stored 32-bit values): nothing to re-index
    index.upsertSync('o', items.map((it) => ({ ...it, vector: [...it.vector] })));
    index.upsertSync('o', [{ ...items[1], vector: Float32Array.from(items[1].vector) }]);
    expect(index.pendingCount()).toBe(0);
    index.upsertSync('o', [{ ...items[2], vector: items[2].vector.map((x, i) => (i === 0 ? x + 0.25 : x)) }]);
    index.upsertSync('o', [{ ...items[3], node_type: 'M' }]);
    index.upsertSync('o', [{ ...items[4], layer: 'e' }]);
    expect(index.pendingCount()).toBe(3);
    await index.whenIndexed();
    expect(index.searchSync({ org: 'o', vector: items[3].vector, k: 1, node_types: ['M'] }).map((h) => h.uid)).toEqual(['n3']);
    expect(index.countSync('o')).toBe(50);
    await index.close();
  });

  it('persists vectors still waiting for the graph and indexes them after reopening', async () => {
    const dir = tempDir();
    const d = 8;
    const index = new EmbeddedVectorIndex(dir, { scanLimit: 0 });
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    const items = Array.from({ length: 50 }, (_, i) => ({ uid: `p${i}`, vector: vec(d), node_type: 'N', layer: 'r' }));
    index.upsertSync('o', items);
    expect(index.pendingCount()).toBeGreaterThan(0);
    await index.close();
    const reopened = new EmbeddedVectorIndex(dir, { scanLimit: 0 });
    expect(reopened.countSync('o')).toBe(50);
    const q = vec(d);
    const expected = exactSearch(items.map((it) => Float32Array.from(it.vector)), q, 'cosine', 5).map((h) => items[h.index].uid);
    expect(reopened.searchSync({ org: 'o', vector: q, k: 5 }).map((h) => h.uid)).toEqual(expected);
    await reopened.whenIndexed();
    expect(reopened.pendingCount()).toBe(0);
    expect(reopened.searchSync({ org: 'o', vector: q, k: 5 }).map((h) => h.uid)).toEqual(expected);
    await reopened.close();
  });

  it('finds the exact top-k of small-magnitude cosine vectors through the 8-bit scan, filtered or not', () => {
    const index = new EmbeddedVectorIndex(tempDir(), { exactScanLimit: 0 });
    const d = 32;
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    // components of ±0.001: a fixed ×127 scale would round every one of them to 0
    const items = Array.from({ length: 2000 }, (_, i) => ({ uid: `n${i}`, vector: vec(d).map((x) => x / 1000), node_type: i % 4 ? 'Note' : 'Goal', layer: 'r' }));
    index.upsertSync('o', items);
    index.removeSync('o', ['n0', 'n4']);
    const live = items.filter((it) => it.uid !== 'n0' && it.uid !== 'n4');
    const goals = live.filter((it) => it.node_type === 'Goal');
    for (let n = 0; n < 10; n++) {
      const q = vec(d);
      const expected = exactSearch(live.map((it) => it.vector), q, 'cosine', 10).map((h) => live[h.index].uid);
      expect(index.searchSync({ org: 'o', vector: q, k: 10 }).map((h) => h.uid)).toEqual(expected);
      const expectedGoals = exactSearch(goals.map((it) => it.vector), q, 'cosine', 10).map((h) => goals[h.index].uid);
      expect(index.searchSync({ org: 'o', vector: q, k: 10, node_types: ['Goal'] }).map((h) => h.uid)).toEqual(expectedGoals);
    }
  });

  it('scans vectors reloaded from disk like fresh ones', async () => {
    const dir = tempDir();
    const a = new EmbeddedVectorIndex(dir);
    a.configureSync('o', { dimensions: 8, metric: 'cosine' });
    const items = Array.from({ length: 300 }, (_, i) => ({ uid: `n${i}`, vector: vec(8), node_type: 'N', layer: 'r' }));
    a.upsertSync('o', items);
    await a.close();
    const b = new EmbeddedVectorIndex(dir);
    const q = vec(8);
    const expected = exactSearch(items.map((it) => it.vector), q, 'cosine', 5).map((h) => items[h.index].uid);
    expect(b.searchSync({ org: 'o', vector: q, k: 5 }).map((h) => h.uid)).toEqual(expected);
    await b.close();
  });

  it('builds no graph while the scan serves a space, and builds it once the space outgrows the scan', async () => {
    const d = 8;
    const index = new EmbeddedVectorIndex(tempDir(), { scanLimit: 100 * d });
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    const items = Array.from({ length: 400 }, (_, i) => ({ uid: `n${i}`, vector: vec(d), node_type: 'N', layer: 'r' }));
    index.upsertSync('o', items.slice(0, 100));
    expect(index.pendingCount()).toBe(0);
    index.upsertSync('o', items.slice(100));
    expect(index.pendingCount()).toBe(400);
    const q = vec(d);
    const expected = exactSearch(items.map((it) => it.vector), q, 'cosine', 10).map((h) => items[h.index].uid);
    expect(index.searchSync({ org: 'o', vector: q, k: 10 }).map((h) => h.uid)).toEqual(expected);
    await index.whenIndexed(); // the background indexing, not the caller, did it
    expect(index.pendingCount()).toBe(0);
    expect(index.searchSync({ org: 'o', vector: q, k: 10 }).map((h) => h.uid)).toEqual(expected);
    await index.close();
  });
});
