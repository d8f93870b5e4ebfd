import { diffRecords } from './diff';

describe('diffRecords', () => {
  it('lists changed, added and removed fields, props flattened, bookkeeping left out', () => {
    const v1 = { label: 'A', summary: null, version: 1, updated_at: 10, props: { _type: 'Claim', status: 'open', tags: ['x'] } };
    const v2 = { label: 'B', summary: 'now', version: 2, updated_at: 20, props: { _type: 'Claim', tags: ['x', 'y'], owner: 'ada' } };
    expect(diffRecords(v1, v2)).toEqual([
      { path: 'label', kind: 'changed', before: 'A', after: 'B' },
      { path: 'props.owner', kind: 'added', after: 'ada' },
      { path: 'props.status', kind: 'removed', before: 'open' },
      { path: 'props.tags', kind: 'changed', before: ['x'], after: ['x', 'y'] },
      { path: 'summary', kind: 'changed', before: null, after: 'now' },
    ]);
  });

  it('the first version has nothing to compare with', () => {
    expect(diffRecords(null, { label: 'A' })).toEqual([]);
  });

  it('equal versions differ in nothing', () => {
    expect(diffRecords({ a: { b: [1] } }, { a: { b: [1] } })).toEqual([]);
  });
});
