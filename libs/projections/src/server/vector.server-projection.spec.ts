import { NodeRecord } from '@strata/domain/records';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import type { VectorHit, VectorIndex, VectorItem, VectorQuery, VectorSpaceConfig } from '@strata/vector-index/vector-index.port';
import { noteRecord, recordedEvent } from '../testing/projection-event-fixtures';
import { VectorProjectionSource, VectorServerProjection } from './vector.server-projection';
import { VectorSpaceOf, planVectorWrites } from '../vector-writes';

const ev = recordedEvent;
const node = noteRecord;
const created = (n: NodeRecord, org = 'o') => ev('NodeCreated', { node: n, reason: null }, org);

/** The VectorIndex port in memory: what was written, per organization, and every call in order. */
class MemoryVectorIndex implements VectorIndex {
  readonly spaces = new Map<string, { config: VectorSpaceConfig; items: Map<string, VectorItem> }>();
  readonly calls: string[] = [];
  async configure(org: string, config: VectorSpaceConfig) {
    this.calls.push(`configure ${org} ${config.dimensions}`);
    const cur = this.spaces.get(org);
    if (cur && cur.config.dimensions === config.dimensions && cur.config.metric === config.metric) return;
    this.spaces.set(org, { config, items: new Map() });
  }
  async upsert(org: string, items: VectorItem[]) {
    this.calls.push(`upsert ${org} ${items.map((i) => i.uid).join(',')}`);
    const s = this.spaces.get(org);
    if (!s) throw new Error('embedding_not_configured');
    for (const i of items) {
      if (i.vector.length !== s.config.dimensions) throw new Error('dimension_mismatch');
      s.items.set(i.uid, { ...i, vector: Array.from(i.vector) });
    }
  }
  async remove(org: string, uids: string[]) {
    this.calls.push(`remove ${org} ${uids.join(',')}`);
    for (const u of uids) this.spaces.get(org)?.items.delete(u);
  }
  async removeOrg(org: string) {
    this.calls.push(`removeOrg ${org}`);
    this.spaces.delete(org);
  }
  async search(_q: VectorQuery): Promise<VectorHit[]> {
    return [];
  }
  async count(org: string) {
    return this.spaces.get(org)?.items.size ?? 0;
  }
  async flush() {}
  async close() {}
  vector(org: string, uid: string): number[] | undefined {
    return this.spaces.get(org)?.items.get(uid)?.vector as number[] | undefined;
  }
}

/** The read model and embedding rules the projection consults, as plain maps. */
class MapSource implements VectorProjectionSource {
  spaces = new Map<string, VectorSpaceOf | null>();
  pinnedUids = new Set<string>();
  stored = new Map<string, number[]>();
  graph = new Map<string, NodeRecord>();
  embedded: string[] = [];
  async space(org: string) {
    return this.spaces.get(org) ?? null;
  }
  async pinned(_org: string, uids: string[]) {
    return new Set(uids.filter((u) => this.pinnedUids.has(u)));
  }
  async storedVectors(_org: string, uids: string[]) {
    return new Map(uids.filter((u) => this.stored.has(u)).map((u) => [u, this.stored.get(u)!]));
  }
  async nodes(_org: string, uids: string[]) {
    return new Map(uids.filter((u) => this.graph.has(u)).map((u) => [u, this.graph.get(u)!]));
  }
  async liveNodes(_org: string, page: { limit: number; offset: number }) {
    const live = [...this.graph.values()].filter((n) => n.tombstone_at === null);
    return { items: live.slice(page.offset, page.offset + page.limit), has_more: live.length > page.offset + page.limit };
  }
  /** deterministic stand-in for the built-in embedder: [length of the text, 1, 0] */
  embed(space: VectorSpaceOf, texts: string[]) {
    this.embedded.push(...texts);
    return texts.map((t) => [t.length, 1, 0].slice(0, space.dimensions));
  }
}

const builtin: VectorSpaceOf = { dimensions: 3, metric: 'cosine', builtin: true };
const provider: VectorSpaceOf = { dimensions: 3, metric: 'cosine', builtin: false };

describe('VectorServerProjection', () => {
  let index: MemoryVectorIndex;
  let source: MapSource;
  let resets: number;
  let projection: VectorServerProjection;
  beforeEach(() => {
    index = new MemoryVectorIndex();
    source = new MapSource();
    resets = 0;
    projection = new VectorServerProjection(index, source, async () => void resets++);
  });

  it('computes built-in vectors from node events, one embedding call per batch, and removes tombstoned nodes', async () => {
    source.spaces.set('o', builtin);
    const a = node('a', 'alpha');
    await projection.apply([created(a), created(node('b', 'beta')), ev('NodeUpdated', { node: { ...a, label: 'alpha two' }, reason: null })]);
    expect(index.vector('o', 'a')).toEqual([embeddingTextOf({ ...a, label: 'alpha two' }).length, 1, 0]);
    expect(index.vector('o', 'b')).toBeDefined();
    expect(index.calls.filter((c) => c.startsWith('upsert'))).toEqual(['upsert o b,a']);
    await projection.apply([ev('NodeTombstoned', { node: node('b', 'beta', { tombstone_at: 5 }), reason: null })]);
    expect(index.vector('o', 'b')).toBeUndefined();
    expect(await index.count('o')).toBe(1);
  });

  it('never computes a vector for an organization without embeddings or with an external provider', async () => {
    source.spaces.set('off', null);
    source.spaces.set('ext', provider);
    await projection.apply([created(node('a', 'alpha'), 'off'), created(node('b', 'beta'), 'ext')]);
    expect(source.embedded).toEqual([]);
    expect(index.calls).toEqual([]);
  });

  it('indexes recorded vectors of live nodes with the node’s type and layer, and skips wrong lengths and tombstoned nodes', async () => {
    source.spaces.set('o', provider);
    source.graph.set('a', node('a', 'alpha', { node_type: 'Goal', layer: 'intent' }));
    source.graph.set('t', node('t', 'gone', { tombstone_at: 3 }));
    await projection.apply([
      ev('EmbeddingSet', { uid: 'a', vector: [0, 1, 0], model: 'm', updated_at: 1 }),
      ev('EmbeddingSet', { uid: 't', vector: [0, 1, 0], model: 'm', updated_at: 1 }),
      ev('EmbeddingSet', { uid: 'a', vector: [1, 2], model: 'm', updated_at: 1 }),
      ev('EmbeddingSet', { uid: 'missing', vector: [0, 1, 0], model: 'm', updated_at: 1 }),
    ]);
    expect(index.spaces.get('o')!.items.get('a')).toEqual({ uid: 'a', vector: [0, 1, 0], node_type: 'Goal', layer: 'intent' });
    expect(await index.count('o')).toBe(1);
    await projection.apply([ev('EmbeddingDeleted', { uid: 'a' })]);
    expect(await index.count('o')).toBe(0);
  });

  it('keeps a client vector over later node updates, and restores the recorded vector with its node', async () => {
    source.spaces.set('o', builtin);
    const a = node('a', 'alpha');
    source.graph.set('a', a);
    source.pinnedUids.add('a');
    source.stored.set('a', [9, 9, 9]);
    await projection.apply([created(a), ev('EmbeddingSet', { uid: 'a', vector: [9, 9, 9], model: 'm', updated_at: 1, source: 'explicit' })]);
    await projection.apply([ev('NodeUpdated', { node: { ...a, label: 'changed' }, reason: null })]);
    expect(index.vector('o', 'a')).toEqual([9, 9, 9]);
    await projection.apply([ev('NodeTombstoned', { node: { ...a, tombstone_at: 4 }, reason: null })]);
    expect(index.vector('o', 'a')).toBeUndefined();
    await projection.apply([ev('NodeRestored', { node: a, reason: null })]);
    expect(index.vector('o', 'a')).toEqual([9, 9, 9]);
    expect(source.embedded).toEqual([]);
  });

  it('removes purged nodes and drops the whole organization on a clear, leaving others alone', async () => {
    source.spaces.set('o', builtin);
    source.spaces.set('p', builtin);
    await projection.apply([created(node('a', 'a')), created(node('b', 'b')), created(node('c', 'c'), 'p')]);
    await projection.apply([ev('GraphPurged', { node_uids: ['a'], edge_uids: ['e1'], cutoff: null })]);
    expect(index.vector('o', 'a')).toBeUndefined();
    expect(index.vector('o', 'b')).toBeDefined();
    await projection.apply([ev('GraphCleared', { at: 5 })]);
    expect(index.spaces.has('o')).toBe(false);
    expect(index.vector('p', 'c')).toBeDefined();
  });

  it('after a clear in the same batch, configures the space again before writing', async () => {
    source.spaces.set('o', builtin);
    await projection.apply([created(node('a', 'a')), ev('GraphCleared', { at: 5 }), created(node('b', 'b'))]);
    expect(index.calls).toEqual(['configure o 3', 'upsert o a', 'removeOrg o', 'configure o 3', 'upsert o b']);
    expect(index.vector('o', 'b')).toBeDefined();
  });

  it('re-embeds every live node except client vectors, once per batch, when the built-in embedder is configured', async () => {
    source.spaces.set('o', builtin);
    for (let i = 0; i < 1200; i++) source.graph.set(`n${i}`, node(`n${i}`, `node ${i}`));
    source.graph.set('dead', node('dead', 'dead', { tombstone_at: 1 }));
    source.pinnedUids.add('n7');
    const configured = { provider: 'builtin', model: 'lexical', dimensions: 3, distance_metric: 'cosine', configured_at: 1, dropped: false };
    await projection.apply([ev('EmbeddingConfigured', configured), ev('EmbeddingConfigured', configured)]);
    expect(await index.count('o')).toBe(1199);
    expect(index.vector('o', 'n7')).toBeUndefined();
    expect(index.vector('o', 'dead')).toBeUndefined();
    expect(source.embedded).toHaveLength(1199);
  });

  it('does not re-embed anything when an external provider is configured (its vectors arrive as events)', async () => {
    source.spaces.set('o', provider);
    source.graph.set('a', node('a', 'a'));
    await projection.apply([ev('EmbeddingConfigured', { provider: 'openai', model: 'm', dimensions: 3, distance_metric: 'cosine', configured_at: 1, dropped: false })]);
    expect(index.calls).toEqual(['configure o 3']);
    expect(source.embedded).toEqual([]);
  });

  it('changes nothing when a batch is applied again', async () => {
    source.spaces.set('o', builtin);
    source.graph.set('b', node('b', 'b'));
    const batch = [created(node('a', 'a')), ev('EmbeddingSet', { uid: 'b', vector: [1, 0, 0], model: 'm', updated_at: 1 }), ev('NodeTombstoned', { node: node('a', 'a', { tombstone_at: 2 }), reason: null })];
    await projection.apply(batch);
    const first = JSON.stringify([...index.spaces.get('o')!.items]);
    await projection.apply(batch);
    expect(JSON.stringify([...index.spaces.get('o')!.items])).toBe(first);
  });

  it('drops everything it owns on reset', async () => {
    await projection.reset();
    expect(resets).toBe(1);
  });
});

describe('planVectorWrites', () => {
  it('merges consecutive removes and upserts of one organization, keeping the order between runs', () => {
    const facts = { space: () => builtin, pinned: () => false, stored: () => undefined, node: () => undefined };
    const writes = planVectorWrites(
      [
        created(node('a', 'a')),
        created(node('b', 'b')),
        ev('NodeTombstoned', { node: node('a', 'a', { tombstone_at: 2 }), reason: null }),
        ev('GraphPurged', { node_uids: ['a', 'c'], edge_uids: [], cutoff: null }),
      ],
      facts,
    );
    expect(writes.map((w) => w.kind)).toEqual(['configure', 'upsert', 'remove']);
    expect(writes[2]).toEqual({ kind: 'remove', org: 'o', uids: ['a', 'c'] });
  });
});
