import { combine, edgeFilterToMongo, escapeRegex, nodeFilterToMongo, NODE_SORT, propsClauses, seriesFilterToMongo } from './mongo-filters';

describe('nodeFilterToMongo', () => {
  it('scopes to the organization and hides tombstoned nodes by default', () => {
    expect(nodeFilterToMongo('o', {})).toEqual({ org: 'o', 'doc.tombstone_at': null });
  });

  it('includes or selects tombstoned nodes on request', () => {
    expect(nodeFilterToMongo('o', { include_tombstoned: true })).toEqual({ org: 'o' });
    expect(nodeFilterToMongo('o', { only_tombstoned: true })).toEqual({ org: 'o', 'doc.tombstone_at': { $ne: null } });
    expect(nodeFilterToMongo('o', { include_tombstoned: true, tombstoned_before: 50 })).toEqual({ org: 'o', 'doc.tombstone_at': { $lte: 50 } });
  });

  it('keeps every clause when two constrain the same field', () => {
    expect(nodeFilterToMongo('o', { only_tombstoned: true, tombstoned_before: 50 })).toEqual({
      org: 'o',
      'doc.tombstone_at': { $ne: null },
      $and: [{ 'doc.tombstone_at': { $lte: 50 } }],
    });
    expect(nodeFilterToMongo('o', { created_after: 1, created_before: 2, confidence_lt: 0.5, confidence_min: 0.1 })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      'doc.created_at': { $gte: 1 },
      'doc.confidence': { $lt: 0.5 },
      $and: [{ 'doc.created_at': { $lte: 2 } }, { 'doc.confidence': { $gte: 0.1 } }],
    });
  });

  it('translates every field filter', () => {
    expect(
      nodeFilterToMongo('o', {
        node_types: ['Goal', 'Task'],
        exclude_node_types: ['Chunk'],
        layer: 'intent',
        agent_id: 'ag',
        privacy_level: 'shared',
        label_norm: 'ada',
        salience_min: 0.3,
        uids: ['a', 'b'],
      }),
    ).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      'doc.node_type': { $in: ['Goal', 'Task'] },
      'doc.layer': 'intent',
      'doc.agent_id': 'ag',
      'doc.privacy_level': 'shared',
      label_norm: 'ada',
      'doc.salience': { $gte: 0.3 },
      uid: { $in: ['a', 'b'] },
      $and: [{ 'doc.node_type': { $nin: ['Chunk'] } }],
    });
  });

  it('matches nothing for an empty uid list, and ignores empty type lists', () => {
    expect(nodeFilterToMongo('o', { uids: [], node_types: [], exclude_node_types: [] })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      uid: { $in: [] },
    });
  });

  it('finds a label substring case-insensitively, with regex characters taken literally', () => {
    expect(nodeFilterToMongo('o', { label_contains: 'C++ (Draft)' })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      label_lower: { $regex: 'c\\+\\+ \\(draft\\)' },
    });
    expect(new RegExp(escapeRegex('a.b*[c]$')).test('xa.b*[c]$y')).toBe(true);
    expect(new RegExp(escapeRegex('a.b')).test('axb')).toBe(false);
  });
});

describe('propsClauses', () => {
  it('matches null or absent for a null value, and a scalar value exactly (never an array element)', () => {
    expect(propsClauses({ status: null, priority: 'high' })).toEqual([
      { 'doc.props.status': null },
      { 'doc.props.priority': { $eq: 'high' } },
      { 'doc.props.priority': { $not: { $type: 'array' } } },
    ]);
  });

  it('translates one-of lists, null in the list meaning null or absent, an empty list meaning nothing', () => {
    expect(propsClauses(undefined, { status: ['open', null] })).toEqual([
      { 'doc.props.status': { $in: ['open', null] } },
      { 'doc.props.status': { $not: { $type: 'array' } } },
    ]);
    expect(propsClauses(undefined, { status: [null] })).toEqual([{ 'doc.props.status': { $in: [null] } }]);
    expect(propsClauses(undefined, { status: [] })).toEqual([{ uid: { $in: [] } }]);
  });

  it('refuses a field name that is a path or an operator', () => {
    expect(() => propsClauses({ 'a.b': 1 })).toThrow('unsafe props field');
    expect(() => propsClauses(undefined, { $where: [1] })).toThrow('unsafe props field');
  });
});

describe('edgeFilterToMongo', () => {
  it('scopes to the organization and hides tombstoned edges by default', () => {
    expect(edgeFilterToMongo('o', {})).toEqual({ org: 'o', 'doc.tombstone_at': null });
    expect(edgeFilterToMongo('o', { include_tombstoned: true })).toEqual({ org: 'o' });
  });

  it('translates endpoints, touching, types and the cascade reason', () => {
    expect(
      edgeFilterToMongo('o', { from_uid: 'a', to_uid: 'b', edge_types: ['Supports'], tombstone_reason: 'cascade:a', include_tombstoned: true }),
    ).toEqual({ org: 'o', 'doc.from_uid': 'a', 'doc.to_uid': 'b', 'doc.edge_type': { $in: ['Supports'] }, 'doc.tombstone_reason': 'cascade:a' });
    expect(edgeFilterToMongo('o', { touching: 'a' })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      $or: [{ 'doc.from_uid': 'a' }, { 'doc.to_uid': 'a' }],
    });
  });

  it('requires both endpoints in the set for among, and matches nothing for an empty set', () => {
    expect(edgeFilterToMongo('o', { among: ['a', 'b'] })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      'doc.from_uid': { $in: ['a', 'b'] },
      'doc.to_uid': { $in: ['a', 'b'] },
    });
    expect(edgeFilterToMongo('o', { among: [] })).toBeNull();
  });

  it('filters edge props like node props', () => {
    expect(edgeFilterToMongo('o', { props_equals: { role: 'x' } })).toEqual({
      org: 'o',
      'doc.tombstone_at': null,
      'doc.props.role': { $eq: 'x' },
      $and: [{ 'doc.props.role': { $not: { $type: 'array' } } }],
    });
  });
});

describe('orders and series', () => {
  it('breaks every order’s ties by uid ascending, like SQLite', () => {
    for (const sort of Object.values(NODE_SORT)) expect(Object.entries(sort).pop()).toEqual(['uid', 1]);
    expect(NODE_SORT.salience_desc).toEqual({ 'doc.salience': -1, 'doc.updated_at': -1, uid: 1 });
  });

  it('selects series points in [start, end)', () => {
    expect(seriesFilterToMongo('o', 's', {})).toEqual({ org: 'o', series_uid: 's' });
    expect(seriesFilterToMongo('o', 's', { start: 1, end: 5 })).toEqual({ org: 'o', series_uid: 's', ts: { $gte: 1, $lt: 5 } });
  });

  it('combines clauses on distinct keys into one document', () => {
    expect(combine([{ a: 1 }, { b: 2 }, { a: 3 }])).toEqual({ a: 1, b: 2, $and: [{ a: 3 }] });
  });
});
