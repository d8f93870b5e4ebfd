import { RecordedEvent } from '../events';

/** REFERENCE §13.8. */
export type GovernanceAuditKind =
  | 'policy_decision'
  | 'approval_requested'
  | 'approval_resolved'
  | 'approval_consumed'
  | 'execution_started'
  | 'execution_finished'
  | 'governance_change';
export const GOVERNANCE_AUDIT_KINDS: readonly GovernanceAuditKind[] = [
  'policy_decision',
  'approval_requested',
  'approval_resolved',
  'approval_consumed',
  'execution_started',
  'execution_finished',
  'governance_change',
];

export interface GovernanceAuditDecision {
  effect: string;
  enforced: boolean;
  policy_uids: string[];
  shadow: { policy_uid: string; effect: string }[];
  reason: string | null;
}

/** One governance audit record: one event of the kinds of §13.8, with its id and global position. */
export interface GovernanceAuditRecord {
  id: string;
  position: number;
  kind: GovernanceAuditKind;
  event_type: string;
  /** ISO 8601 */
  occurred_at: string;
  principal: { kind: string; id: string };
  credential_id: string | null;
  agent_id: string | null;
  request_id: string;
  method: string | null;
  route: string | null;
  tool_uid: string | null;
  target_uids: string[];
  subject_uid: string | null;
  status: string | null;
  decision: GovernanceAuditDecision | null;
}

const GOVERNANCE_CHANGES: ReadonlySet<string> = new Set([
  'PolicyCreated',
  'PolicyUpdated',
  'PolicyStatusChanged',
  'GovernanceSettingsChanged',
  'GovernanceSynced',
  'SpaceGrantSet',
  'SpaceGrantRevoked',
  'ProjectGrantSet',
  'ProjectGrantRevoked',
  'AgentToolGranted',
  'AgentToolRevoked',
]);

/** The last status seen of each Approval and Execution: "leaving pending" needs the one before. */
export interface AuditStatusMemory {
  get(org: string, uid: string): string | null | undefined;
  set(org: string, uid: string, status: string | null): void;
}

export function mapStatusMemory(): AuditStatusMemory {
  const m = new Map<string, string | null>();
  return { get: (o, u) => m.get(`${o}\u0000${u}`), set: (o, u, s) => void m.set(`${o}\u0000${u}`, s) };
}

type Fields = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * The governance audit record of an event, or null when it is of no audited kind. The same
 * function feeds the audit projection and `strata audit replay --governance`, so both agree
 * record for record. Identity comes from the metadata only.
 */
export function governanceAuditRecord(e: RecordedEvent, memory: AuditStatusMemory): GovernanceAuditRecord | null {
  const d = (e.data ?? {}) as unknown as Fields;
  const org = e.metadata?.org_id ?? '';
  const base = (kind: GovernanceAuditKind, extra: Partial<GovernanceAuditRecord>): GovernanceAuditRecord => ({
    id: e.id,
    position: e.position,
    kind,
    event_type: e.type,
    occurred_at: new Date(Math.round((e.metadata?.occurred_at ?? 0) * 1000)).toISOString(),
    principal: { kind: e.metadata?.principal?.kind ?? 'unknown', id: e.metadata?.principal?.id ?? 'unknown' },
    credential_id: e.metadata?.credential_id ?? null,
    agent_id: e.metadata?.agent_id ?? null,
    request_id: e.metadata?.request_id ?? '',
    method: null,
    route: null,
    tool_uid: null,
    target_uids: [],
    subject_uid: null,
    status: null,
    decision: null,
    ...extra,
  });
  if (e.type === 'NodeCreated' || e.type === 'NodeUpdated' || e.type === 'NodeRestored' || e.type === 'NodeTombstoned') {
    const node = d.node as { uid: string; node_type: string; props: Fields } | undefined;
    if (!node || (node.node_type !== 'Approval' && node.node_type !== 'Execution')) return null;
    const status = str(node.props?.status);
    const before = memory.get(org, node.uid);
    memory.set(org, node.uid, status);
    const p = node.props ?? {};
    if (node.node_type === 'Approval') {
      const targets = str(p.target_uid) ? [p.target_uid as string] : [];
      if (e.type === 'NodeCreated') return base('approval_requested', { subject_uid: node.uid, status, target_uids: targets });
      if (e.type === 'NodeUpdated' && before === 'pending' && status !== 'pending') return base('approval_resolved', { subject_uid: node.uid, status, target_uids: targets });
      return null;
    }
    const tool = str(p.affordance_uid);
    if (e.type === 'NodeCreated') return base('execution_started', { subject_uid: node.uid, status, tool_uid: tool });
    if (e.type === 'NodeUpdated' && (status === 'completed' || status === 'failed') && before !== status) return base('execution_finished', { subject_uid: node.uid, status, tool_uid: tool });
    return null;
  }
  if (e.type === 'PolicyDecisionRecorded') {
    return base('policy_decision', {
      method: str(d.method),
      route: str(d.route),
      tool_uid: str(d.tool_uid),
      target_uids: Array.isArray(d.target_uids) ? (d.target_uids as string[]) : [],
      subject_uid: str(d.approval_uid),
      decision: {
        effect: String(d.effect),
        enforced: d.enforced === true,
        policy_uids: Array.isArray(d.policy_uids) ? (d.policy_uids as string[]) : [],
        shadow: Array.isArray(d.shadow) ? (d.shadow as GovernanceAuditDecision['shadow']) : [],
        reason: str(d.reason),
      },
    });
  }
  if (e.type === 'PolicyApprovalConsumed') return base('approval_consumed', { subject_uid: str(d.approval_uid), method: str(d.method), route: str(d.route), status: 'consumed' });
  if (!GOVERNANCE_CHANGES.has(e.type)) return null;
  const policy = d.policy as { uid?: string; status?: string } | undefined;
  if (policy) return base('governance_change', { subject_uid: policy.uid ?? null, status: policy.status ?? null });
  if (str(d.space_uid)) return base('governance_change', { subject_uid: d.space_uid as string, target_uids: str(d.principal_uid) ? [d.principal_uid as string] : [] });
  if (str(d.project_uid)) return base('governance_change', { subject_uid: d.project_uid as string, target_uids: str(d.principal_uid) ? [d.principal_uid as string] : [] });
  if (str(d.agent_id)) return base('governance_change', { subject_uid: `agent:${d.agent_id as string}`, target_uids: str(d.affordance_uid) ? [d.affordance_uid as string] : [] });
  return base('governance_change', {});
}
