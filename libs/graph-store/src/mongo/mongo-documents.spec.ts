import { BSON, Document } from 'mongodb';
import { RecordedEvent, StoredEvent, recordedEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import {
  checkpointAdvance,
  embeddingFromDocument,
  embeddingOriginFromDocument,
  groupWrites,
  isOlderThan,
  plain,
  seriesPointFromDocument,
  vectorFromBinary,
  vectorToBinary,
  writesForEvent,
} from './mongo-documents';

const node = (over: Partial<NodeRecord> = {}): NodeRecord => ({
  uid: 'n1',
  label: 'Ada  Lovelace!',
  summary: 's',
  node_type: 'Person',
  layer: 'reality',
  confidence: 1,
  salience: 0.5,
  privacy_level: 'private',
  props: { _type: 'Person', full_name: 'Ada' },
  agent_id: null,
  created_at: 100,
  updated_at: 100,
  tombstone_at: null,
  tombstone_reason: null,
  tombstone_by: null,
  version: 1,
  ...over,
});

const edge = (over: Partial<EdgeRecord> = {}): EdgeRecord => ({
  uid: 'e1',
  from_uid: 'n1',
  to_uid: 'n2',
  edge_type: 'Supports',
  layer: 'reality',
  weight: 0.5,
  confidence: 1,
  props: { _type: 'Supports' },
  agent_id: null,
  version: 1,
  created_at: 100,
  updated_at: 100,
  tombstone_at: null,
  tombstone_reason: null,
  ...over,
});

let position = 0;
const ev = (type: string, data: unknown, over: Partial<StoredEvent> = {}): RecordedEvent => recordedEvent({
  id: `id-${++position}`,
  type,
  data,
  stream: 's',
  revision: 0,
  position,
  metadata: { org_id: 'org-a', principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: 1 },
  ...over,
});

/** The `$mergeObjects` parts of a guarded update, and its guard. */
function guarded(update: unknown): { guard: Document; parts: Document[] } {
  const [stage] = update as Document[];
  const [guard, merge, otherwise] = stage.$replaceWith.$cond;
  expect(otherwise).toBe('$$ROOT');
  expect(merge.$mergeObjects[0]).toBe('$$ROOT');
  return { guard, parts: merge.$mergeObjects.slice(1) };
}

describe('writesForEvent', () => {
  it('upserts a created node by org and uid, guarded by the event position, with one version counted', () => {
    const e = ev('NodeCreated', { node: node(), reason: null }, { revision: 0, position: 41 });
    const [w] = writesForEvent(e);
    expect(w.collection).toBe('nodes');
    const op = (w.op as { updateOne: Document }).updateOne;
    expect(op.filter).toEqual({ org: 'org-a', uid: 'n1' });
    expect(op.upsert).toBe(true);
    const { guard, parts } = guarded(op.update);
    expect(guard).toEqual(isOlderThan(41));
    expect(parts[0]).toEqual({
      $literal: { org: 'org-a', uid: 'n1', label_norm: 'ada lovelace', label_lower: 'ada  lovelace!', rev: 0, pos: 41, doc: node() },
    });
    expect(parts[1].vcount).toEqual({ $literal: 1 });
    // a later decay's timestamp survives the node's next version, as on SQLite
    expect(parts[1].last_decayed_at).toEqual({ $ifNull: ['$last_decayed_at', null] });
  });

  it("sets an imported node's decay clock from its NodeCreated, as on SQLite (audit J3)", () => {
    const e = ev('NodeCreated', { node: node(), reason: 'import', last_decayed_at: 250.5 }, { revision: 0, position: 42 });
    const [w] = writesForEvent(e);
    const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
    expect(parts[1].last_decayed_at).toEqual({ $literal: 250.5 });
    // the clock is beside the record, not in it
    expect(parts[0].$literal.doc).toEqual(node());
  });

  it('counts one more version for every later versioned node event', () => {
    for (const type of ['NodeUpdated', 'NodeTombstoned', 'NodeRestored']) {
      const [w] = writesForEvent(ev(type, { node: node({ version: 2 }), reason: null }, { revision: 1 }));
      const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
      expect(parts[1].vcount).toEqual({ $add: [{ $ifNull: ['$vcount', 0] }, 1] });
    }
  });

  it('stores records as JSON would, so both adapters hold the same document', () => {
    const n = { ...node(), extra: undefined } as unknown as NodeRecord;
    const [w] = writesForEvent(ev('NodeCreated', { node: n, reason: null }));
    const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
    expect('extra' in parts[0].$literal.doc).toBe(false);
    expect(plain({ a: 1, b: undefined, c: [1, undefined] })).toEqual({ a: 1, c: [1, null] });
  });

  it('merges a touch into the stored node without inserting one and without reading values as expressions', () => {
    const e = ev('NodeTouched', { uid: 'n1', props: { note: '$label' }, salience: 0.9, updated_at: 200 }, { revision: 3, position: 50 });
    const [w] = writesForEvent(e);
    const op = (w.op as { updateOne: Document }).updateOne;
    expect(op.upsert).toBeUndefined();
    const { guard, parts } = guarded(op.update);
    expect(guard).toEqual(isOlderThan(50));
    expect(parts[0].rev).toEqual({ $literal: 3 });
    expect(parts[0].doc).toEqual({
      $mergeObjects: ['$doc', { props: { $mergeObjects: ['$doc.props', { $literal: { note: '$label' } }] } }, { $literal: { salience: 0.9, updated_at: 200 } }],
    });
  });

  it('touches only the fields the event carries', () => {
    const [w] = writesForEvent(ev('NodeTouched', { uid: 'n1', props: { x: 1 } }));
    const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
    expect(parts[0].doc.$mergeObjects[2]).toEqual({ $literal: {} });
  });

  it('decays each uid once (the last item wins), keeps the revision and records when', () => {
    const e = ev('SalienceDecayed', { items: [{ uid: 'a', salience: 0.4 }, { uid: 'b', salience: 0.3 }, { uid: 'a', salience: 0.2 }], at: 300 });
    const ws = writesForEvent(e);
    expect(ws.map((w) => (w.op as { updateOne: Document }).updateOne.filter)).toEqual([
      { org: 'org-a', uid: 'a' },
      { org: 'org-a', uid: 'b' },
    ]);
    const { parts } = guarded((ws[0].op as { updateOne: Document }).updateOne.update);
    expect(parts[0]).toEqual({ pos: { $literal: e.position }, last_decayed_at: { $literal: 300 }, doc: { $mergeObjects: ['$doc', { $literal: { salience: 0.2 } }] } });
    expect('rev' in parts[0]).toBe(false);
    expect((ws[0].op as { updateOne: Document }).updateOne.upsert).toBeUndefined();
  });

  it('upserts edges like nodes', () => {
    const [w] = writesForEvent(ev('EdgeCreated', { edge: edge(), reason: null }, { revision: 0, position: 60 }));
    expect(w.collection).toBe('edges');
    const op = (w.op as { updateOne: Document }).updateOne;
    expect(op.filter).toEqual({ org: 'org-a', uid: 'e1' });
    const { parts } = guarded(op.update);
    expect(parts[0]).toEqual({ $literal: { org: 'org-a', uid: 'e1', rev: 0, pos: 60, doc: edge() } });
    expect(parts[1]).toEqual({ vcount: { $literal: 1 } });
  });

  it('keeps the first created_at of an alias that is set again', () => {
    const [w] = writesForEvent(ev('AliasSet', { text: 'Ada', norm: 'ada', canonical_uid: 'n1', score: 0.8, created_at: 10 }));
    const op = (w.op as { updateOne: Document }).updateOne;
    expect(op.filter).toEqual({ org: 'org-a', norm: 'ada', canonical_uid: 'n1' });
    const { parts } = guarded(op.update);
    expect(parts[1]).toEqual({ created_at: { $ifNull: ['$created_at', { $literal: 10 }] } });
  });

  it('moves the node revision with alias events recorded on the node stream', () => {
    const ws = writesForEvent(ev('AliasSet', { text: 'Ada', norm: 'ada', canonical_uid: 'n1', score: 1, created_at: 1 }, { stream: 'node-org-a:n1', revision: 3, position: 90 }));
    expect(ws.map((w) => w.collection)).toEqual(['aliases', 'nodes']);
    const op = (ws[1].op as { updateOne: Document }).updateOne;
    expect(op.filter).toEqual({ org: 'org-a', uid: 'n1' });
    expect(guarded(op.update).parts[0]).toEqual({ rev: { $literal: 3 }, pos: { $literal: 90 } });
    expect(writesForEvent(ev('AliasSet', { text: 'A', norm: 'a', canonical_uid: 'n1', score: 1, created_at: 1 }, { stream: 'graph-org-a' }))).toHaveLength(1);
  });

  it('deletes only rows older than the event, so a replayed delete never removes a newer row', () => {
    const removed = writesForEvent(ev('AliasRemoved', { norm: 'ada', canonical_uid: 'n1' }, { position: 70 }));
    expect(removed).toEqual([
      { collection: 'aliases', op: { deleteOne: { filter: { org: 'org-a', norm: 'ada', canonical_uid: 'n1', pos: { $lt: 70 } } } } },
    ]);
    const emb = writesForEvent(ev('EmbeddingDeleted', { uid: 'n1' }, { position: 71 }));
    expect(emb).toEqual([{ collection: 'embeddings', op: { deleteOne: { filter: { org: 'org-a', uid: 'n1', pos: { $lt: 71 } } } } }]);
  });

  it('drops the organization’s vectors before recording a forced embedding change', () => {
    const ws = writesForEvent(
      ev('EmbeddingConfigured', { provider: 'p', model: 'm', dimensions: 3, distance_metric: 'cosine', configured_at: 5, dropped: true }, { position: 80 }),
    );
    expect(ws.map((w) => w.collection)).toEqual(['embeddings', 'embeddingConfig']);
    expect(ws[0].op).toEqual({ deleteMany: { filter: { org: 'org-a', pos: { $lt: 80 } } } });
    const kept = writesForEvent(ev('EmbeddingConfigured', { provider: 'p', model: 'm', dimensions: 3, distance_metric: 'cosine', configured_at: 5, dropped: false }));
    expect(kept.map((w) => w.collection)).toEqual(['embeddingConfig']);
  });

  it('stores vectors as float32, returning what the SQLite blob returns', () => {
    const vector = [0.1, -0.2, 1 / 3];
    const [w] = writesForEvent(ev('EmbeddingSet', { uid: 'n1', vector, model: 'm', updated_at: 9 }, { position: 90 }));
    const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
    const stored = BSON.deserialize(BSON.serialize({ ...parts[0].$literal }));
    expect(stored.dimension).toBe(3);
    expect(embeddingFromDocument(stored)).toEqual({
      uid: 'n1',
      vector: Array.from(Float32Array.from(vector)),
      model: 'm',
      dimension: 3,
      updated_at: 9,
    });
    expect(vectorFromBinary(vectorToBinary(new Float32Array([1, 2])))).toEqual([1, 2]);
  });

  it('records who produced a vector: a client vector is pinned, a provider vector keeps its text hash', () => {
    const stored = (data: Record<string, unknown>) => {
      const [w] = writesForEvent(ev('EmbeddingSet', { uid: 'n1', vector: [1, 0], model: 'm', updated_at: 9, ...data }, { position: 91 }));
      const { parts } = guarded((w.op as { updateOne: Document }).updateOne.update);
      return BSON.deserialize(BSON.serialize({ ...parts[0].$literal }));
    };
    expect(embeddingOriginFromDocument(stored({ source: 'explicit', text_hash: null }))).toEqual({ source: 'explicit', text_hash: null });
    expect(embeddingOriginFromDocument(stored({ source: 'provider', text_hash: 'h1' }))).toEqual({ source: 'provider', text_hash: 'h1' });
    // an event without the fields (older writers) reads as a provider vector of unknown text
    expect(embeddingOriginFromDocument(stored({}))).toEqual({ source: 'provider', text_hash: null });
  });

  it('writes one series point per timestamp, the later one winning', () => {
    const ws = writesForEvent(
      ev('SeriesPointsAppended', {
        series_uid: 's1',
        points: [
          { ts: 1, value: 1, source_uid: null, note: null, recorded_at: 5 },
          { ts: 2, value: 2, source_uid: 'x', note: 'n', recorded_at: 5 },
          { ts: 1, value: 9, source_uid: null, note: null, recorded_at: 6 },
        ],
      }),
    );
    expect(ws).toHaveLength(2);
    const first = guarded((ws[0].op as { updateOne: Document }).updateOne.update).parts[0].$literal;
    expect(seriesPointFromDocument(first)).toEqual({ series_uid: 's1', ts: 1, value: 9, source_uid: null, note: null, recorded_at: 6 });
  });

  it('purges nodes with their aliases, vectors and series points, and the listed edges', () => {
    const [mark, ...ws] = writesForEvent(ev('GraphPurged', { node_uids: ['a', 'b'], edge_uids: ['e'], cutoff: null }, { position: 99 })).reverse();
    ws.reverse();
    expect(mark.collection).toBe('membershipMarks');
    expect(ws.map((w) => [w.collection, (w.op as { deleteMany: Document }).deleteMany.filter])).toEqual([
      ['nodes', { org: 'org-a', uid: { $in: ['a', 'b'] }, pos: { $lt: 99 } }],
      ['aliases', { org: 'org-a', canonical_uid: { $in: ['a', 'b'] }, pos: { $lt: 99 } }],
      ['embeddings', { org: 'org-a', uid: { $in: ['a', 'b'] }, pos: { $lt: 99 } }],
      ['seriesPoints', { org: 'org-a', series_uid: { $in: ['a', 'b'] }, pos: { $lt: 99 } }],
      ['edges', { org: 'org-a', uid: { $in: ['e'] }, pos: { $lt: 99 } }],
    ]);
    expect(writesForEvent(ev('GraphPurged', { node_uids: [], edge_uids: [], cutoff: 1 }))).toEqual([]);
  });

  it('clears the organization’s graph but keeps its embedding configuration', () => {
    const all = writesForEvent(ev('GraphCleared', { at: 1 }, { position: 120 }));
    expect(all.map((w) => w.collection)).toEqual(['nodes', 'edges', 'aliases', 'embeddings', 'seriesPoints', 'membershipMarks']);
    for (const w of all.slice(0, -1)) expect(w.op).toEqual({ deleteMany: { filter: { org: 'org-a', pos: { $lt: 120 } } } });
    // the membership moves to the clear's position, never back
    expect(all[5].op).toEqual({
      updateOne: { filter: { org: 'org-a' }, update: [{ $set: { org: 'org-a', pos: { $max: [{ $ifNull: ['$pos', -1] }, 120] } } }], upsert: true },
    });
  });

  it('ignores events that are not graph events', () => {
    expect(writesForEvent(ev('ApiKeyRevoked', { id: 'k' }))).toEqual([]);
  });
});

describe('groupWrites', () => {
  it('keeps each collection’s writes in event order', () => {
    const events = [
      ev('NodeCreated', { node: node({ uid: 'a' }), reason: null }),
      ev('AliasSet', { text: 'A', norm: 'a', canonical_uid: 'a', score: 1, created_at: 1 }),
      ev('NodeUpdated', { node: node({ uid: 'a', version: 2 }), reason: null }),
      ev('GraphCleared', { at: 2 }),
    ];
    const groups = groupWrites(events);
    expect([...groups.keys()]).toEqual(['nodes', 'aliases', 'edges', 'embeddings', 'seriesPoints', 'membershipMarks']);
    const nodes = groups.get('nodes')!;
    expect(nodes.map((op) => Object.keys(op)[0])).toEqual(['updateOne', 'updateOne', 'deleteMany']);
  });
});

describe('checkpointAdvance', () => {
  it('never moves a checkpoint back and only moves the caller’s version', () => {
    const { filter, update } = checkpointAdvance('graph', 2, 500, 7);
    expect(filter).toEqual({ _id: 'graph', version: 2 });
    expect(update).toEqual([{ $set: { position: { $max: [{ $ifNull: ['$position', 0] }, { $literal: 500 }] }, last_error: null, updated_at: { $literal: 7 } } }]);
  });
});
