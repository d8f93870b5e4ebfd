import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import { loadConfig } from '../config/strata-config';
import { EmbedderFactory } from '../embeddings/embedder-factory';
import { EmbeddingSettings } from '../embeddings/embedding-settings.service';
import { VectorProjection } from './vector-projection';
import { FixedClock } from '@strata/domain/time';

const ORG = 'org-1';
let position = 0;

function ev(type: string, data: unknown, stream = 'graph-x'): RecordedEvent {
  position++;
  return recordedEvent({ id: '', type, data, stream, revision: 0, position, metadata: { org_id: ORG, principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: position } });
}

function node(uid: string, label: string, over: Partial<NodeRecord> = {}): NodeRecord {
  return {
    uid, label, summary: label, node_type: 'Claim', layer: 'epistemic', confidence: 1, salience: 0.5, privacy_level: 'private',
    props: { _type: 'Claim' }, agent_id: null, created_at: 1, updated_at: 1, tombstone_at: null, tombstone_reason: null, tombstone_by: null, version: 1, ...over,
  };
}

describe('VectorProjection', () => {
  let dir: string;
  let store: SqliteGraphStore;
  let writer: SqliteGraphWriter;
  let index: EmbeddedVectorIndex;
  let projection: VectorProjection;
  const apply = (...events: RecordedEvent[]) => {
    for (const e of events) writer.apply(e); // the graph read model is applied first, as in the app
    projection.apply(events);
  };
  const search = (text: string) => {
    const v = new EmbedderFactory(loadConfig({}), new FixedClock()).create('builtin', 'strata-lexical-v1', 64).embedSync!([text])[0];
    return index.searchSync({ org: ORG, vector: v, k: 10 }).map((h) => h.uid);
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vp-'));
    store = new SqliteGraphStore(new Database(':memory:'));
    writer = new SqliteGraphWriter(store);
    const config = { ...loadConfig({}), embeddingDimensions: 64 };
    index = new EmbeddedVectorIndex(dir);
    projection = new VectorProjection(index, store, new EmbeddingSettings(config, store, new EmbedderFactory(config, new FixedClock())), dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('embeds created nodes with the built-in embedder, removes tombstoned ones and restores them', () => {
    const a = node('a', 'volcanic ash clouds');
    apply(ev('NodeCreated', { node: a, reason: null }), ev('NodeCreated', { node: node('b', 'ocean tides'), reason: null }));
    expect(search('volcanic ash')[0]).toBe('a');
    apply(ev('NodeTombstoned', { node: { ...a, tombstone_at: 5, version: 2 }, reason: null }));
    expect(search('volcanic ash')).not.toContain('a');
    apply(ev('NodeRestored', { node: { ...a, version: 3 }, reason: null }));
    expect(search('volcanic ash')[0]).toBe('a');
  });

  it('keeps a client vector across updates until it is deleted', () => {
    const a = node('a', 'pinned node');
    const v = Array.from({ length: 64 }, (_, i) => (i === 3 ? 1 : 0));
    apply(ev('NodeCreated', { node: a, reason: null }), ev('EmbeddingSet', { uid: 'a', vector: v, model: 'm', updated_at: 2, source: 'explicit' }, 'embedding-x'));
    apply(ev('NodeUpdated', { node: { ...a, label: 'renamed', version: 2 }, reason: null }));
    expect(index.getVector(ORG, 'a')).toEqual(v);
    expect(projection.isPinned(ORG, 'a')).toBe(true);
    apply(ev('EmbeddingDeleted', { uid: 'a' }, 'embedding-x'));
    expect(index.getVector(ORG, 'a')).toBeUndefined();
    apply(ev('NodeUpdated', { node: { ...a, label: 'renamed again', version: 3 }, reason: null }));
    expect(index.getVector(ORG, 'a')).not.toEqual(v);
  });

  it('drops purged nodes and a cleared organization', () => {
    apply(ev('NodeCreated', { node: node('a', 'first'), reason: null }), ev('NodeCreated', { node: node('b', 'second'), reason: null }));
    apply(ev('GraphPurged', { node_uids: ['a'], edge_uids: [], cutoff: null }));
    expect(index.countSync(ORG)).toBe(1);
    apply(ev('GraphCleared', { at: 9 }));
    expect(index.countSync(ORG)).toBe(0);
  });

  it('a dimension change re-creates the space and asks for a backfill, which re-embeds live nodes', () => {
    apply(ev('NodeCreated', { node: node('a', 'alpha beta'), reason: null }));
    apply(ev('EmbeddingConfigured', { provider: 'builtin', model: 'strata-lexical-v1', dimensions: 16, distance_metric: 'cosine', configured_at: 3, dropped: true }));
    expect(index.configOf(ORG)).toEqual({ dimensions: 16, metric: 'cosine' });
    expect(index.countSync(ORG)).toBe(0);
    expect(projection.backfillsPending()).toEqual([ORG]);
    expect(projection.embedNodes(ORG, [store.getNodeSync(ORG, 'a')!])).toBe(1);
    expect(index.getVector(ORG, 'a')).toHaveLength(16);
  });

  it('skips events at or before its checkpoint and persists the checkpoint with the index', () => {
    const created = ev('NodeCreated', { node: node('a', 'durable'), reason: null });
    apply(created);
    projection.flush();
    const reopened = new VectorProjection(new EmbeddedVectorIndex(dir), store, new EmbeddingSettings({ ...loadConfig({}), embeddingDimensions: 64 }, store, new EmbedderFactory(loadConfig({}), new FixedClock())), dir);
    expect(reopened.position).toBe(created.position);
    expect(reopened.index.countSync(ORG)).toBe(1);
  });
});
