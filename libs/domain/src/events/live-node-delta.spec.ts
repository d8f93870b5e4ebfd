import { NodeRecord } from '../records';
import { DomainEvent } from './domain-event';
import { liveNodeDelta } from './live-node-delta';

const node = (tombstone_at: number | null) => ({ tombstone_at }) as NodeRecord;

describe('liveNodeDelta', () => {
  it('counts a node becoming live or leaving it', () => {
    expect(liveNodeDelta({ type: 'NodeCreated', data: { node: node(null), reason: null } })).toBe(1);
    expect(liveNodeDelta({ type: 'NodeRestored', data: { node: node(null), reason: null } })).toBe(1);
    expect(liveNodeDelta({ type: 'NodeTombstoned', data: { node: node(5), reason: null } })).toBe(-1);
  });

  it('an imported node that arrives tombstoned is not live', () => {
    expect(liveNodeDelta({ type: 'NodeCreated', data: { node: node(5), reason: 'import' } })).toBe(0);
  });

  it('other events do not move the count', () => {
    const others: DomainEvent[] = [
      { type: 'NodeUpdated', data: { node: node(null), reason: null } },
      { type: 'NodeTouched', data: { uid: 'u' } },
      { type: 'AliasRemoved', data: { norm: 'n', canonical_uid: 'u' } },
      { type: 'GraphPurged', data: { node_uids: [], edge_uids: [], cutoff: null } },
      { type: 'GraphCleared', data: { at: 1 } },
    ];
    for (const e of others) expect(liveNodeDelta(e)).toBe(0);
  });
});
