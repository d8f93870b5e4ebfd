import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { DomainError, Errors } from '@strata/domain/errors';
import { GovernanceStreams } from '@strata/domain/governance';
import { NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { KnownAgents } from '@strata/platform/scope/known-agents';
import { GovernanceReadModel, ToolGrantRow } from '@strata/projections/governance/governance-read-model';
import { governanceContext, iso } from '../governance-context';
import { PutToolGrantDto } from './tool-grant.dto';

/** Agent tool grants (REFERENCE §13.4). */
@Injectable()
export class ToolGrantHandlers {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly governance: GovernanceReadModel,
    private readonly agents: KnownAgents,
    private readonly scopes: ReadScopeService,
  ) {}

  /** A known agent (REFERENCE §13.3) of the organization, else 404 naming `id`. */
  private assertKnownAgent(org: string, agentId: string): void {
    if (!this.agents.isKnown(org, agentId)) throw new DomainError(404, 'not_found', `agent ${agentId} not found`, { field: 'id', uid: agentId });
  }

  /** A live Affordance in the agent's scope: 404 otherwise, 400 wrong_node_type for another type. */
  private async affordanceInScope(org: string, agentId: string, uid: string): Promise<NodeRecord> {
    const n = await this.graph.getNode(org, uid);
    if (!n || n.tombstone_at !== null || !(await this.scopes.ofAgent(org, agentId)).allows(uid)) throw Errors.refNotFound('affordance_uid', uid);
    if (n.node_type !== 'Affordance') throw Errors.wrongNodeType('affordance_uid', uid, n.node_type, ['Affordance']);
    return n;
  }

  async list(auth: AuthContext, agentId: string, granted: boolean | undefined, limit: number, offset: number) {
    const org = auth.org_id;
    this.assertKnownAgent(org, agentId);
    const scope = await this.scopes.ofAgent(org, agentId);
    // the caller's own scope too: a spaced tool the caller may not read is absent for it (§13.1)
    const caller = await this.scopes.of(auth);
    const all = await this.graph.listNodes(org, scope.nodeFilter<NodeFilter>({ node_types: ['Affordance'] }), { limit: 1_000_000, offset: 0 }, 'created_asc');
    const grants = this.governance.toolGrantsOf(org, agentId);
    const rows = all.items
      .filter((n) => caller.allows(n.uid))
      .filter((n) => granted === undefined || grants.has(n.uid) === granted)
      .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const page = rows.slice(offset, offset + limit);
    return {
      agent_id: agentId,
      items: page.map((n) => {
        const p = n.props as Record<string, unknown>;
        const g = grants.get(n.uid) ?? null;
        return {
          affordance_uid: n.uid,
          label: n.label,
          action_name: p.action_name ?? null,
          affordance_type: p.affordance_type ?? null,
          risk_level: p.risk_level ?? null,
          granted: g !== null,
          granted_by: g?.granted_by ?? null,
          granted_at: g ? iso(g.granted_at) : null,
          expires_at: g ? iso(g.expires_at) : null,
          note: g?.note ?? null,
        };
      }),
      has_more: rows.length > offset + page.length,
      limit,
      offset,
    };
  }

  /** 201 for a new grant, 200 for an updated one. */
  async put(auth: AuthContext, agentId: string, affordanceUid: string, dto: PutToolGrantDto, requestId: string) {
    const org = auth.org_id;
    this.assertKnownAgent(org, agentId);
    await this.affordanceInScope(org, agentId, affordanceUid);
    const now = this.clock.now();
    if (dto.expires_at !== undefined && dto.expires_at <= now) throw Errors.invalidField('expires_at', 'expires_at must lie in the future');
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      const prev = this.governance.toolGrant(org, agentId, affordanceUid);
      const data = { org_id: org, agent_id: agentId, affordance_uid: affordanceUid, expires_at: dto.expires_at ?? null, note: dto.note ?? null, granted_by: auth.principal.id, at: tx.now };
      tx.emit(GovernanceStreams.agentTools(org, agentId), 'AgentToolGranted', data);
      const row: ToolGrantRow = { ...data, granted_at: prev ? prev.granted_at : tx.now, updated_at: tx.now };
      return { created: prev === null, grant: presentToolGrant(row) };
    });
  }

  async revoke(auth: AuthContext, agentId: string, affordanceUid: string, requestId: string) {
    const org = auth.org_id;
    this.assertKnownAgent(org, agentId);
    if (!this.governance.toolGrant(org, agentId, affordanceUid)) throw Errors.notFound(`agent ${agentId} holds no grant for ${affordanceUid}`, { field: 'affordance_uid', uid: affordanceUid });
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      tx.emit(GovernanceStreams.agentTools(org, agentId), 'AgentToolRevoked', { org_id: org, agent_id: agentId, affordance_uid: affordanceUid, revoked_by: auth.principal.id, at: tx.now });
      return { agent_id: agentId, affordance_uid: affordanceUid, revoked: true };
    });
  }
}

function presentToolGrant(g: ToolGrantRow) {
  return {
    agent_id: g.agent_id,
    affordance_uid: g.affordance_uid,
    granted: true,
    granted_by: g.granted_by,
    granted_at: iso(g.granted_at),
    updated_at: iso(g.updated_at),
    expires_at: iso(g.expires_at),
    note: g.note,
  };
}
