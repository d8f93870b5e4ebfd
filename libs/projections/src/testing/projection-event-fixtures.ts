import { RecordedEvent, recordedEvent as fromLog } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';

let position = 0;

/** A recorded event at the next position of a test's log (stream and revision do not matter to projections). */
export function recordedEvent(type: string, data: unknown, org = 'o'): RecordedEvent {
  position++;
  return fromLog({
    id: `e${position}`,
    type,
    data,
    stream: 's',
    revision: 0,
    position,
    metadata: { org_id: org, principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: 1 },
  });
}

/** A live Note record at version 1, with fields overridden as given. */
export function noteRecord(uid: string, label: string, over: Partial<NodeRecord> = {}): NodeRecord {
  return {
    uid,
    label,
    summary: '',
    node_type: 'Note',
    layer: 'reality',
    confidence: 1,
    salience: 0.5,
    privacy_level: 'private',
    props: { _type: 'Note' },
    agent_id: null,
    created_at: 1,
    updated_at: 1,
    tombstone_at: null,
    tombstone_reason: null,
    tombstone_by: null,
    version: 1,
    ...over,
  };
}
