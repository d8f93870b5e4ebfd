import { Document } from 'mongodb';
import type { DecayCandidateRow, DecayScope, SnapshotScope, SnapshotSection } from '../maintenance-reads.port';
import { snapshotNodeJson } from '../snapshot-node';
import { GRAPH_COLLECTIONS } from './mongo-documents';

/**
 * The MongoDB queries of the maintenance reads (decay, purge, clear, export), as plain
 * documents: the reader only sends what these return. Each mirrors its SQLite twin in
 * sqlite-maintenance-reads.ts / sqlite-snapshot-reader.ts, order included.
 */

export interface FindQuery {
  filter: Document;
  projection: Document;
  sort: Record<string, 1 | -1>;
}

const LIVE = { 'doc.tombstone_at': null };

/** Live nodes in scope, oldest first; null when the scope names no node at all. */
export function decayCandidatesQuery(org: string, scope: DecayScope): FindQuery | null {
  const filter: Document = { org, ...LIVE };
  if (scope.layer) filter['doc.layer'] = scope.layer;
  if (scope.node_types && scope.node_types.length) filter['doc.node_type'] = { $in: [...scope.node_types] };
  if (scope.uids) {
    if (!scope.uids.length) return null;
    filter.uid = { $in: [...scope.uids] };
  }
  return {
    filter,
    projection: { _id: 0, uid: 1, 'doc.salience': 1, 'doc.created_at': 1, 'doc.updated_at': 1, last_decayed_at: 1 },
    sort: { 'doc.created_at': 1, uid: 1 },
  };
}

export function decayCandidateFromDocument(d: Document): DecayCandidateRow {
  return {
    uid: d.uid,
    salience: d.doc.salience,
    created_at: d.doc.created_at,
    updated_at: d.doc.updated_at,
    last_decayed_at: d.last_decayed_at ?? null,
  };
}

/** Nodes or edges tombstoned at or before the cut-off (null: all tombstoned), by uid. */
export function tombstonedQuery(org: string, cutoff: number | null): FindQuery {
  const tombstone: Document = { $ne: null };
  if (cutoff !== null) tombstone.$lte = cutoff;
  return { filter: { org, 'doc.tombstone_at': tombstone }, projection: { _id: 0, uid: 1 }, sort: { uid: 1 } };
}

/** Every row of the organization, uid only, by uid. */
export function allUidsQuery(org: string): FindQuery {
  return { filter: { org }, projection: { _id: 0, uid: 1 }, sort: { uid: 1 } };
}

// ---------- export ----------

/** "the node is exported": its org, and live unless tombstoned ones are asked for */
export function exportedNodeFilter(org: string, scope: SnapshotScope): Document {
  return scope.include_tombstoned ? { org } : { org, ...LIVE };
}

/** Keeps a row only when the node named by `field` is exported (a join on the nodes' org+uid index). */
function joinExportedNode(org: string, field: string, scope: SnapshotScope, as: string): Document[] {
  return [
    {
      $lookup: {
        from: GRAPH_COLLECTIONS.nodes,
        localField: field,
        foreignField: 'uid',
        pipeline: [{ $match: exportedNodeFilter(org, scope) }, { $limit: 1 }, { $project: { _id: 1 } }],
        as,
      },
    },
    { $match: { [as]: { $ne: [] } } },
  ];
}

/** A row of the nodes section as the snapshot writes it: the record, with its decay clock when set (as on SQLite). */
export function snapshotNodeFromDocument(d: Document): string {
  return snapshotNodeJson(JSON.stringify(d.doc), d.last_decayed_at ?? null);
}

export interface SectionPipeline {
  collection: keyof typeof GRAPH_COLLECTIONS;
  /** the rows in export order, with only the fields the snapshot writes */
  rows: Document[];
  /** the same rows, counted: [{ n }] or [] */
  count: Document[];
}

/**
 * The pipeline of one export section. Nodes: records oldest first. Edges: records oldest
 * first, both endpoints exported. Aliases, vectors, series points: those of exported nodes,
 * ordered as on SQLite.
 */
export function sectionPipeline(what: SnapshotSection, org: string, scope: SnapshotScope): SectionPipeline {
  // the first $match and $sort come first, where the org-prefixed indexes serve them; the joins follow
  const section = (collection: SectionPipeline['collection'], match: Document, joins: Document[], sort: Document, project: Document): SectionPipeline => ({
    collection,
    rows: [{ $match: match }, { $sort: sort }, ...joins, { $project: project }],
    count: [{ $match: match }, ...joins, { $count: 'n' }],
  });
  const records = { _id: 0, doc: 1 };
  switch (what) {
    case 'nodes':
      // with the decay clock, which the snapshot carries beside the record
      return section('nodes', exportedNodeFilter(org, scope), [], { 'doc.created_at': 1, uid: 1 }, { ...records, last_decayed_at: 1 });
    case 'edges':
      return section(
        'edges',
        scope.include_tombstoned ? { org } : { org, ...LIVE },
        [...joinExportedNode(org, 'doc.from_uid', scope, '_from'), ...joinExportedNode(org, 'doc.to_uid', scope, '_to')],
        { 'doc.created_at': 1, uid: 1 },
        records,
      );
    case 'aliases':
      return section('aliases', { org }, joinExportedNode(org, 'canonical_uid', scope, '_node'), { canonical_uid: 1, norm: 1 }, {
        _id: 0,
        text: 1,
        canonical_uid: 1,
        score: 1,
        created_at: 1,
      });
    case 'embeddings':
      return section('embeddings', { org }, joinExportedNode(org, 'uid', scope, '_node'), { uid: 1 }, { _id: 0, uid: 1, vector: 1 });
    case 'series_points':
      return section('seriesPoints', { org }, joinExportedNode(org, 'series_uid', scope, '_node'), { series_uid: 1, ts: 1 }, {
        _id: 0,
        series_uid: 1,
        ts: 1,
        value: 1,
        source_uid: 1,
        note: 1,
        recorded_at: 1,
      });
  }
}
