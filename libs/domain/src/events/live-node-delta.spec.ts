import { liveNodeDelta } from './live-node-delta';

describe('liveNodeDelta', () => {
  it('counts a node becoming live or leaving it', () => {
    expect(liveNodeDelta('NodeCreated', { node: { tombstone_at: null }, reason: null })).toBe(1);
    expect(liveNodeDelta('NodeRestored', { node: { tombstone_at: null }, reason: null })).toBe(1);
    expect(liveNodeDelta('NodeTombstoned', { node: { tombstone_at: 5 }, reason: null })).toBe(-1);
  });

  it('an imported node that arrives tombstoned is not live', () => {
    expect(liveNodeDelta('NodeCreated', { node: { tombstone_at: 5 }, reason: 'import' })).toBe(0);
  });

  it('other events do not move the count', () => {
    for (const t of ['NodeUpdated', 'NodeTouched', 'EdgeCreated', 'AliasSet', 'SeriesPointsAppended', 'GraphPurged', 'GraphCleared'])
      expect(liveNodeDelta(t, {})).toBe(0);
  });
});
