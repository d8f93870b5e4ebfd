import { DomainError } from '@strata/domain/errors';
import { DomainEvent } from '@strata/domain/events';
import {
  classificationOf,
  GovernanceStreams,
  PolicyDecision,
  PolicyErrors,
  PolicyIndex,
  RequestFacts,
  requestFingerprint,
  WrittenNode,
} from '@strata/domain/governance';
import { decideCreateNode, GraphChanges } from '@strata/domain/graph';
import { NodeRecord } from '@strata/domain/records';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { GraphTx } from '../unit-of-work/graph-tx';
import { ProvenanceService } from '../scope/provenance.service';
import { spacedNodes } from '../scope/space-membership';
import { txMembership } from '../scope/space-write-rule';
import { wouldBeWritten } from './named-nodes';
import { PolicyService, requestPrincipal } from './policy.service';

const HOUR = 3600;
const NONE_PLACED: ReadonlyMap<string, string[]> = new Map();
const NO_POLICIES = new PolicyIndex([]);

/**
 * Structured policies on every governed request (REFERENCE §13.6), registered on the unit of
 * work after the Space rule: it sees each request's staged writes whatever route staged them,
 * once input, reference and access checks have passed, and (as a guard check) before a
 * handler's state guard. Governed: a graph write made for an HTTP request outside `/v1`, and
 * the writes a job makes for such a request (its `origin`); management routes are not.
 *
 * - allow: the request commits, with a `PolicyDecisionRecorded` when any policy matched;
 * - deny / require_approval: the request's writes are dropped and only the decision (and the
 *   Approval node) is appended, then it is answered 403;
 * - `X-Approval-Uid`: a replay of an approved request, used once, within the TTL.
 *
 * It also keeps request Approvals for owners and admins: the requester may not resolve its own.
 */
export class PolicyGate {
  constructor(
    private readonly policies: PolicyService,
    private readonly governance: GovernanceReadModel,
    private readonly provenance: ProvenanceService,
  ) {}

  readonly commit = async (tx: GraphTx): Promise<void> => {
    if (tx.refusal) return;
    const req = governedRequest(tx);
    if (!req) return;
    if (!tx.hasChanges()) {
      // a request whose job will write (synthesis) is judged now, on what it names and would create
      if (!tx.writesLater || req.background) return;
      const { nodes, placed } = wouldBeWritten(tx);
      return this.judge(tx, req, async () => nodes, false, placed);
    }
    const staged = tx.stagedEvents();
    if (!req.background) await this.guardApprovalResolution(tx, staged);
    await this.judge(tx, req, () => writtenNodes(tx, staged), false);
  };

  /**
   * Evaluation before the state guards (REFERENCE §13.6): when the handler refused the request
   * with a 409, the nodes the request names, and the node it was about to create (its type,
   * layer, classification and placement), are what it would have written. A deny or a
   * require_approval answers instead of the 409; an allow lets the 409 stand, nothing written.
   */
  readonly guard = async (tx: GraphTx): Promise<void> => {
    const req = governedRequest(tx);
    if (!req || req.background) return;
    const { nodes, placed } = wouldBeWritten(tx);
    await this.judge(tx, req, async () => nodes, true, placed);
  };

  /** `nodes`: the written nodes, read only when some policy or an approval needs them. */
  private async judge(tx: GraphTx, req: GovernedRequest, nodes: () => Promise<Map<string, NodeRecord>>, beforeGuard: boolean, placed: ReadonlyMap<string, string[]> = NONE_PLACED): Promise<void> {
    const org = tx.org;
    // a background write runs under the approval its request consumed; a replay names its own
    const approval = req.background ? req.approvalUid : req.approvalUid ? await this.usableApproval(tx, req) : null;
    const mode = this.policies.mode(org);
    const compiled = mode === 'off' ? NO_POLICIES : this.policies.index(org);
    if (!compiled.size && !approval) return;
    const facts = await this.factsOf(tx, req, await nodes(), compiled, placed);
    const decision = this.policies.evaluate(org, facts, { mode, compiled });
    for (const s of decision.shadow) if (s.effect !== 'allow') req.warnings.push(`299 - "shadow policy ${s.policy_uid} would ${s.effect}"`);
    const record = (extra: Parameters<PolicyService['decisionRecord']>[4] = {}) =>
      tx.emit(GovernanceStreams.governance(org), 'PolicyDecisionRecorded', this.policies.decisionRecord(org, tx.uuid(), decision, { ...facts, route: req.route }, extra));

    if (decision.effect === 'deny') {
      tx.refuseKeeping(PolicyErrors.denied(decision.deciding!));
      record();
      return;
    }
    const toolCall = tx.ctx.tool_call;
    if (decision.effect === 'require_approval' && toolCall) {
      // an agent's tool call: the runtime asks for a tool approval and calls again under it
      if (toolCall.approval_id) {
        record({ effect: 'allow', approval_uid: toolCall.approval_id, reason: 'approved' });
        return;
      }
      tx.refuseKeeping(PolicyErrors.toolApprovalRequired(decision.deciding!));
      record();
      return;
    }
    if (decision.effect === 'require_approval' && !approval) {
      if (req.background) {
        // nobody can replay a job's unit: it is refused, and the decision says so
        tx.refuseKeeping(backgroundApprovalRequired(decision.deciding!.uid, decision.deciding!.name));
        record({ reason: `${decision.deciding!.name} (a background write cannot be approved: approve the request that starts it)` });
        return;
      }
      const approvalUid = await this.approvalFor(tx, req, decision, facts);
      tx.refuseKeeping(PolicyErrors.approvalRequired(decision.deciding!.uid, approvalUid.uid));
      if (approvalUid.created) approvalUid.create();
      record({ approval_uid: approvalUid.uid, fingerprint: approvalUid.fingerprint });
      return;
    }
    // allowed: before a state guard, that guard answers and nothing is written
    if (beforeGuard) return;
    if (approval && !req.background) {
      // the approval is used now: one stream per approval, created once, so a concurrent second use fails
      tx.emit(GovernanceStreams.approvalUse(org, approval), 'PolicyApprovalConsumed', { org_id: org, approval_uid: approval, method: req.method, route: req.route, at: tx.now }, 'no_stream');
    }
    if (decision.matched || approval) record({ effect: 'allow', approval_uid: approval, reason: approval && decision.effect === 'require_approval' ? 'approved' : undefined });
  }

  /**
   * Facts of a governed request about its written nodes (REFERENCE §13.6); Spaces and
   * Projects only when a policy asks about them. `placed`: the Spaces of nodes not created yet.
   */
  private async factsOf(tx: GraphTx, req: GovernedRequest, nodes: Map<string, NodeRecord>, compiled: PolicyIndex, placed: ReadonlyMap<string, string[]>): Promise<RequestFacts> {
    const uids = [...nodes.keys()];
    const needSpaces = compiled.needsSpaces;
    const projectUids = compiled.projectUids;
    const spaces = needSpaces && uids.length ? await spacedNodes(txMembership(tx), uids) : new Map<string, { spaces: string[] }>();
    const projectsOf = new Map<string, string[]>();
    for (const p of projectUids) {
      const admitted = await this.provenance.admittedBy(tx.org, p);
      for (const u of uids) if (admitted.has(u)) projectsOf.set(u, [...(projectsOf.get(u) ?? []), p]);
    }
    const written: WrittenNode[] = uids.map((uid) => {
      const n = nodes.get(uid)!;
      return { uid, node_type: n.node_type, layer: n.layer, classification: classificationOf(n), spaces: spaces.get(uid)?.spaces ?? placed.get(uid) ?? [], projects: projectsOf.get(uid) ?? [] };
    });
    return { principal: requestPrincipal(tx.ctx.principal, tx.ctx.access), method: req.method, path: req.path, action: req.action, tool_uid: req.background ? null : toolOf(req.path, req.body()), written };
  }

  /** A pending Approval for the same request (same fingerprint) is reused; otherwise one is created. */
  private async approvalFor(tx: GraphTx, http: GovernedRequest, decision: PolicyDecision, facts: RequestFacts) {
    const fingerprint = requestFingerprint(http.method, http.path, http.body(), tx.ctx.principal.id);
    const conditions = JSON.stringify({ method: http.method, route: http.route, fingerprint });
    const pending = await tx.reader.listNodes(tx.org, { node_types: ['Approval'], props_equals: { conditions, status: 'pending' } }, { limit: 1, offset: 0 });
    if (pending.items.length) return { uid: pending.items[0].uid, fingerprint, created: false, create: () => undefined };
    let target: string | null = null;
    for (const n of facts.written) if (tx.storedNode(n.uid)) {
      target = n.uid;
      break;
    }
    const uid = tx.uuid();
    const create = () => {
      const node = decideCreateNode(
        {
          label: `Approval: ${decision.deciding!.name}`.slice(0, 500),
          node_type: 'Approval',
          props: { status: 'pending', target_type: 'request', target_uid: target, requested_at: tx.now, reason: decision.deciding!.name, conditions },
        },
        uid,
        tx.write,
      );
      tx.emit(GraphChanges.nodeCreated(tx.org, node, 'policy require_approval'));
    };
    return { uid, fingerprint, created: true, create };
  }

  /**
   * `X-Approval-Uid` (REFERENCE §13.6): a request Approval, approved for this very request,
   * not used yet, decided within `approval_ttl_hours`. Answers the approval's uid, or refuses.
   */
  private async usableApproval(tx: GraphTx, http: GovernedRequest): Promise<string> {
    const uid = http.approvalUid!;
    const node = await tx.reader.getNode(tx.org, uid);
    const row = this.governance.requestApproval(tx.org, uid);
    if (!node || node.tombstone_at !== null || node.node_type !== 'Approval' || !row)
      throw new DomainError(404, 'not_found', `approval ${uid} not found`, { field: 'X-Approval-Uid', uid });
    const p = node.props as Record<string, unknown>;
    if (p.status === 'denied') throw PolicyErrors.approvalDenied(uid);
    if (p.status !== 'approved') throw PolicyErrors.approvalRequired(row.policy_uid, uid);
    if (row.fingerprint !== requestFingerprint(http.method, http.path, http.body(), tx.ctx.principal.id)) throw PolicyErrors.approvalInvalid(uid, 'mismatch');
    if (row.consumed_at !== null) throw PolicyErrors.approvalInvalid(uid, 'consumed');
    const ttl = this.governance.settings(tx.org).settings.approval_ttl_hours * HOUR;
    const decidedAt = typeof p.decided_at === 'number' ? p.decided_at : node.updated_at;
    if (decidedAt + ttl < tx.now) throw PolicyErrors.approvalInvalid(uid, 'expired');
    return uid;
  }

  /** A request Approval leaves `pending` only by an owner or admin user who did not ask for it. */
  private async guardApprovalResolution(tx: GraphTx, staged: readonly DomainEvent[]): Promise<void> {
    for (const e of staged) {
      if (e.type !== 'NodeUpdated' || e.data.node.node_type !== 'Approval') continue;
      const before = tx.storedNode(e.data.node.uid);
      const bp = before?.props as Record<string, unknown> | undefined;
      if (!bp || bp.target_type !== 'request' || bp.status !== 'pending' || (e.data.node.props as Record<string, unknown>).status === 'pending') continue;
      const row = this.governance.requestApproval(tx.org, e.data.node.uid);
      if (row && row.principal_id === tx.ctx.principal.id) throw new DomainError(403, 'forbidden', 'the principal that asked for an approval cannot resolve it');
      const a = tx.ctx.access;
      if (a && !(a.credential === 'user_jwt' && (a.role === 'owner' || a.role === 'admin')) && a.credential !== 'system')
        throw new DomainError(403, 'insufficient_role', 'a request approval is resolved by an owner or admin user', { required_role: 'admin' });
    }
  }
}

/** What the gate judges: the HTTP request being served, or the one a background write is made for. */
interface GovernedRequest {
  method: string;
  path: string;
  route: string;
  action: string | null;
  body(): unknown;
  approvalUid: string | null;
  warnings: string[];
  background: boolean;
}

/** Governed: a graph write made for an HTTP request outside `/v1`, served now or left to a job. */
function governedRequest(tx: GraphTx): GovernedRequest | null {
  const http = tx.ctx.http;
  if (http) {
    if (isManagementPath(http.path)) return null;
    const body = http.body();
    const action = body && typeof body === 'object' && typeof (body as Record<string, unknown>).action === 'string' ? ((body as Record<string, unknown>).action as string) : null;
    return { method: http.method, path: http.path, route: http.route, action, body: http.body, approvalUid: http.approvalUid, warnings: http.warnings, background: false };
  }
  const o = tx.ctx.origin;
  if (!o || isManagementPath(o.path)) return null;
  return { method: o.method, path: o.path, route: o.route, action: o.action, body: () => undefined, approvalUid: o.approval_uid, warnings: [], background: true };
}

/**
 * Written nodes (REFERENCE §13.6): every node the request creates, updates, tombstones or
 * restores, and both endpoints of every edge it writes.
 */
async function writtenNodes(tx: GraphTx, staged: readonly DomainEvent[]): Promise<Map<string, NodeRecord>> {
  const nodes = new Map<string, NodeRecord>();
  const endpoints: string[] = [];
  for (const e of staged) {
    if (e.type === 'NodeCreated' || e.type === 'NodeUpdated' || e.type === 'NodeTombstoned' || e.type === 'NodeRestored') nodes.set(e.data.node.uid, e.data.node);
    else if (e.type === 'EdgeCreated' || e.type === 'EdgeUpdated' || e.type === 'EdgeTombstoned' || e.type === 'EdgeRestored') endpoints.push(e.data.edge.from_uid, e.data.edge.to_uid);
  }
  for (const uid of endpoints) {
    if (nodes.has(uid)) continue;
    const n = await tx.node(uid);
    if (n) nodes.set(uid, n);
  }
  return nodes;
}

/** A job's unit that a require_approval policy matches: refused, since no client can replay it. */
function backgroundApprovalRequired(policyUid: string, policyName: string): DomainError {
  return new DomainError(403, 'approval_required', `policy '${policyName}' requires an approval for this write, which a background job cannot ask for`, { policy_uid: policyUid, approval_uid: null });
}

/** `/v1` management routes are never governed (REFERENCE §13.6). */
function isManagementPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** The tool a request invokes: `/agent/execution start` with an `affordance_uid` (top level or in props). */
function toolOf(path: string, body: unknown): string | null {
  if (path !== '/agent/execution' || !body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (b.action !== 'start') return null;
  const props = b.props && typeof b.props === 'object' ? (b.props as Record<string, unknown>) : {};
  const uid = b.affordance_uid ?? props.affordance_uid;
  return typeof uid === 'string' ? uid : null;
}
