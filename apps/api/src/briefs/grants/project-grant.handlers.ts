import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { AuthContext } from '@strata/auth/auth-context';
import { BriefStreams, GRANTABLE_ROLES } from '@strata/domain/briefs';
import { DomainError, Errors } from '@strata/domain/errors';
import { parseGrantPrincipal } from '@strata/domain/governance';
import { KnownAgents } from '@strata/platform/scope/known-agents';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { BriefsReadModel, ProjectGrantRow } from '@strata/projections/briefs/briefs-read-model';
import { ProjectAccessService } from '../access/project-access.service';
import { briefContext } from '../brief/brief.handlers';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { dtoBody } from '../../platform/http/dto/dto-body.pipe';
import { SetProjectGrantDto } from './project-grant.dto';

const iso = (s: number) => new Date(Math.round(s * 1000)).toISOString();

function present(g: ProjectGrantRow) {
  return { project_uid: g.project_uid, principal_uid: g.principal_uid, role: g.role, granted_by: g.granted_by, granted_at: iso(g.granted_at), updated_at: iso(g.updated_at) };
}

/** Project role grants (REFERENCE §12.8): they raise a user's or agent's role on one Project. */
@Injectable()
export class ProjectGrantHandlers {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly access: ProjectAccessService,
    private readonly briefs: BriefsReadModel,
    private readonly accounts: AccountsReadModel,
    private readonly agents: KnownAgents,
  ) {}

  /**
   * A grant acts while its principal belongs: a user's grant no longer counts once they left
   * the organization (their grants read as revoked, reason `member_removed`).
   */
  private standing(org: string, g: ProjectGrantRow): boolean {
    return !g.principal_uid.startsWith('user:') || this.accounts.membership(org, g.principal_uid.slice(5)) !== null;
  }

  async list(auth: AuthContext, projectUid: string, query: Body) {
    await this.access.project(auth, projectUid);
    const { limit, offset } = readPage(coerceQuery(query, ['limit', 'offset']), { limit: 100, max: 1000 });
    const all = this.briefs.grants(auth.org_id, projectUid, 1_000_000, 0).items.filter((g) => this.standing(auth.org_id, g));
    const page = all.slice(offset, offset + limit);
    return { items: page.map(present), has_more: all.length > offset + page.length, limit, offset };
  }

  /** 201 new, 200 replaced or unchanged (nothing appended). */
  async set(auth: AuthContext, projectUid: string, body: unknown, requestId: string): Promise<{ created: boolean; grant: unknown }> {
    const org = auth.org_id;
    await this.access.project(auth, projectUid);
    const dto = dtoBody(SetProjectGrantDto, body);
    const p = parseGrantPrincipal(dto.principal_uid);
    const allowed = GRANTABLE_ROLES[p.kind];
    if (!allowed.includes(dto.role)) throw Errors.invalidField('role', `${p.kind === 'agent' ? 'an' : 'a'} ${p.kind} takes the role ${allowed.join(' or ')}`, { allowed: [...allowed] });
    const known = p.kind === 'user' ? this.accounts.membership(org, p.id) !== null : this.agents.isKnown(org, p.id);
    if (!known) throw new DomainError(404, 'not_found', `${p.uid} is not ${p.kind === 'user' ? 'a member of this organization' : 'a known agent'}`, { field: 'principal_uid', uid: p.uid });
    return this.uow.run(briefContext(auth, requestId), async (tx) => {
      const prev = this.briefs.grant(org, projectUid, p.uid);
      if (prev && prev.role === dto.role) return { created: false, grant: present(prev) };
      const by = `${auth.principal.kind}:${auth.principal.id}`;
      tx.emit(BriefStreams.projectGrants(org, projectUid), 'ProjectGrantSet', {
        org_id: org,
        project_uid: projectUid,
        principal_uid: p.uid,
        role: dto.role,
        previous_role: prev?.role ?? null,
        granted_by: by,
        at: tx.now,
      });
      return {
        created: prev === null,
        grant: present({ project_uid: projectUid, principal_uid: p.uid, role: dto.role, granted_by: by, granted_at: prev ? prev.granted_at : tx.now, updated_at: tx.now }),
      };
    });
  }

  async revoke(auth: AuthContext, projectUid: string, principalUid: string, requestId: string) {
    const org = auth.org_id;
    await this.access.project(auth, projectUid);
    const g = this.briefs.grant(org, projectUid, principalUid);
    if (!g || !this.standing(org, g)) throw Errors.notFound(`no grant for ${principalUid} on Project ${projectUid}`, { field: 'principal_uid', uid: principalUid });
    return this.uow.run(briefContext(auth, requestId), async (tx) => {
      tx.emit(BriefStreams.projectGrants(org, projectUid), 'ProjectGrantRevoked', {
        org_id: org,
        project_uid: projectUid,
        principal_uid: principalUid,
        reason: 'revoked',
        revoked_by: `${auth.principal.kind}:${auth.principal.id}`,
        at: tx.now,
      });
      return { project_uid: projectUid, principal_uid: principalUid, revoked: true };
    });
  }
}
