import { ReadScope } from './read-scope';

describe('ReadScope.assertVisible', () => {
  it('lets everything through for organization-wide credentials', () => {
    expect(() => new ReadScope('org', null).assertVisible([{ field: 'keep_uid', uid: 'anything' }])).not.toThrow();
  });

  it('answers a uid outside the grants like a missing node: 404 not_found naming the first such field', () => {
    const scope = new ReadScope('org', new Set(['a']));
    expect(() => scope.assertVisible([{ field: 'keep_uid', uid: 'a' }])).not.toThrow();
    try {
      scope.assertVisible([
        { field: 'keep_uid', uid: 'a' },
        { field: 'merge_uid', uid: 'hidden' },
        { field: 'other_uid', uid: 'hidden-too' },
      ]);
      throw new Error('expected a 404');
    } catch (e: any) {
      expect({ status: e.status, code: e.code, ...e.context }).toEqual({ status: 404, code: 'not_found', field: 'merge_uid', uid: 'hidden' });
    }
  });
});
