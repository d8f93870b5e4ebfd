import { NodeRecord } from '@strata/domain/records';
import { noteRecord, recordedEvent } from '../testing/projection-event-fixtures';
import { planTextWrites } from './text-writes';

const ev = recordedEvent;
const node = (uid: string, label: string, tombstoned = false): NodeRecord => noteRecord(uid, label, { tombstone_at: tombstoned ? 2 : null });

describe('planTextWrites', () => {
  it('sends runs of live nodes as one upsert holding each uid’s latest version', () => {
    const writes = planTextWrites([
      ev('NodeCreated', { node: node('a', 'first'), reason: null }),
      ev('NodeCreated', { node: node('b', 'bee'), reason: null }),
      ev('NodeUpdated', { node: node('a', 'second'), reason: null }),
    ]);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ kind: 'upsert' });
    expect((writes[0] as { docs: { uid: string; label: string }[] }).docs.map((d) => [d.uid, d.label])).toEqual([
      ['b', 'bee'],
      ['a', 'second'],
    ]);
  });

  it('keeps the order of upserts and removals of the same node', () => {
    const writes = planTextWrites([
      ev('NodeCreated', { node: node('a', 'x'), reason: null }),
      ev('NodeTombstoned', { node: node('a', 'x', true), reason: null }),
      ev('NodeTombstoned', { node: node('b', 'y', true), reason: null }),
      ev('NodeRestored', { node: node('a', 'x'), reason: null }),
    ]);
    expect(writes.map((w) => w.kind)).toEqual(['upsert', 'remove', 'upsert']);
    expect(writes[1]).toEqual({ kind: 'remove', org: 'o', uids: ['a', 'b'] });
  });

  it('removes purged nodes and whole organizations on clear, and ignores other events', () => {
    expect(
      planTextWrites([
        ev('GraphPurged', { node_uids: ['a'], edge_uids: ['e'], cutoff: null }),
        ev('GraphPurged', { node_uids: [], edge_uids: ['f'], cutoff: null }),
        ev('EdgeCreated', { edge: {}, reason: null }),
        ev('GraphCleared', { at: 1 }, 'p'),
      ]),
    ).toEqual([
      { kind: 'remove', org: 'o', uids: ['a'] },
      { kind: 'removeOrg', org: 'p' },
    ]);
  });
});
