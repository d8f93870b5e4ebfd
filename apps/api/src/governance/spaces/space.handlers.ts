import { Inject, Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { DomainError, Errors } from '@strata/domain/errors';
import { CLASSIFICATIONS, Classification, decideSpaceGrant, GovernanceStreams, parseGrantPrincipal } from '@strata/domain/governance';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { KnownAgents } from '@strata/platform/scope/known-agents';
import { SpaceAccessService } from '@strata/platform/scope/space-access.service';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { GovernanceReadModel, SpaceGrantRow } from '@strata/projections/governance/governance-read-model';
import { governanceContext, iso } from '../governance-context';
import { SetSpaceGrantDto } from './space-grant.dto';

function presentGrant(g: SpaceGrantRow) {
  return {
    space_uid: g.space_uid,
    principal_uid: g.principal_uid,
    access: g.access,
    classification_ceiling: g.classification_ceiling,
    granted_by: g.granted_by,
    granted_at: iso(g.granted_at),
    updated_at: iso(g.updated_at),
  };
}

/** Spaces and their grants (REFERENCE §13.2). */
@Injectable()
export class SpaceHandlers {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly governance: GovernanceReadModel,
    private readonly accounts: AccountsReadModel,
    private readonly spaces: SpaceAccessService,
    private readonly agents: KnownAgents,
  ) {}

  async list(auth: AuthContext, includeTombstoned: boolean, limit: number, offset: number) {
    const org = auth.org_id;
    const page = await this.graph.listNodes(org, { node_types: ['Space'], include_tombstoned: includeTombstoned }, { limit, offset }, 'created_asc');
    const counts = new Map<string, Record<Classification | 'total', number>>();
    for (const node of (await this.spaces.spacedNodes(org)).values())
      for (const s of node.spaces) {
        let c = counts.get(s);
        if (!c) counts.set(s, (c = { public: 0, internal: 0, confidential: 0, restricted: 0, total: 0 }));
        c[node.classification]++;
        c.total++;
      }
    const grants = this.governance.grantCounts(org);
    const items = page.items.map((n) => {
      const p = n.props as Record<string, unknown>;
      return {
        uid: n.uid,
        label: n.label,
        name: typeof p.name === 'string' && p.name ? p.name : n.label,
        description: typeof p.description === 'string' ? p.description : null,
        default_classification: CLASSIFICATIONS.includes(p.default_classification as Classification) ? p.default_classification : 'internal',
        node_counts: counts.get(n.uid) ?? { public: 0, internal: 0, confidential: 0, restricted: 0, total: 0 },
        grant_count: grants.get(n.uid) ?? 0,
        created_at: iso(n.created_at),
        updated_at: iso(n.updated_at),
        tombstone_at: iso(n.tombstone_at),
      };
    });
    return { items, has_more: page.has_more, limit, offset };
  }

  /** The path's Space: live and a Space (404 / 400 wrong_node_type). */
  private async liveSpace(org: string, uid: string) {
    const n = await this.graph.getNode(org, uid);
    if (!n || n.tombstone_at !== null) throw Errors.refNotFound('space_uid', uid);
    if (n.node_type !== 'Space') throw Errors.wrongNodeType('space_uid', uid, n.node_type, ['Space']);
    return n;
  }

  async grants(auth: AuthContext, spaceUid: string, limit: number, offset: number) {
    await this.liveSpace(auth.org_id, spaceUid);
    const page = this.governance.grantsOfSpace(auth.org_id, spaceUid, limit, offset);
    return { items: page.items.map(presentGrant), has_more: page.has_more, limit, offset };
  }

  /** 201 for a new grant, 200 for a replaced one. */
  async setGrant(auth: AuthContext, spaceUid: string, dto: SetSpaceGrantDto, requestId: string): Promise<{ created: boolean; grant: unknown }> {
    const org = auth.org_id;
    const principal = parseGrantPrincipal(dto.principal_uid);
    await this.liveSpace(org, spaceUid);
    this.assertKnownPrincipal(org, principal);
    const ceiling = dto.classification_ceiling ?? null;
    const input = { principal_uid: principal.uid, principal_kind: principal.kind, principal_id: principal.id, access: dto.access, classification_ceiling: ceiling };
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      const prev = this.governance.grant(org, spaceUid, principal.uid);
      const previous = prev ? { access: prev.access, classification_ceiling: prev.classification_ceiling } : null;
      const data = decideSpaceGrant(org, spaceUid, input, previous, auth.principal.id, tx.now);
      tx.emit(GovernanceStreams.spaceGrants(org, spaceUid), 'SpaceGrantSet', data);
      return {
        created: prev === null,
        grant: presentGrant({
          space_uid: spaceUid,
          principal_uid: principal.uid,
          access: data.access,
          classification_ceiling: data.classification_ceiling,
          granted_by: data.granted_by,
          granted_at: prev ? prev.granted_at : tx.now,
          updated_at: tx.now,
        }),
      };
    });
  }

  async revokeGrant(auth: AuthContext, spaceUid: string, principalUid: string, requestId: string) {
    const org = auth.org_id;
    await this.liveSpace(org, spaceUid);
    if (!this.governance.grant(org, spaceUid, principalUid)) throw Errors.notFound(`no grant for ${principalUid} on Space ${spaceUid}`, { field: 'principal_uid', uid: principalUid });
    return this.uow.run(governanceContext(auth, requestId), async (tx) => {
      tx.emit(GovernanceStreams.spaceGrants(org, spaceUid), 'SpaceGrantRevoked', { org_id: org, space_uid: spaceUid, principal_uid: principalUid, revoked_by: auth.principal.id, at: tx.now });
      return { space_uid: spaceUid, principal_uid: principalUid, revoked: true };
    });
  }

  /** `user:<id>` must be a member of the organization, `agent:<id>` a known agent (REFERENCE §13.3): else 404. */
  private assertKnownPrincipal(org: string, p: { uid: string; kind: 'user' | 'agent'; id: string }): void {
    const known = p.kind === 'user' ? this.accounts.membership(org, p.id) !== null : this.agents.isKnown(org, p.id);
    if (!known) throw new DomainError(404, 'not_found', `${p.uid} is not ${p.kind === 'user' ? 'a member of this organization' : 'a known agent'}`, { field: 'principal_uid', uid: p.uid });
  }
}
