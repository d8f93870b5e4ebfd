import {
  allUidsQuery,
  decayCandidateFromDocument,
  decayCandidatesQuery,
  exportedNodeFilter,
  sectionPipeline,
  snapshotNodeFromDocument,
  tombstonedQuery,
} from './mongo-maintenance-queries';

describe('MongoDB maintenance queries', () => {
  describe('decay candidates', () => {
    it('selects the live nodes of the org in scope, oldest first, reading only the decay fields', () => {
      expect(decayCandidatesQuery('o', { layer: 'reality', node_types: ['Note', 'Goal'], uids: ['a', 'b'] })).toEqual({
        filter: { org: 'o', 'doc.tombstone_at': null, 'doc.layer': 'reality', 'doc.node_type': { $in: ['Note', 'Goal'] }, uid: { $in: ['a', 'b'] } },
        projection: { _id: 0, uid: 1, 'doc.salience': 1, 'doc.created_at': 1, 'doc.updated_at': 1, last_decayed_at: 1 },
        sort: { 'doc.created_at': 1, uid: 1 },
      });
    });

    it('leaves out the filters a scope does not set', () => {
      expect(decayCandidatesQuery('o', { layer: null, node_types: [] })!.filter).toEqual({ org: 'o', 'doc.tombstone_at': null });
    });

    it('reads nothing when the scope names an empty list of nodes', () => {
      expect(decayCandidatesQuery('o', { uids: [] })).toBeNull();
    });

    it('maps a document to a candidate row; a node never decayed has last_decayed_at null', () => {
      const doc = { uid: 'a', doc: { salience: 0.4, created_at: 10, updated_at: 20 } };
      expect(decayCandidateFromDocument(doc)).toEqual({ uid: 'a', salience: 0.4, created_at: 10, updated_at: 20, last_decayed_at: null });
      expect(decayCandidateFromDocument({ ...doc, last_decayed_at: 30 }).last_decayed_at).toBe(30);
    });
  });

  describe('purge and clear', () => {
    it('finds every tombstoned row without a cut-off, and those tombstoned at or before it with one', () => {
      expect(tombstonedQuery('o', null)).toEqual({ filter: { org: 'o', 'doc.tombstone_at': { $ne: null } }, projection: { _id: 0, uid: 1 }, sort: { uid: 1 } });
      expect(tombstonedQuery('o', 100).filter).toEqual({ org: 'o', 'doc.tombstone_at': { $ne: null, $lte: 100 } });
    });

    it('lists every uid of the org, tombstoned ones too', () => {
      expect(allUidsQuery('o').filter).toEqual({ org: 'o' });
    });
  });

  describe('export sections', () => {
    const live = { include_tombstoned: false };
    const all = { include_tombstoned: true };

    it('exports live nodes, or every node with include_tombstoned, oldest first, as stored records', () => {
      expect(exportedNodeFilter('o', live)).toEqual({ org: 'o', 'doc.tombstone_at': null });
      expect(exportedNodeFilter('o', all)).toEqual({ org: 'o' });
      const p = sectionPipeline('nodes', 'o', live);
      expect(p.collection).toBe('nodes');
      expect(p.rows).toEqual([{ $match: { org: 'o', 'doc.tombstone_at': null } }, { $sort: { 'doc.created_at': 1, uid: 1 } }, { $project: { _id: 0, doc: 1, last_decayed_at: 1 } }]);
      expect(p.count).toEqual([{ $match: { org: 'o', 'doc.tombstone_at': null } }, { $count: 'n' }]);
    });

    it("writes each node's record with its decay clock when it has one, as SQLite does (audit J3)", () => {
      const doc = { uid: 'a', label: 'x', salience: 0.2, props: { _type: 'Note' } };
      expect(snapshotNodeFromDocument({ doc })).toBe(JSON.stringify(doc));
      expect(snapshotNodeFromDocument({ doc, last_decayed_at: null })).toBe(JSON.stringify(doc));
      expect(JSON.parse(snapshotNodeFromDocument({ doc, last_decayed_at: 1_700_000_000.5 }))).toEqual({ ...doc, last_decayed_at: 1_700_000_000.5 });
    });

    it('keeps an edge only when both endpoints are exported nodes of the same org', () => {
      const p = sectionPipeline('edges', 'o', live);
      const lookups = p.rows.filter((s) => '$lookup' in s).map((s) => s.$lookup);
      expect(lookups.map((l) => [l.localField, l.foreignField, l.from])).toEqual([
        ['doc.from_uid', 'uid', 'nodes'],
        ['doc.to_uid', 'uid', 'nodes'],
      ]);
      for (const l of lookups) expect(l.pipeline[0]).toEqual({ $match: { org: 'o', 'doc.tombstone_at': null } });
      expect(p.rows).toContainEqual({ $match: { _from: { $ne: [] } } });
      expect(p.rows).toContainEqual({ $match: { _to: { $ne: [] } } });
      // sorted before the joins (index order), projected to the record after them
      expect(p.rows[1]).toEqual({ $sort: { 'doc.created_at': 1, uid: 1 } });
      expect(p.rows[p.rows.length - 1]).toEqual({ $project: { _id: 0, doc: 1 } });
      // the count applies the same joins
      expect(p.count.filter((s) => '$lookup' in s)).toHaveLength(2);
      expect(p.count[p.count.length - 1]).toEqual({ $count: 'n' });
    });

    it('exports tombstoned edges between tombstoned nodes only with include_tombstoned', () => {
      const p = sectionPipeline('edges', 'o', all);
      expect(p.rows[0]).toEqual({ $match: { org: 'o' } });
      expect(p.rows.filter((s) => '$lookup' in s).every((s) => JSON.stringify(s.$lookup.pipeline[0]) === JSON.stringify({ $match: { org: 'o' } }))).toBe(true);
    });

    it('exports aliases, vectors and series points of exported nodes only, in the SQLite order', () => {
      const join = (what: 'aliases' | 'embeddings' | 'series_points') => sectionPipeline(what, 'o', live).rows.find((s) => '$lookup' in s)!.$lookup.localField;
      expect(join('aliases')).toBe('canonical_uid');
      expect(join('embeddings')).toBe('uid');
      expect(join('series_points')).toBe('series_uid');
      expect(sectionPipeline('aliases', 'o', live).rows[1]).toEqual({ $sort: { canonical_uid: 1, norm: 1 } });
      expect(sectionPipeline('embeddings', 'o', live).rows[1]).toEqual({ $sort: { uid: 1 } });
      expect(sectionPipeline('series_points', 'o', live).rows[1]).toEqual({ $sort: { series_uid: 1, ts: 1 } });
      expect(sectionPipeline('series_points', 'o', live).collection).toBe('seriesPoints');
    });
  });
});
