import { Inject, Injectable } from '@nestjs/common';
import { DomainError, Errors } from '@strata/domain/errors';
import { GovernanceStreams, PolicyDecision, RequestFacts, classificationOf } from '@strata/domain/governance';
import { decideCreateNode, decideMirrorVersion, GraphChanges } from '@strata/domain/graph';
import {
  BUILTIN_APPROVAL_TIMEOUT_S,
  ResolveInput,
  ToolApprovalCancelReason,
  ToolApprovalReason,
  ToolApprovalRecord,
  ToolApprovalStreams,
  ToolCallVerdict,
  approvalAt,
  approvalNodeResolution,
  decideCancel,
  decideExpire,
  decideResolve,
  decideToolCall,
  settledApproval,
} from '@strata/domain/mcp';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { PolicyService } from '@strata/platform/policy/policy.service';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { createEdge } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ApprovalFilter, McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { AgentMcpTool } from '../tools/agent-tool-source.port';

/** What governance decided about one MCP call, and what to record of it. */
export interface GovernedCall {
  verdict: ToolCallVerdict;
  /** staged with the call's outcome: `PolicyDecisionRecorded` when a policy matched */
  record(tx: GraphTx, approvalUid: string | null): void;
}

/** A call for which an approval is asked. */
export interface ApprovalRequest {
  agent: { id: string; name: string };
  session_id: string;
  run_id: string;
  tool_call_id: string;
  tool: AgentMcpTool;
  arguments: unknown;
  reasons: ToolApprovalReason[];
}

function reasonText(reasons: ToolApprovalReason[], policyName: (uid: string) => string | null): string {
  return reasons
    .map((r) => (r.source === 'policy' ? `policy ${policyName(r.policy_uid!) ?? r.policy_uid}` : r.source === 'connection_mode' ? 'the connection asks approval for every call' : r.source === 'per_tool' ? 'the connection asks approval for this tool' : 'the tool changed since it was approved'))
    .join('; ');
}

/**
 * Tool-call approvals (REFERENCE §15.10): the governance of an agent's MCP call (policies
 * first, then the connection's approval mode, unless a session-scoped approval covers the
 * tool), the Approval record with its Approval node (Affordance → Approval RequiresApproval),
 * and its one settlement: resolved by a person, expired, or cancelled. Each settlement is
 * appended at the approval stream's first revision, so only one of them ever lands.
 */
@Injectable()
export class ToolApprovals {
  constructor(
    private readonly reads: McpReadModel,
    private readonly policies: PolicyService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /*
   * Every read of approval state goes through approvalAt on the injected clock: an approval
   * whose expires_at has come reads as expired at once, whether or not the expiry sweep has
   * written its event yet (REFERENCE §15.10).
   */

  approval(org: string, id: string): ToolApprovalRecord | null {
    const a = this.reads.approval(org, id);
    return a && approvalAt(a, this.clock.now());
  }

  /** the list route's page (`requested_at` desc) */
  list(org: string, f: ApprovalFilter): { items: ToolApprovalRecord[]; has_more: boolean } {
    const now = this.clock.now();
    const page = this.reads.approvals(org, f, now);
    return { items: page.items.map((a) => approvalAt(a, now)), has_more: page.has_more };
  }

  ofRun(runId: string): ToolApprovalRecord[] {
    const now = this.clock.now();
    return this.reads.approvalsOfRun(runId).map((a) => approvalAt(a, now));
  }

  /**
   * Policies see the call as principal `agent:<id>` invoking the tool (its Affordance uid),
   * the Affordance being the Execution's target (REFERENCE §13.6).
   */
  async govern(org: string, agentId: string, sessionId: string, tool: AgentMcpTool): Promise<GovernedCall> {
    const affordance = await this.graph.getNode(org, tool.affordance_uid);
    const written = affordance ? [{ uid: affordance.uid, node_type: affordance.node_type, layer: affordance.layer, classification: classificationOf(affordance), spaces: [], projects: [] }] : [];
    const facts: RequestFacts = { principal: { kind: 'agent', id: agentId, role: null, bound_agent_id: agentId }, method: '', path: '', action: null, tool_uid: tool.affordance_uid, written };
    const decision: PolicyDecision = this.policies.evaluate(org, facts);
    const verdict = decideToolCall({
      policy: { effect: decision.effect, enforced: decision.enforced, policy_uid: decision.deciding?.uid ?? null, policy_name: decision.deciding?.name ?? null },
      mode: { mode: tool.approval_mode, requires: tool.requires_approval },
      sessionApproved: this.reads.sessionApproved(sessionId, tool.connection_id, tool.tool_name),
    });
    const record = (tx: GraphTx, approvalUid: string | null) => {
      if (!decision.matched && !decision.shadow.length) return;
      tx.emit(GovernanceStreams.governance(org), 'PolicyDecisionRecorded', this.policies.decisionRecord(org, tx.uuid(), decision, { method: '', path: '', tool_uid: tool.affordance_uid, written, route: null }, { approval_uid: approvalUid }));
    };
    return { verdict, record };
  }

  /** `ToolApprovalRequested` with its Approval node and the Affordance → Approval RequiresApproval edge. */
  async stageRequest(tx: GraphTx, req: ApprovalRequest): Promise<ToolApprovalRecord> {
    const org = tx.org;
    const id = tx.uuid();
    const timeout = this.reads.connection(org, req.tool.connection_id)?.approval_timeout_s ?? 3600;
    const approval: ToolApprovalRecord = {
      id, org_id: org, status: 'pending', kind: 'mcp_tool', connection_id: req.tool.connection_id, connection_name: req.tool.connection_name,
      tool_name: req.tool.tool_name, model_name: req.tool.model_name, affordance_uid: req.tool.affordance_uid, arguments: req.arguments, reasons: req.reasons,
      agent_id: req.agent.id, agent_name: req.agent.name, session_id: req.session_id, run_id: req.run_id, tool_call_id: req.tool_call_id,
      requested_at: tx.now, expires_at: tx.now + timeout, resolved_at: null, resolved_by: null, resolution_reason: null, scope: 'once',
    };
    tx.emit(
      ToolApprovalStreams.approval(org, id),
      'ToolApprovalRequested',
      { org_id: org, approval_id: id, agent_id: req.agent.id, session_id: req.session_id, run_id: req.run_id, tool_call_id: req.tool_call_id, connection_id: req.tool.connection_id, at: tx.now, approval },
      'no_stream',
    );
    const node = decideCreateNode(
      {
        label: `Approval: ${req.tool.connection_name} · ${req.tool.tool_name} (${req.agent.name})`.slice(0, 500),
        node_type: 'Approval',
        props: { status: 'pending', target_type: 'mcp_tool', target_uid: req.tool.affordance_uid, requested_at: tx.now, reason: reasonText(req.reasons, (uid) => this.policies.active(org).find((c) => c.policy.uid === uid)?.policy.name ?? null).slice(0, 10_000) },
      },
      id,
      tx.write,
    );
    tx.emit(GraphChanges.nodeCreated(tx.org, node, 'tool approval requested'));
    const affordance = await tx.node(req.tool.affordance_uid);
    if (affordance && affordance.tombstone_at === null) createEdge(tx, { edge_type: 'RequiresApproval' }, affordance, node);
    return approval;
  }

  /**
   * A built-in graph tool's call that a policy holds for approval (REFERENCE §15.10): its route's
   * policy gate refused it with `approval_required`, so the call becomes a `builtin_tool`
   * approval (3600 s) with its Approval node (no Affordance: `target_uid` null); once approved
   * the runtime calls the route again under it.
   */
  stageBuiltinRequest(tx: GraphTx, req: Omit<ApprovalRequest, 'tool' | 'reasons'> & { tool_name: string; policy_uid: string; policy_name: string | null }): ToolApprovalRecord {
    const org = tx.org;
    const id = tx.uuid();
    const approval: ToolApprovalRecord = {
      id, org_id: org, status: 'pending', kind: 'builtin_tool', connection_id: null, connection_name: null,
      tool_name: req.tool_name, model_name: req.tool_name, affordance_uid: null, arguments: req.arguments, reasons: [{ source: 'policy', policy_uid: req.policy_uid }],
      agent_id: req.agent.id, agent_name: req.agent.name, session_id: req.session_id, run_id: req.run_id, tool_call_id: req.tool_call_id,
      requested_at: tx.now, expires_at: tx.now + BUILTIN_APPROVAL_TIMEOUT_S, resolved_at: null, resolved_by: null, resolution_reason: null, scope: 'once',
    };
    tx.emit(
      ToolApprovalStreams.approval(org, id),
      'ToolApprovalRequested',
      { org_id: org, approval_id: id, agent_id: req.agent.id, session_id: req.session_id, run_id: req.run_id, tool_call_id: req.tool_call_id, connection_id: null, at: tx.now, approval },
      'no_stream',
    );
    const policyName = req.policy_name ?? this.policies.active(org).find((c) => c.policy.uid === req.policy_uid)?.policy.name ?? req.policy_uid;
    const node = decideCreateNode(
      {
        label: `Approval: ${req.tool_name} (${req.agent.name})`.slice(0, 500),
        node_type: 'Approval',
        props: { status: 'pending', target_type: 'builtin_tool', target_uid: null, requested_at: tx.now, reason: `policy ${policyName}`.slice(0, 10_000) },
      },
      id,
      tx.write,
    );
    tx.emit(GraphChanges.nodeCreated(tx.org, node, 'tool approval requested'));
    return approval;
  }

  /** The Approval node follows the record's settlement. */
  private async settleNode(tx: GraphTx, a: ToolApprovalRecord): Promise<void> {
    const n = await tx.node(a.id);
    if (!n || n.tombstone_at !== null) return;
    const props = { ...(n.props as unknown as Record<string, unknown>), ...approvalNodeResolution(a) };
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decideMirrorVersion(n, props, tx.now), `tool approval ${a.status}`));
  }

  /** A person's decision; 404 unknown, 409 `invalid_transition` once settled. */
  async resolve(ctx: CommandContext, id: string, input: ResolveInput, by: { kind: string; id: string }, visible: (a: ToolApprovalRecord) => boolean = () => true): Promise<ToolApprovalRecord> {
    return this.uow.run(ctx, async (tx) => {
      const a = this.reads.approval(tx.org, id);
      if (!a || !visible(a)) throw Errors.notFound(`approval ${id} not found`, { field: 'id', uid: id });
      const data = decideResolve(a, input, by, tx.now);
      tx.emit(ToolApprovalStreams.approval(tx.org, id), 'ToolApprovalResolved', data, 0);
      const after = settledApproval(a, { type: 'ToolApprovalResolved', data });
      await this.settleNode(tx, after);
      return after;
    });
  }

  /** Stages the cancellation of the pending ones (interrupt, archive, pause, connection DELETE). */
  async stageCancel(tx: GraphTx, approvals: readonly ToolApprovalRecord[], reason: ToolApprovalCancelReason): Promise<void> {
    for (const a of approvals) {
      const data = decideCancel(a, reason, tx.now);
      if (!data) continue;
      tx.emit(ToolApprovalStreams.approval(tx.org, a.id), 'ToolApprovalCancelled', data, 0);
      await this.settleNode(tx, settledApproval(a, { type: 'ToolApprovalCancelled', data }));
    }
  }

  /** The pending approvals of these runs (an expired one is not pending: nothing to cancel). */
  pendingOfRuns(runIds: readonly string[]): ToolApprovalRecord[] {
    return runIds.flatMap((r) => this.ofRun(r).filter((a) => a.status === 'pending'));
  }

  pendingOfConnection(org: string, connectionId: string): ToolApprovalRecord[] {
    return this.reads.pendingApprovals(org, { connection_id: connectionId }, this.clock.now());
  }

  pendingOfAgent(org: string, agentId: string): ToolApprovalRecord[] {
    return this.reads.pendingApprovals(org, { agent_id: agentId }, this.clock.now());
  }

  /**
   * Records `ToolApprovalExpired` for every approval whose `expires_at` has come; how many this
   * call wrote. One unit of work each, appended at the approval stream's first revision: when
   * several replicas sweep the same approval, one append lands and the others' conflict (their
   * retry reads it settled and writes nothing).
   */
  async expireDue(limit = 100): Promise<number> {
    let n = 0;
    const failed: string[] = [];
    for (const due of this.reads.dueApprovals(this.clock.now(), limit)) {
      const ctx: CommandContext = { org: due.org_id, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: `approval-expiry:${due.id}` };
      const expired = await this.uow
        .run(ctx, async (tx) => {
          const a = this.reads.approval(tx.org, due.id);
          const data = a && decideExpire(a, tx.now);
          if (!a || !data) return false;
          tx.emit(ToolApprovalStreams.approval(tx.org, a.id), 'ToolApprovalExpired', data, 0);
          await this.settleNode(tx, settledApproval(a, { type: 'ToolApprovalExpired', data }));
          return true;
        })
        .catch((err: unknown) => {
          // settled meanwhile (by a person, a cancellation or another replica): its revision moved
          if (err instanceof DomainError && err.code === 'version_conflict') return false;
          failed.push(`${due.id}: ${(err as Error).message}`);
          return false;
        });
      if (expired) n++;
    }
    // the others were written; these are tried again at the next sweep
    if (failed.length) throw new Error(`expiring ${failed.length} approval(s) failed: ${failed.join('; ')}`);
    return n;
  }
}
