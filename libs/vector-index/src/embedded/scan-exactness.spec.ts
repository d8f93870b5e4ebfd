import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LexicalEmbedder } from '@strata/ai/embeddings/lexical-embedder';
import { EmbeddedVectorIndex } from './embedded-vector-index';
import { exactSearch } from './vector-math';

/**
 * A cosine space small enough for the 8-bit scan answers exactly what a float scan of every
 * vector answers: the same nodes in the same order with the same scores, for the depths the
 * hybrid leg asks (50 and more) as well as small k, filtered or not. The data are the cases
 * 8-bit rounding finds hardest: the built-in lexical embedder's hashed vectors of real-sized
 * texts queried by 1–6 words (sparse queries, many near ties), and dense vectors whose
 * magnitudes span six orders and whose energy sits in one component or spreads over all.
 */
describe('8-bit scan of a cosine space: exact top-k', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const open = () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-vec-scan-'));
    dirs.push(dir);
    return new EmbeddedVectorIndex(dir, { exactScanLimit: 0 });
  };
  let seed = 4242;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const TYPES = ['Concept', 'Claim', 'Note', 'Document'];
  const uid = (i: number) => `n${String(i).padStart(6, '0')}`;

  /** Loads the vectors, then checks every query at every depth against the float scan. */
  const expectExact = (d: number, vectors: Float32Array[], queries: Float32Array[]) => {
    const index = open();
    index.configureSync('o', { dimensions: d, metric: 'cosine' });
    index.upsertSync('o', vectors.map((vector, i) => ({ uid: uid(i), vector, node_type: TYPES[i % TYPES.length], layer: 'reality' })));
    // a removed vector never comes back, and the slot it frees is reused
    index.removeSync('o', [uid(3), uid(10)]);
    index.upsertSync('o', [{ uid: 'z-late', vector: vectors[10], node_type: 'Concept', layer: 'reality' }]);
    const live = vectors.map((v, i) => ({ uid: uid(i), v, type: TYPES[i % TYPES.length] })).filter((x) => x.uid !== uid(3) && x.uid !== uid(10));
    live.push({ uid: 'z-late', v: vectors[10], type: 'Concept' });
    // the index keeps norms in float32: scores agree to ~1e-8, so an order may differ only
    // between nodes scoring alike to that precision
    const same = (got: { uid: string; score: number }[], want: { uid: string; score: number }[], own: Map<string, number>) => {
      expect(got.length).toBe(want.length);
      got.forEach((h, i) => {
        expect(Math.abs(h.score - want[i].score)).toBeLessThan(1e-6);
        expect(Math.abs(h.score - own.get(h.uid)!)).toBeLessThan(1e-6);
      });
      expect(new Set(got.map((h) => h.uid)).size).toBe(got.length);
    };
    for (const q of queries) {
      const all = exactSearch(live.map((x) => x.v), q, 'cosine', live.length)
        .map((h) => ({ uid: live[h.index].uid, score: h.score, type: live[h.index].type }))
        .sort((a, b) => b.score - a.score || (a.uid < b.uid ? -1 : 1));
      const own = new Map(all.map((h) => [h.uid, h.score]));
      const truth = (k: number, keep: (t: string) => boolean) =>
        all.filter((h) => keep(h.type)).slice(0, k).map(({ uid, score }) => ({ uid, score }));
      for (const k of [1, 10, 51, 101]) {
        same(index.searchSync({ org: 'o', vector: q, k }), truth(k, () => true), own);
        same(index.searchSync({ org: 'o', vector: q, k, exclude_node_types: ['Document'] }), truth(k, (t) => t !== 'Document'), own);
      }
    }
  };

  it('lexical-embedder vectors of mail-sized texts, queried by 1–6 words', () => {
    const d = 384;
    const embedder = new LexicalEmbedder({ dimensions: d });
    const vocab = Array.from({ length: 3000 }, (_, i) => `${['ka', 'lo', 'mi', 'ren', 'tas', 'vo'][i % 6]}${i.toString(36)}${['a', 'e', 'o'][i % 3]}`);
    const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * Math.log(vocab.length))) - 1)];
    const texts = Array.from({ length: 3000 }, () => Array.from({ length: 4 + Math.floor(rand() * 90) }, word).join(' '));
    const vectors = texts.map((t) => Float32Array.from(embedder.embedOne(t)));
    const queries = Array.from({ length: 12 }, () => {
      const words = texts[Math.floor(rand() * texts.length)].split(' ');
      const len = 1 + Math.floor(rand() * 6);
      const at = Math.floor(rand() * Math.max(1, words.length - len));
      return Float32Array.from(embedder.embedOne(words.slice(at, at + len).join(' ')));
    });
    expectExact(d, vectors, queries.filter((q) => q.some((x) => x !== 0)));
  });

  it('dense vectors of mixed magnitudes, spiky and spread', () => {
    const d = 64;
    const vectors = Array.from({ length: 3000 }, (_, i) => {
      const magnitude = 10 ** (Math.floor(rand() * 7) - 4);
      const v = Float32Array.from({ length: d }, () => gauss() * magnitude);
      // one in five has most of its energy in a single component
      if (i % 5 === 0) v[Math.floor(rand() * d)] += 8 * magnitude;
      return v;
    });
    const queries = Array.from({ length: 12 }, (_, i) => Float32Array.from({ length: d }, () => gauss() * (i % 2 ? 1e-3 : 50)));
    expectExact(d, vectors, queries);
  });

  it('zero vectors score 0: above every vector pointing away from the query', () => {
    const d = 16;
    // most vectors point away from the queries, one in twenty is the zero vector
    const vectors = Array.from({ length: 600 }, (_, i) =>
      i % 20 === 7 ? new Float32Array(d) : Float32Array.from({ length: d }, (_, j) => (j === 0 ? -5 - rand() : gauss()) * (i % 50 === 1 ? -1 : 1)),
    );
    const queries = Array.from({ length: 6 }, () => Float32Array.from({ length: d }, (_, j) => (j === 0 ? 3 : gauss() * 0.1)));
    expectExact(d, vectors, queries);
  });
});
