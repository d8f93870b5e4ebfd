import { AnyBulkWriteOperation, Binary, Document } from 'mongodb';
import { normaliseText } from '@strata/domain/catalogue';
import { AliasSetData, EmbeddingConfiguredData, EmbeddingSetData, GraphPurgedData, NodeTouchedData, RecordedEvent, unhandled, SalienceDecayedData, SeriesPoint, SeriesPointsAppendedData } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { GraphModelChange, graphChangesOf } from '../graph-changes';
import { AliasRecord, EmbeddingConfig, SeriesPointRow, StoredEmbedding } from '../graph-read-model.port';

/**
 * Record ↔ document mapping and the MongoDB writes of each graph read-model change (the
 * changes themselves, per event, are `graphChangesOf`, shared with SQLite). Pure: the writer
 * only sends what these functions return.
 *
 * Every document carries `org` and `pos`, the global log position of the last event that
 * wrote it. Every write is guarded by that position (a row only moves forward), so replaying
 * from an older checkpoint, or a second worker applying late, never regresses a row.
 */

export const GRAPH_COLLECTIONS = {
  nodes: 'nodes',
  edges: 'edges',
  aliases: 'aliases',
  embeddings: 'embeddings',
  embeddingConfig: 'embedding_config',
  seriesPoints: 'series_points',
  membershipMarks: 'membership_marks',
} as const;
export type GraphCollection = keyof typeof GRAPH_COLLECTIONS;
export const CHECKPOINTS_COLLECTION = 'checkpoints';

/** A node row: the full record in `doc`, plus what queries need that the record lacks. */
export interface NodeDocument {
  org: string;
  uid: string;
  /** normaliseText(label): entity find-or-create */
  label_norm: string;
  /** label.toLowerCase(): label_contains */
  label_lower: string;
  /** stream revision of the node's last event (optimistic concurrency) */
  rev: number;
  /** version records held (purge counts) */
  vcount: number;
  pos: number;
  last_decayed_at: number | null;
  doc: NodeRecord;
}

export interface EdgeDocument {
  org: string;
  uid: string;
  rev: number;
  vcount: number;
  pos: number;
  doc: EdgeRecord;
}

export interface AliasDocument extends AliasRecord {
  org: string;
  pos: number;
}

export interface EmbeddingDocument {
  org: string;
  uid: string;
  model: string;
  dimension: number;
  /** float32, like the SQLite blob: both adapters return the same rounded values */
  vector: Binary;
  updated_at: number;
  /** see EmbeddingOrigin */
  source?: 'explicit' | 'provider';
  text_hash?: string | null;
  pos: number;
}

export interface EmbeddingConfigDocument extends EmbeddingConfig {
  org: string;
  pos: number;
}

export interface SeriesPointDocument extends SeriesPoint {
  org: string;
  series_uid: string;
  pos: number;
}

/** One write of an event, addressed to its collection. */
export interface GraphWrite {
  collection: GraphCollection;
  op: AnyBulkWriteOperation<Document>;
}

// ---------- reading ----------

export function nodeFromDocument(d: Document): NodeRecord {
  return d.doc as NodeRecord;
}
export function edgeFromDocument(d: Document): EdgeRecord {
  return d.doc as EdgeRecord;
}
export function aliasFromDocument(d: Document): AliasRecord {
  return { text: d.text, norm: d.norm, canonical_uid: d.canonical_uid, score: d.score, created_at: d.created_at };
}
export function embeddingConfigFromDocument(d: Document): EmbeddingConfig {
  return {
    provider: d.provider,
    model: d.model,
    dimensions: d.dimensions,
    distance_metric: d.distance_metric,
    configured_at: d.configured_at,
  };
}
export function embeddingFromDocument(d: Document): StoredEmbedding {
  return { uid: d.uid, vector: vectorFromBinary(d.vector as Binary), model: d.model, dimension: d.dimension, updated_at: d.updated_at };
}
export function seriesPointFromDocument(d: Document): SeriesPointRow {
  return {
    series_uid: d.series_uid,
    ts: d.ts,
    value: d.value,
    source_uid: d.source_uid ?? null,
    note: d.note ?? null,
    recorded_at: d.recorded_at,
  };
}

export function vectorToBinary(v: number[] | Float32Array): Binary {
  return Binary.fromFloat32Array(v instanceof Float32Array ? v : Float32Array.from(v));
}
export function vectorFromBinary(b: Binary): number[] {
  return Array.from(b.toFloat32Array());
}

/** Only the fields callers read: never `_id` or bookkeeping. */
export const RECORD_PROJECTION = { _id: 0, doc: 1 } as const;
export const ALIAS_PROJECTION = { _id: 0, text: 1, norm: 1, canonical_uid: 1, score: 1, created_at: 1 } as const;

// ---------- writing ----------

/** The writes that apply one event; [] for events that are not graph events. */
export function writesForEvent(e: RecordedEvent): GraphWrite[] {
  const out: GraphWrite[] = [];
  for (const c of graphChangesOf(e)) out.push(...writesForChange(c, e.position));
  return out;
}

/** One change of the graph read model (`graphChangesOf`, shared with SQLite) as MongoDB writes at log position `pos`. */
export function writesForChange(c: GraphModelChange, pos: number): GraphWrite[] {
  const org = c.org;
  switch (c.kind) {
    case 'putNode':
      return [nodeWrite(org, c.node, c.rev, pos, c.created, c.lastDecayedAt)];
    case 'touchNode':
      return [touchWrite(org, c.data, c.rev, pos)];
    case 'putEdge':
      return [edgeWrite(org, c.edge, c.rev, pos, c.created)];
    case 'decaySalience':
      return decayWrites(org, c.data, pos);
    case 'setAlias':
      return [aliasSetWrite(org, c.alias, pos)];
    case 'removeAlias':
      return [del('aliases', { org, norm: c.norm, canonical_uid: c.canonical_uid }, pos, false)];
    case 'followNodeStream':
      return [{ collection: 'nodes', op: { updateOne: { filter: { org, uid: c.uid }, update: guardedMerge(pos, [{ rev: lit(c.rev), pos: lit(pos) }]) } } }];
    case 'configureEmbeddings':
      return embeddingConfiguredWrites(org, c.config, pos);
    case 'setEmbedding':
      return [embeddingSetWrite(org, c.data, pos)];
    case 'deleteEmbedding':
      return [del('embeddings', { org, uid: c.uid }, pos, false)];
    case 'appendSeriesPoints':
      return seriesWrites(org, c.data, pos);
    case 'purge':
      return purgeWrites(org, c.data, pos);
    case 'clear':
      // the embedding configuration survives a clear, as on SQLite
      return (['nodes', 'edges', 'aliases', 'embeddings', 'seriesPoints'] as const).map((col) => del(col, { org }, pos, true));
    case 'markMembership':
      return [
        {
          collection: 'membershipMarks',
          op: { updateOne: { filter: { org }, update: [{ $set: { org, pos: { $max: [{ $ifNull: ['$pos', -1] }, c.pos] } } }], upsert: true } },
        },
      ];
    default:
      unhandled(c);
      return [];
  }
}

/** True when the stored row is older than the event (or absent). */
export function isOlderThan(pos: number): Document {
  return { $lt: [{ $ifNull: ['$pos', -1] }, pos] };
}

/**
 * An update pipeline that merges `parts` over the stored row only when the row is older
 * than `pos`; otherwise it leaves the row exactly as it is. `$$ROOT` keeps `_id` and any
 * field the event does not carry (last_decayed_at).
 */
export function guardedMerge(pos: number, parts: Document[]): Document[] {
  return [{ $replaceWith: { $cond: [isOlderThan(pos), { $mergeObjects: ['$$ROOT', ...parts] }, '$$ROOT'] } }];
}

/** A value the server must store as is, never read as an expression or a field path. */
export function lit(v: unknown): Document {
  return { $literal: v };
}

/** The stored form of a record: what JSON keeps (no undefined), exactly like the SQLite doc column. */
export function plain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function versionCount(created: boolean): Document {
  return created ? lit(1) : { $add: [{ $ifNull: ['$vcount', 0] }, 1] };
}

/**
 * A versioned node write. `lastDecayedAt` sets the decay clock (an imported node's NodeCreated,
 * REFERENCE §8.6); null keeps the stored one (null on a new document), as on SQLite.
 */
export function nodeWrite(org: string, n: NodeRecord, rev: number, pos: number, created: boolean, lastDecayedAt: number | null = null): GraphWrite {
  return {
    collection: 'nodes',
    op: {
      updateOne: {
        filter: { org, uid: n.uid },
        upsert: true,
        update: guardedMerge(pos, [
          lit({ org, uid: n.uid, label_norm: normaliseText(n.label), label_lower: n.label.toLowerCase(), rev, pos, doc: plain(n) }),
          { vcount: versionCount(created), last_decayed_at: lastDecayedAt === null ? { $ifNull: ['$last_decayed_at', null] } : lit(lastDecayedAt) },
        ]),
      },
    },
  };
}

/** Maintained counters and salience: merged into the stored record, no new version. */
export function touchWrite(org: string, d: NodeTouchedData, rev: number, pos: number): GraphWrite {
  const fields: Record<string, unknown> = {};
  if (d.salience !== undefined) fields.salience = d.salience;
  if (d.updated_at !== undefined) fields.updated_at = d.updated_at;
  return {
    collection: 'nodes',
    op: {
      updateOne: {
        filter: { org, uid: d.uid },
        update: guardedMerge(pos, [
          {
            rev: lit(rev),
            pos: lit(pos),
            doc: { $mergeObjects: ['$doc', { props: { $mergeObjects: ['$doc.props', lit(plain(d.props ?? {}))] } }, lit(fields)] },
          },
        ]),
      },
    },
  };
}

export function decayWrites(org: string, d: SalienceDecayedData, pos: number): GraphWrite[] {
  // the last item wins when a uid repeats (all items share the event's position)
  const last = new Map<string, number>();
  for (const item of d.items) last.set(item.uid, item.salience);
  return [...last].map(([uid, salience]) => ({
    collection: 'nodes' as const,
    op: {
      updateOne: {
        filter: { org, uid },
        update: guardedMerge(pos, [{ pos: lit(pos), last_decayed_at: lit(d.at), doc: { $mergeObjects: ['$doc', lit({ salience })] } }]),
      },
    },
  }));
}

export function edgeWrite(org: string, ed: EdgeRecord, rev: number, pos: number, created: boolean): GraphWrite {
  return {
    collection: 'edges',
    op: {
      updateOne: {
        filter: { org, uid: ed.uid },
        upsert: true,
        update: guardedMerge(pos, [lit({ org, uid: ed.uid, rev, pos, doc: plain(ed) }), { vcount: versionCount(created) }]),
      },
    },
  };
}

/** Re-setting an alias changes its text and score; it keeps its first created_at (as on SQLite). */
export function aliasSetWrite(org: string, a: AliasSetData, pos: number): GraphWrite {
  return {
    collection: 'aliases',
    op: {
      updateOne: {
        filter: { org, norm: a.norm, canonical_uid: a.canonical_uid },
        upsert: true,
        update: guardedMerge(pos, [
          lit({ org, norm: a.norm, canonical_uid: a.canonical_uid, text: a.text, score: a.score, pos }),
          { created_at: { $ifNull: ['$created_at', lit(a.created_at)] } },
        ]),
      },
    },
  };
}

export function embeddingConfiguredWrites(org: string, c: EmbeddingConfiguredData, pos: number): GraphWrite[] {
  const out: GraphWrite[] = [];
  if (c.dropped) out.push(del('embeddings', { org }, pos, true));
  out.push({
    collection: 'embeddingConfig',
    op: {
      updateOne: {
        filter: { org },
        upsert: true,
        update: guardedMerge(pos, [
          lit({
            org,
            provider: c.provider,
            model: c.model,
            dimensions: c.dimensions,
            distance_metric: c.distance_metric,
            configured_at: c.configured_at,
            pos,
          }),
        ]),
      },
    },
  });
  return out;
}

/**
 * Who produced a recorded vector, as the API records it beside the port's fields: `explicit`
 * (a client's, pinned) or `provider`, with the hash of the text embedded. Server mode reads
 * them back (automatic embedding, the vector projection); an event without them reads as a
 * provider vector of unknown text.
 */
export interface EmbeddingOrigin {
  source: 'explicit' | 'provider';
  text_hash: string | null;
}

export function embeddingOriginOf(d: EmbeddingSetData): EmbeddingOrigin {
  const o = d as EmbeddingSetData & { source?: unknown; text_hash?: unknown };
  return { source: o.source === 'explicit' ? 'explicit' : 'provider', text_hash: typeof o.text_hash === 'string' ? o.text_hash : null };
}

export function embeddingOriginFromDocument(d: Document): EmbeddingOrigin {
  return { source: d.source === 'explicit' ? 'explicit' : 'provider', text_hash: typeof d.text_hash === 'string' ? d.text_hash : null };
}

export function embeddingSetWrite(org: string, d: EmbeddingSetData, pos: number): GraphWrite {
  return {
    collection: 'embeddings',
    op: {
      updateOne: {
        filter: { org, uid: d.uid },
        upsert: true,
        update: guardedMerge(pos, [
          lit({
            org,
            uid: d.uid,
            model: d.model,
            dimension: d.vector.length,
            vector: vectorToBinary(d.vector),
            updated_at: d.updated_at,
            ...embeddingOriginOf(d),
            pos,
          }),
        ]),
      },
    },
  };
}

export function seriesWrites(org: string, d: SeriesPointsAppendedData, pos: number): GraphWrite[] {
  // a timestamp given twice in one event: the later point wins, as with SQLite's upsert
  const byTs = new Map<number, SeriesPoint>();
  for (const p of d.points) byTs.set(p.ts, p);
  return [...byTs.values()].map((p) => ({
    collection: 'seriesPoints' as const,
    op: {
      updateOne: {
        filter: { org, series_uid: d.series_uid, ts: p.ts },
        upsert: true,
        update: guardedMerge(pos, [
          lit({
            org,
            series_uid: d.series_uid,
            ts: p.ts,
            value: p.value,
            source_uid: p.source_uid ?? null,
            note: p.note ?? null,
            recorded_at: p.recorded_at,
            pos,
          }),
        ]),
      },
    },
  }));
}

/** A purge removes the nodes with their aliases, embedding and series points, and the edges. */
export function purgeWrites(org: string, d: GraphPurgedData, pos: number): GraphWrite[] {
  const out: GraphWrite[] = [];
  if (d.node_uids.length) {
    const uids = { $in: d.node_uids };
    out.push(
      del('nodes', { org, uid: uids }, pos, true),
      del('aliases', { org, canonical_uid: uids }, pos, true),
      del('embeddings', { org, uid: uids }, pos, true),
      del('seriesPoints', { org, series_uid: uids }, pos, true),
    );
  }
  if (d.edge_uids.length) out.push(del('edges', { org, uid: { $in: d.edge_uids } }, pos, true));
  return out;
}

/** Deletes only rows written before the event: a replayed old delete never removes newer rows. */
function del(collection: GraphCollection, filter: Document, pos: number, many: boolean): GraphWrite {
  const guarded = { ...filter, pos: { $lt: pos } };
  return { collection, op: many ? { deleteMany: { filter: guarded } } : { deleteOne: { filter: guarded } } };
}

/** The writes of a batch, per collection, each collection's list in event order. */
export function groupWrites(events: RecordedEvent[]): Map<GraphCollection, AnyBulkWriteOperation<Document>[]> {
  const out = new Map<GraphCollection, AnyBulkWriteOperation<Document>[]>();
  for (const e of events) {
    for (const w of writesForEvent(e)) {
      let list = out.get(w.collection);
      if (!list) out.set(w.collection, (list = []));
      list.push(w.op);
    }
  }
  return out;
}

// ---------- checkpoints ----------

/** A projection's checkpoint: the last log position whose writes are all applied. */
export interface CheckpointDocument {
  /** the projection name */
  _id: string;
  version: number;
  position: number;
  last_error: string | null;
  /** Unix seconds */
  updated_at: number;
}

/**
 * Moves a checkpoint forward, never back (`$max`), and only while the stored version is the
 * caller's: a worker still running older code cannot move a checkpoint a newer one rebuilt.
 */
export function checkpointAdvance(name: string, version: number, position: number, now: number): { filter: Document; update: Document[] } {
  return {
    filter: { _id: name, version },
    update: [{ $set: { position: { $max: [{ $ifNull: ['$position', 0] }, lit(position)] }, last_error: null, updated_at: lit(now) } }],
  };
}

/** The checkpoint of a projection about to be rebuilt from the start of the log. */
export function checkpointReset(name: string, version: number, now: number): CheckpointDocument {
  return { _id: name, version, position: 0, last_error: null, updated_at: now };
}
