import { Inject, Injectable, Optional } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessPrincipal, seesEverySpace, SpaceAccess, SpaceAccessLevel, spaceAccessOf, SpacedNode, spaceRuleAllows } from '@strata/domain/governance';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import type { ProjectRole } from '@strata/domain/briefs';
import { accessPrincipalOf } from './access-principal';
import { MembershipReader, readModelMembership, spacedNodes } from './space-membership';

/** How the Space rule treats one principal, resolved once per request. */
export interface SpacePlan {
  access: SpaceAccess;
  /** passes the Space rule for every node: no membership read is needed */
  unlimited: boolean;
  allows(node: SpacedNode, mode: SpaceAccessLevel): boolean;
  /** an agent with grants reaches only what they pass (REFERENCE §13.3) */
  agentLimited: boolean;
  agentAllows(node: SpacedNode): boolean;
  /** the bound agent's Project grants: with `agentLimited`, their admitted sets are in its scope (§13.3) */
  agentProjects: readonly { project_uid: string; role: ProjectRole }[];
}

/** Organizations whose membership is kept in memory; the least recently read leaves first. */
const MEMBERSHIPS_KEPT = 256;

/**
 * The Space rule against the organization's grants (governance read model) and Space
 * membership (the graph's InSpace edges). A member's every read needs the whole membership:
 * it is read once per membership mark (`GraphReadModel.membershipMark`) and kept, so a read
 * costs one keyed lookup until an InSpace edge, a Space or a classification changes.
 */
@Injectable()
export class SpaceAccessService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly governance: GovernanceReadModel,
    @Optional() @Inject(BriefsReadModel) private readonly briefs: BriefsReadModel | null,
  ) {}

  planFor(auth: AuthContext): SpacePlan {
    return this.planForPrincipal(auth.org_id, accessPrincipalOf(auth));
  }

  planForPrincipal(org: string, p: AccessPrincipal): SpacePlan {
    const access = spaceAccessOf(p, (principalUid) => this.governance.grantsOf(org, principalUid));
    const agentUid = p.credential === 'api_key' && p.bound_agent_id !== null ? `agent:${p.bound_agent_id}` : null;
    // an agent with grants reaches what they pass; without, the organization (default) or nothing (§13.3, §13.5)
    const agentProjects = agentUid !== null && this.briefs ? this.briefs.grantsHeldBy(org, agentUid).map((g) => ({ project_uid: g.project_uid, role: g.role as ProjectRole })) : [];
    const agentLimited =
      agentUid !== null &&
      (this.governance.hasAnyGrant(org, agentUid) || agentProjects.length > 0 || this.governance.settings(org).settings.agent_scope_without_grants === 'none');
    const agentAccess: SpaceAccess | null = agentLimited ? { checks: [access.checks[0]] } : null;
    return {
      access,
      unlimited: seesEverySpace(access),
      allows: (node, mode) => spaceRuleAllows(access, node, mode),
      agentLimited,
      agentAllows: (node) => !!agentAccess && node.spaces.length > 0 && spaceRuleAllows(agentAccess, node, 'read'),
      agentProjects,
    };
  }

  private readonly memberships = new Map<string, { mark: number; nodes: Map<string, SpacedNode> }>();

  /** Every spaced node of the organization with its Spaces and classification (do not mutate). */
  async spacedNodes(org: string): Promise<ReadonlyMap<string, SpacedNode>> {
    // the mark is read before the membership: a change landing between the two reads only
    // makes the kept copy look older than it is, never newer
    const mark = await this.graph.membershipMark(org);
    const kept = this.memberships.get(org);
    if (kept && kept.mark === mark) {
      this.memberships.delete(org);
      this.memberships.set(org, kept);
      return kept.nodes;
    }
    const nodes = await spacedNodes(readModelMembership(this.graph, org));
    this.memberships.delete(org);
    this.memberships.set(org, { mark, nodes });
    if (this.memberships.size > MEMBERSHIPS_KEPT) this.memberships.delete(this.memberships.keys().next().value!);
    return nodes;
  }

  /** spaces(N) and classification for the given nodes only (a write's nodes), read through `reader`. */
  spacesOf(reader: MembershipReader, uids: readonly string[]): Promise<Map<string, SpacedNode>> {
    return spacedNodes(reader, uids);
  }
}
