import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecordedEvent } from '@strata/domain/events';
import { AuditProjection } from '@strata/projections/governance/audit.projection';
import { AuditReadModel } from '@strata/projections/governance/audit-read-model';

const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const PAGES = 300;

/**
 * GET /v1/governance/audit over a log of 1,000,000 audited events: the audit projection is
 * filled through its own `apply` (one org, decisions naming 20 policies, approvals and
 * governance changes), on a file database like projections.db; then pages of 50 are read at
 * random depths, following the position keyset as the route's cursor does, newest first, with
 * and without a policy filter. Measures the read model's page (SQL and JSON), not HTTP.
 */
export async function run(): Promise<Record<string, number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-audit-bench-'));
  const db = new Database(path.join(dir, 'projections.db'));
  db.pragma('journal_mode = WAL');
  try {
    const projection = new AuditProjection(db);
    const t0 = performance.now();
    const policies = Array.from({ length: 20 }, (_, i) => `policy-${i}`);
    const fill = db.transaction((from: number, to: number) => {
      for (let p = from; p < to; p++) projection.apply(eventAt(p, policies));
    });
    for (let p = 1; p <= EVENTS; p += 50_000) fill(p, Math.min(EVENTS + 1, p + 50_000));
    const fillSeconds = (performance.now() - t0) / 1000;
    const model = new AuditReadModel(db);
    const timed = (filter: { policy_uid?: string; kinds?: string[] }) => {
      const times: number[] = [];
      for (let i = 0; i < PAGES; i++) {
        const start = i === 0 ? null : 1 + Math.floor(((i * 7919) % PAGES) / PAGES * EVENTS);
        const t = performance.now();
        const page = model.page('org-1', { ...filter, order: 'desc' }, start, 50);
        times.push(performance.now() - t);
        if (!page.items.length && start !== null && start > 100) throw new Error('empty page');
      }
      times.sort((a, b) => a - b);
      return { p50: round(times[Math.floor(times.length / 2)]), p99: round(times[Math.floor(times.length * 0.99)]) };
    };
    const plain = timed({});
    const byPolicy = timed({ policy_uid: 'policy-7' });
    const byKind = timed({ kinds: ['approval_requested'] });
    return {
      events: EVENTS,
      fill_events_per_s: Math.round(EVENTS / fillSeconds),
      page_p50_ms: plain.p50,
      page_p99_ms: plain.p99,
      policy_filter_page_p50_ms: byPolicy.p50,
      kind_filter_page_p50_ms: byKind.p50,
    };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** A synthetic audited event: mostly decisions, then approvals and governance changes. */
function eventAt(position: number, policies: string[]): RecordedEvent {
  const metadata = { org_id: 'org-1', principal: { kind: 'user' as const, id: `user-${position % 50}` }, credential_id: null, agent_id: null, request_id: `r${position}`, occurred_at: 1_900_000_000 + position };
  const base = { id: `e${position}`, revision: 0, position, metadata };
  if (position % 10 === 0)
    return { ...base, stream: `node-org-1:a${position}`, type: 'NodeCreated', data: { node: { uid: `a${position}`, node_type: 'Approval', props: { status: 'pending', target_uid: `n${position}` } }, reason: null } } as unknown as RecordedEvent;
  if (position % 10 === 1)
    return { ...base, stream: `policy-org-1:${policies[position % 20]}`, type: 'PolicyUpdated', data: { org_id: 'org-1', policy: { uid: policies[position % 20], status: 'published' }, changed_fields: ['name'] } } as unknown as RecordedEvent;
  return {
    ...base,
    stream: 'governance-org-1',
    type: 'PolicyDecisionRecorded',
    data: {
      org_id: 'org-1', decision_id: `d${position}`, method: 'POST', route: '/node', tool_uid: null, target_uids: [`n${position}`],
      effect: position % 3 ? 'allow' : 'deny', enforced: position % 3 === 0, policy_uids: position % 3 ? [] : [policies[position % 20]],
      shadow: [{ policy_uid: policies[(position + 3) % 20], effect: 'deny' }], approval_uid: null, reason: null,
    },
  } as unknown as RecordedEvent;
}
