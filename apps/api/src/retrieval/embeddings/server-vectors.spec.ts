import type { RecordedEvent } from '@strata/domain/events';
import type { EmbeddingOrigin, ServerVectorIndex } from '@strata/platform/storage/server-stores';
import { EventFeed, ServerVectors } from './server-vectors';

/** The two adapters ServerVectors reads, as maps: the Qdrant points and the MongoDB embedding rows. */
function fixture() {
  const points = new Map<string, number[]>();
  const recorded = new Map<string, { vector: number[]; origin: EmbeddingOrigin }>();
  const index = {
    getVector: async (_org: string, uid: string) => points.get(uid),
    has: async (_org: string, uids: string[]) => new Set(uids.filter((u) => points.has(u))),
    count: async () => points.size,
    search: async () => [],
  } as unknown as ServerVectorIndex;
  const graph = {
    getEmbedding: async (_org: string, uid: string) => {
      const r = recorded.get(uid);
      return r ? { uid, vector: r.vector, model: 'm', dimension: r.vector.length, updated_at: 1 } : null;
    },
    embeddingOrigins: async (_org: string, uids: string[]) => new Map(uids.filter((u) => recorded.has(u)).map((u) => [u, recorded.get(u)!.origin])),
  } as unknown as ConstructorParameters<typeof ServerVectors>[1];
  return { points, recorded, index, graph };
}

describe('ServerVectors', () => {
  it('answers a node’s vector with the recorded one (Qdrant normalises cosine vectors), else the indexed one', async () => {
    const f = fixture();
    const v = new ServerVectors(f.index, f.graph);
    f.points.set('a', [0.6, 0.8]);
    f.recorded.set('a', { vector: [3, 4], origin: { source: 'explicit', text_hash: null } });
    f.points.set('b', [1, 0]);
    expect(await v.vectorOf('o', 'a')).toEqual([3, 4]);
    expect(await v.vectorOf('o', 'b')).toEqual([1, 0]);
    // a recorded vector whose node left the index (tombstoned) is not a live vector
    f.recorded.set('c', { vector: [1, 1], origin: { source: 'provider', text_hash: 'h' } });
    expect(await v.vectorOf('o', 'c')).toBeUndefined();
  });

  it('counts client vectors as pinned and provider vectors of unchanged, indexed text as up to date', async () => {
    const f = fixture();
    const v = new ServerVectors(f.index, f.graph);
    f.recorded.set('client', { vector: [1], origin: { source: 'explicit', text_hash: null } });
    f.recorded.set('same', { vector: [1], origin: { source: 'provider', text_hash: 'h1' } });
    f.recorded.set('changed', { vector: [1], origin: { source: 'provider', text_hash: 'old' } });
    f.recorded.set('unindexed', { vector: [1], origin: { source: 'provider', text_hash: 'h3' } });
    f.points.set('same', [1]);
    f.points.set('changed', [1]);
    expect([...(await v.pinned('o', ['client', 'same', 'none']))]).toEqual(['client']);
    const items = [
      { uid: 'same', hash: 'h1' },
      { uid: 'changed', hash: 'new' },
      { uid: 'unindexed', hash: 'h3' },
      { uid: 'none', hash: 'h4' },
    ];
    expect([...(await v.upToDate('o', items))]).toEqual(['same']);
  });

  it('reports the Qdrant count without a backlog, runs no backfill job, and passes the feed’s events to listeners', async () => {
    const f = fixture();
    const calls: string[] = [];
    const feed: EventFeed = { start: () => void calls.push('start'), stop: async () => void calls.push('stop') };
    const v = new ServerVectors(f.index, f.graph, feed);
    f.points.set('a', [1]);
    expect(await v.counts('o')).toEqual({ count: 1, backlog: 0 });
    expect(await v.backfillJob('o')).toBeNull();
    const seen: RecordedEvent[][] = [];
    v.afterIndexed((es) => seen.push(es));
    v.deliver([]);
    expect(seen).toEqual([[]]);
    v.onApplicationBootstrap();
    await v.onApplicationShutdown();
    expect(calls).toEqual(['start', 'stop']);
  });
});
