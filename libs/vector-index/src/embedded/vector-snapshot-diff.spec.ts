import { SavedSpace, VectorIndexSnapshot } from './vector-index-snapshot';
import { diffVectorSnapshots, float32String } from './vector-snapshot-diff';

type Entry = [uid: string, vector: number[], node_type?: string, layer?: string];

function space(org: string, entries: Entry[], dimensions = 3, metric = 'cosine'): SavedSpace {
  return {
    org,
    dimensions,
    metric,
    damaged: null,
    vectors: new Map(entries.map(([uid, v, t, l]) => [uid, { vector: Float32Array.from(v), node_type: t ?? 'Goal', layer: l ?? 'reality' }])),
  };
}

const snap = (...spaces: SavedSpace[]): VectorIndexSnapshot => ({ checkpoint: 10, spaces: new Map(spaces.map((s) => [s.org, s])) });

describe('diffVectorSnapshots', () => {
  it('finds nothing between equal indexes, and treats an empty space like no space', () => {
    const a = snap(space('o1', [['u1', [1, 0, 0]], ['u2', [0, 1, 0]]]), space('o2', []));
    const b = snap(space('o1', [['u2', [0, 1, 0]], ['u1', [1, 0, 0]]]));
    expect(diffVectorSnapshots(a, b, 10)).toEqual({ differing: 0, liveVectors: 2, first: [] });
  });

  it('names vectors missing on either side and the first component that differs', () => {
    const live = snap(space('o1', [['u1', [1, 0, 0]], ['u2', [0, 1, 0.5]], ['extra', [0, 0, 1]]]));
    const rebuilt = snap(space('o1', [['u1', [1, 0, 0]], ['u2', [0, 1, 0.25]], ['lost', [1, 1, 0]]]));
    const d = diffVectorSnapshots(live, rebuilt, 10);
    expect(d.differing).toBe(3);
    expect(d.first).toEqual([
      'vectors ("o1", "extra"): in live, not in rebuilt',
      'vectors ("o1", "lost"): in rebuilt, missing from live',
      'vectors ("o1", "u2"): component 2 is 0.5 in live, 0.25 in rebuilt',
    ]);
  });

  it('compares exactly: a difference in the last float32 bit counts', () => {
    const x = Float32Array.from([0.1])[0];
    const next = new Float32Array(new Uint32Array([new Uint32Array(Float32Array.from([x]).buffer)[0] + 1]).buffer)[0];
    const d = diffVectorSnapshots(snap(space('o', [['u', [x]]], 1)), snap(space('o', [['u', [next]]], 1)), 10);
    expect(d.differing).toBe(1);
  });

  it('reports a different space configuration, tags, and unreadable live files', () => {
    const damaged = space('o3', []);
    damaged.damaged = 'org-x.f32 holds 4 bytes, its ids need 24';
    const live = snap(space('o1', [['u', [1, 0, 0]]]), space('o2', [['u', [1, 0, 0], 'Claim']]), damaged);
    const rebuilt = snap(space('o1', [['u', [1, 0, 0, 0]]], 4), space('o2', [['u', [1, 0, 0], 'Goal']]), space('o3', [['u', [1, 0, 0]]]));
    expect(diffVectorSnapshots(live, rebuilt, 10).first).toEqual([
      'vectors (org "o1"): space is 3-d cosine in live, 4-d cosine in rebuilt',
      'vectors ("o2", "u"): node_type is "Claim" in live, "Goal" in rebuilt',
      'vectors (org "o3"): live files unreadable: org-x.f32 holds 4 bytes, its ids need 24',
    ]);
  });

  it('counts every difference but lists only the first ones', () => {
    const live = snap(space('o', []));
    const rebuilt = snap(space('o', [['a', [1, 0, 0]], ['b', [1, 0, 0]], ['c', [1, 0, 0]]]));
    const d = diffVectorSnapshots(live, rebuilt, 2);
    expect(d.differing).toBe(3);
    expect(d.first).toHaveLength(2);
  });
});

describe('float32String', () => {
  it('prints a stored float32 as the shortest decimal that reads back to it', () => {
    expect(float32String(Math.fround(0.004))).toBe('0.004');
    expect(float32String(Math.fround(0.504))).toBe('0.504');
    expect(float32String(Math.fround(1 / 3))).toBe('0.33333334');
    expect(float32String(0)).toBe('0');
    expect(float32String(Number.NaN)).toBe('NaN');
  });
});
