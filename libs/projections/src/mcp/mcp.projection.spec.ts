import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventMetadata, eventFromLog } from '@strata/domain/events';
import { McpConnectionCreatedData, McpStreams, McpToolDef, ToolApprovalRecord, ToolApprovalStreams } from '@strata/domain/mcp';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { AccountsMirror } from '../accounts/accounts-mirror';
import { McpProjection } from './mcp.projection';
import { McpReadModel } from './mcp-read-model';

const meta: EventMetadata = { org_id: 'o1', principal: { kind: 'user', id: 'u1' }, request_id: 'r', occurred_at: 1 };
const tool = (name: string, hash: string): McpToolDef => ({ name, title: null, description: 'd', input_schema: { type: 'object' }, output_schema: null, annotations: null, hash, warnings: [] });
const created: McpConnectionCreatedData = {
  org_id: 'o1', connection_id: 'c1', name: 'Tools', slug: 'tools', url: 'https://t.example/mcp', status: 'active',
  auth: { type: 'none', configured: true, hint: null, header_names: [], credential_fingerprint: null, oauth: null }, approval_mode: 'always', tool_approvals: {},
  approval_timeout_s: 3600, call_timeout_s: 60, protocol_version: '2025-11-25', server_info: null, instructions: null, authorization_expires_at: null, created_by: 'u1', at: 10,
};
const base = { org_id: 'o1', connection_id: 'c1', sync_id: 's1', at: 10 };
const drift = { id: 'd1', kind: 'changed' as const, changed_fields: ['description'], previous_hash: 'h1', hash: 'h2', previous: null, current: null };
const events = [
  eventFromLog('McpConnectionCreated', created),
  eventFromLog('McpToolAdded', { ...base, tool: tool('a', 'h1'), affordance_uid: 'aff-a', drift: null }),
  eventFromLog('McpConnectionSynced', { ...base, started_at: 10, completed_at: 10, tools_count: 1, added: ['a'], changed: [], removed: [], baseline: true, protocol_version: '2025-11-25', server_info: null, instructions: null }),
  eventFromLog('McpToolChanged', { ...base, sync_id: 's2', at: 20, tool: tool('a', 'h2'), drift }),
  eventFromLog('McpDriftAcknowledged', { org_id: 'o1', connection_id: 'c1', tools: [{ name: 'a', hash: 'h2' }], acknowledged_by: 'u1', at: 30 }),
];

const approval: ToolApprovalRecord = {
  id: 'ap1', org_id: 'o1', status: 'pending', kind: 'mcp_tool', connection_id: 'c1', connection_name: 'Tools', tool_name: 'a', model_name: 'mcp__tools__a', affordance_uid: 'aff-a',
  arguments: { x: 1 }, reasons: [{ source: 'connection_mode' }], agent_id: 'ag', agent_name: 'A', session_id: 's', run_id: 'r', tool_call_id: 'tc', requested_at: 40, expires_at: 100,
  resolved_at: null, resolved_by: null, resolution_reason: null, scope: 'once',
};
const approvalBase = { org_id: 'o1', approval_id: 'ap1', agent_id: 'ag', session_id: 's', run_id: 'r', tool_call_id: 'tc', connection_id: 'c1' };
const approvalEvents = [
  eventFromLog('ToolApprovalRequested', { ...approvalBase, at: 40, approval }),
  eventFromLog('ToolApprovalResolved', { ...approvalBase, at: 50, status: 'approved', resolved_by: { kind: 'user', id: 'u1' }, reason: 'ok', scope: 'session' }),
  // a settled approval stays as it is
  eventFromLog('ToolApprovalExpired', { ...approvalBase, at: 100 }),
  // another agent's, still pending in the log
  eventFromLog('ToolApprovalRequested', { ...approvalBase, approval_id: 'ap2', agent_id: 'ag2', at: 60, approval: { ...approval, id: 'ap2', agent_id: 'ag2', requested_at: 60, expires_at: 120 } }),
];

function check(reads: McpReadModel) {
  expect(reads.approval('o1', 'ap1')).toEqual({ ...approval, status: 'approved', resolved_at: 50, resolved_by: { kind: 'user', id: 'u1' }, resolution_reason: 'ok', scope: 'session' });
  expect(reads.sessionApproved('s', 'c1', 'a')).toBe(true);
  expect(reads.dueApprovals(119, 10)).toEqual([]);
  expect(reads.approvals('o1', { kind: 'mcp_tool', agent_id: 'ag', limit: 10, offset: 0 }, 1000).items.map((a) => a.id)).toEqual(['ap1']);
  // a pending approval counts as expired in the filters from its expires_at on, before any expiry event
  const ids = (status: string, now: number) => reads.approvals('o1', { kind: 'all', status, limit: 10, offset: 0 }, now).items.map((a) => a.id);
  expect([ids('pending', 119), ids('expired', 119)]).toEqual([['ap2'], []]);
  expect([ids('pending', 120), ids('expired', 120), ids('approved', 120)]).toEqual([[], ['ap2'], ['ap1']]);
  expect(reads.pendingApprovals('o1', { agent_id: 'ag2' }, 119).map((a) => a.id)).toEqual(['ap2']);
  expect(reads.pendingApprovals('o1', { agent_id: 'ag2' }, 120)).toEqual([]);
  expect(reads.dueApprovals(120, 10).map((a) => a.id)).toEqual(['ap2']);
  const c = reads.connection('o1', 'c1')!;
  expect(c).toMatchObject({ name: 'Tools', status: 'active', last_sync_id: 's1', tools_count: 1, unacknowledged_drift_count: 0, updated_at: 30 });
  expect(reads.tool('o1', 'c1', 'a')).toMatchObject({ hash: 'h2', approved_hash: 'h2', drift_state: 'clean', changed_at: 20, affordance_uid: 'aff-a' });
  expect(reads.drift('o1', { connectionIds: null, since: null, limit: 10 }).items).toMatchObject([{ id: 'd1', tool_name: 'a', acknowledged_at: 30, acknowledged_by: 'u1' }]);
}

describe('the MCP projection', () => {
  it('applies connection, tool, drift, acknowledgement and approval events on SQLite', () => {
    const db = new Database(':memory:');
    const p = new McpProjection(db);
    events.forEach((e, i) => p.apply({ ...e, metadata: meta, id: `e${i}`, stream: McpStreams.connection('o1', 'c1'), revision: i, position: i + 1 }));
    approvalEvents.forEach((e, i) => p.apply({ ...e, metadata: meta, id: `a${i}`, stream: ToolApprovalStreams.approval('o1', 'ap1'), revision: i, position: 100 + i }));
    check(new McpReadModel(db));
    p.reset();
    expect(new McpReadModel(db).connection('o1', 'c1')).toBeNull();
  });

  it('runs in the servers-mode mirror, fed from the log', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-mcp-mirror-'));
    const log = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
    await log.append([{ stream: McpStreams.connection('o1', 'c1'), expectedRevision: 'no_stream', events: events.map((e) => ({ ...e, metadata: meta })) }]);
    await log.append([{ stream: ToolApprovalStreams.approval('o1', 'ap1'), expectedRevision: 'no_stream', events: approvalEvents.map((e) => ({ ...e, metadata: meta })) }]);
    const mirror = new AccountsMirror(log);
    try {
      await mirror.start();
      check(mirror.mcpReadModel);
    } finally {
      await mirror.close();
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
