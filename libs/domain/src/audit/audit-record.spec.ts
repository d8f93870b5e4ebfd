import { RecordedEvent, StoredEvent, recordedEvent } from '../events';
import { streamCategory, targetOf, toAuditRecord } from './audit-record';

function ev(over: Partial<StoredEvent>): RecordedEvent {
  return recordedEvent({
    id: 'ev-1',
    stream: 'node-org1:n1',
    revision: 0,
    position: 42,
    type: 'NodeCreated',
    data: { node: { uid: 'n1' } },
    metadata: { org_id: 'org1', principal: { kind: 'user', id: 'u1' }, request_id: 'req-9', occurred_at: 1_700_000_000.25 },
    ...over,
  });
}

describe('toAuditRecord', () => {
  it('says who did what to which uid, when, under which request', () => {
    expect(toAuditRecord(ev({}))).toEqual({
      position: 42,
      at: '2023-11-14T22:13:20.250Z',
      org: 'org1',
      principal: 'user:u1',
      credential_id: null,
      agent_id: null,
      action: 'NodeCreated',
      kind: 'node',
      target: 'n1',
      stream: 'node-org1:n1',
      request_id: 'req-9',
      event_id: 'ev-1',
    });
  });

  it('takes identity from the metadata, never from the data', () => {
    const r = toAuditRecord(
      ev({
        data: { node: { uid: 'n1', agent_id: 'claimed-in-body' } },
        metadata: { org_id: 'org1', principal: { kind: 'api_key', id: 'k1' }, credential_id: 'k1', agent_id: 'agent-7', request_id: 'r', occurred_at: 0 },
      }),
    );
    expect(r).toMatchObject({ principal: 'api_key:k1', credential_id: 'k1', agent_id: 'agent-7' });
  });
});

describe('targetOf', () => {
  it.each([
    ['an edge record', { stream: 'edge-o:e1', data: { edge: { uid: 'e1' } } }, 'e1'],
    ['a touched node', { stream: 'node-o:n2', data: { uid: 'n2', salience: 0.3 } }, 'n2'],
    ['an alias', { stream: 'node-o:n3', data: { canonical_uid: 'n3', text: 'x' } }, 'n3'],
    ['series points', { stream: 'series-o:s1', data: { series_uid: 's1', points: [] } }, 's1'],
    ['an API key', { stream: 'apikey-k9', data: { key_id: 'k9', org_id: 'o' } }, 'k9'],
    ['a new member', { stream: 'org-o', data: { org_id: 'o', user_id: 'u5' } }, 'u5'],
    ['a graph-wide fact, by its stream', { stream: 'job-o:j1', data: { status: 'done' } }, 'j1'],
  ])('finds the object of %s', (_what, e, want) => {
    expect(targetOf(e)).toBe(want);
  });

  it('is null for graph-wide events without an object', () => {
    expect(targetOf({ stream: 'graph-o', data: { at: 1 } })).toBeNull();
  });
});

describe('streamCategory', () => {
  it('is the text before the first dash', () => {
    expect(streamCategory('apikey-123')).toBe('apikey');
    expect(streamCategory('node-o-with-dash:uid')).toBe('node');
  });
});
