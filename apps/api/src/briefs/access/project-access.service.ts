import { Injectable } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { ProjectRole, assertProjectRole, effectiveProjectRole } from '@strata/domain/briefs';
import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';
import { ReadScope, ReadScopeService } from '@strata/platform/scope/read-scope';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { ProjectSourcesService } from '../sources/project-sources.service';

export interface ProjectAccess {
  project: NodeRecord;
  role: ProjectRole;
  scope: ReadScope;
}

/**
 * The `{project_uid}` check every brief route makes first (REFERENCE §12.1), then the caller's
 * effective role on the Project (§12.2): 404 without one, 403 `forbidden` below the minimum.
 */
@Injectable()
export class ProjectAccessService {
  constructor(
    private readonly sources: ProjectSourcesService,
    private readonly scopes: ReadScopeService,
    private readonly briefs: BriefsReadModel,
    private readonly governance: GovernanceReadModel,
  ) {}

  /** The live Project in the caller's scope: 404 `not_found`, or 400 `wrong_node_type`. The uid is well-formed. */
  async project(auth: AuthContext, uid: string): Promise<{ project: NodeRecord; scope: ReadScope }> {
    const scope = await this.scopes.of(auth);
    const p = await this.sources.node(auth.org_id, uid);
    if (!p || p.tombstone_at !== null || !(scope.allows(uid) || this.reachedByAgentGrant(auth, uid, scope))) throw Errors.refNotFound('project_uid', uid);
    if (p!.node_type !== 'Project') throw Errors.wrongNodeType('project_uid', uid, p!.node_type, ['Project']);
    return { project: p!, scope };
  }

  /**
   * A key bound to an agent that Space grants restrict sees only what they pass; its agent's
   * Project grant reaches the Project too (§13.3), within the key's own lists and the Space rule.
   */
  private reachedByAgentGrant(auth: AuthContext, projectUid: string, scope: ReadScope): boolean {
    if (auth.credential !== 'api_key' || auth.bound_agent_id === null || scope.hidden.has(projectUid)) return false;
    if (auth.space_uids !== null || (auth.project_uids !== null && !auth.project_uids.includes(projectUid))) return false;
    return this.briefs.grant(auth.org_id, projectUid, `agent:${auth.bound_agent_id}`) !== null;
  }

  /** The caller's effective role on P, or null (no role). */
  roleOn(auth: AuthContext, projectUid: string, inScope: boolean): ProjectRole | null {
    const org = auth.org_id;
    const agent = auth.credential === 'api_key' ? auth.bound_agent_id : null;
    const agentUid = agent !== null ? `agent:${agent}` : null;
    const agentUnrestricted =
      agentUid !== null &&
      !this.governance.hasAnyGrant(org, agentUid) &&
      !this.briefs.hasAnyGrant(org, agentUid) &&
      this.governance.settings(org).settings.agent_scope_without_grants === 'organization';
    return effectiveProjectRole(
      { credential: auth.credential, user_id: auth.user_id, org_role: auth.role, scopes: auth.scopes, bound_agent_id: agent },
      {
        inScope,
        userGrant: auth.credential === 'user_jwt' && auth.user_id ? (this.briefs.grant(org, projectUid, `user:${auth.user_id}`)?.role ?? null) : null,
        agentGrant: agentUid !== null ? (this.briefs.grant(org, projectUid, agentUid)?.role ?? null) : null,
        agentUnrestricted,
      },
    );
  }

  /** The Project and the caller's role, at least `min`. */
  async require(auth: AuthContext, uid: string, min: ProjectRole): Promise<ProjectAccess> {
    const { project, scope } = await this.project(auth, uid);
    const role = this.roleOn(auth, uid, scope.allows(uid));
    assertProjectRole(role, min, uid);
    return { project, role, scope };
  }
}
