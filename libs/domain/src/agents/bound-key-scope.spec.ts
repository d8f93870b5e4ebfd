import { boundKeyScope } from './bound-key-scope';

describe('boundKeyScope', () => {
  const open = { space_uids: null, project_uids: null };

  it('leaves the key as it is when the agent has no scope', () => {
    const key = { space_uids: ['s1'], project_uids: null };
    expect(boundKeyScope(key, {})).toBe(key);
    expect(boundKeyScope(open, {})).toBe(open);
  });

  it('gives an unrestricted key the agent’s lists, an empty list included', () => {
    expect(boundKeyScope(open, { project_uids: ['p1'] })).toEqual({ space_uids: null, project_uids: ['p1'] });
    expect(boundKeyScope(open, { space_uids: [] })).toEqual({ space_uids: [], project_uids: null });
  });

  it('intersects the lists of a kind both sides restrict, and never widens the key', () => {
    expect(boundKeyScope({ space_uids: null, project_uids: ['p1', 'p2'] }, { project_uids: ['p2', 'p3'] })).toEqual({ space_uids: null, project_uids: ['p2'] });
    expect(boundKeyScope({ space_uids: ['s1'], project_uids: ['p1'] }, { space_uids: ['s1', 's2'], project_uids: ['p9'] })).toEqual({ space_uids: ['s1'], project_uids: [] });
  });

  it('drops a kind only one side lists: a Space-scoped key bound to a Project-scoped agent reaches nothing either could not', () => {
    expect(boundKeyScope({ space_uids: ['s1'], project_uids: null }, { project_uids: ['p1'] })).toEqual({ space_uids: [], project_uids: [] });
  });
});
