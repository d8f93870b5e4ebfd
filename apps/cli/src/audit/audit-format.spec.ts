import { AuditRecord } from '@strata/domain/audit/audit-record';
import { formatRecord, tableHeader } from './audit-format';

const rec: AuditRecord = {
  position: 7,
  at: '2025-03-01T00:00:00.000Z',
  org: 'o1',
  principal: 'api_key:k1',
  credential_id: 'k1',
  agent_id: 'planner',
  action: 'NodeTombstoned',
  kind: 'node',
  target: 'n-123',
  stream: 'node-o1:n-123',
  request_id: 'req-1',
  event_id: 'e',
};

describe('audit output', () => {
  it('lines table rows up under the header: the key used under VIA, the attributed agent apart', () => {
    const header = tableHeader();
    const row = formatRecord(rec, 'table');
    expect(row.indexOf('NodeTombstoned')).toBe(header.indexOf('ACTION'));
    expect(row.slice(header.indexOf('VIA'), header.indexOf('AGENT')).trim()).toBe('key:k1');
    expect(row.slice(header.indexOf('AGENT'), header.indexOf('ACTION')).trim()).toBe('planner');
    expect(row).not.toContain('agent:planner');
    expect(row.endsWith('req-1')).toBe(true);
  });

  it('never shows a claimed agent as the way a change came: a user JWT has no VIA', () => {
    const byUser = { ...rec, principal: 'user:u1', credential_id: null, agent_id: 'agent-007' };
    const header = tableHeader();
    const row = formatRecord(byUser, 'table');
    expect(row.slice(header.indexOf('VIA'), header.indexOf('AGENT')).trim()).toBe('-');
    expect(row.slice(header.indexOf('AGENT'), header.indexOf('ACTION')).trim()).toBe('agent-007');
  });

  it('cuts long cells with an ellipsis so columns stay aligned', () => {
    const row = formatRecord({ ...rec, principal: `user:${'x'.repeat(60)}` }, 'table');
    expect(row.indexOf('…')).toBeGreaterThan(0);
    expect(row.indexOf('NodeTombstoned')).toBe(tableHeader().indexOf('ACTION'));
  });

  it('writes one JSON object per line in jsonl', () => {
    expect(JSON.parse(formatRecord(rec, 'jsonl'))).toEqual(rec);
  });
});
