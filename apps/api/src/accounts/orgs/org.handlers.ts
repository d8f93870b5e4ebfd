import { Inject, Injectable } from '@nestjs/common';
import {
  AccountEventTypes as T,
  MemberAddedData,
  MemberRemovedData,
  MemberRoleChangedData,
  OrganizationCreatedData,
  Role,
  decideAddMember,
  decideRemoveMember,
} from '@strata/domain/accounts';
import { Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { AuthContext } from '@strata/auth/auth-context';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { accountContext } from '../context';
import { paginated, presentMember, presentOrg } from '../presenters';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { BriefStreams } from '@strata/domain/briefs';
import { GovernanceStreams } from '@strata/domain/governance';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';

function orgNotFound(orgId: string) {
  return Errors.notFound(`organization ${orgId} not found`, { id: orgId });
}

/** Organizations and memberships (role rules in libs/domain/src/accounts/membership-decider). */
@Injectable()
export class OrgHandlers {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly accounts: AccountsReadModel,
    private readonly briefs: BriefsReadModel,
    private readonly governance: GovernanceReadModel,
  ) {}

  async create(auth: AuthContext, name: string, requestId: string) {
    const userId = auth.user_id!;
    const orgId = this.ids.uuid();
    return this.uow.run(accountContext(auth, requestId, orgId), async (tx) => {
      const org: OrganizationCreatedData = { org_id: orgId, name, created_by: userId, plan: 'free', created_at: tx.now };
      const member: MemberAddedData = { org_id: orgId, user_id: userId, role: 'owner', added_by: userId, at: tx.now };
      tx.emit(Streams.org(orgId), T.OrganizationCreated, org, 'no_stream');
      tx.emit(Streams.org(orgId), T.MemberAdded, member);
      return presentOrg(org, 'owner');
    });
  }

  list(auth: AuthContext, limit: number, offset: number) {
    const all = this.accounts.memberships(auth.user_id!);
    const page = all.slice(offset, offset + limit).map((m) => presentOrg({ org_id: m.org_id, name: m.org_name, plan: m.plan, created_at: m.org_created_at }, m.role));
    return paginated(page, limit, offset, offset + page.length < all.length);
  }

  /** Members of an organization the caller belongs to (others: 404, existence does not leak). */
  members(auth: AuthContext, orgId: string, limit: number, offset: number) {
    if (!this.accounts.membership(orgId, auth.user_id!)) throw orgNotFound(orgId);
    const all = this.accounts.members(orgId);
    const page = all.slice(offset, offset + limit).map((m) => presentMember(m, orgId));
    return paginated(page, limit, offset, offset + page.length < all.length);
  }

  /** Adds a signed-up user by e-mail, or changes the role of a member. `created` tells 201 from 200. */
  async addMember(auth: AuthContext, orgId: string, emailNorm: string, role: Role, requestId: string) {
    const actorId = auth.user_id!;
    return this.uow.run(accountContext(auth, requestId, orgId), async (tx) => {
      const actor = this.accounts.membership(orgId, actorId);
      const org = this.accounts.org(orgId);
      if (!actor || !org) throw orgNotFound(orgId);
      const target = this.accounts.userByEmail(emailNorm);
      const members = this.accounts.members(orgId);
      if (!target) {
        // check the caller's right first so members cannot probe which e-mails have accounts
        decideAddMember(members, { user_id: actorId, role: actor.role }, '\u0000', role);
        throw Errors.notFound('no account with this e-mail; ask them to sign up first, then invite them', { field: 'email' });
      }
      const decision = decideAddMember(members, { user_id: actorId, role: actor.role }, target.user_id, role);
      if (decision.kind === 'add') {
        const d: MemberAddedData = { org_id: orgId, user_id: target.user_id, role, added_by: actorId, at: tx.now };
        tx.emit(Streams.org(orgId), T.MemberAdded, d, org.revision);
      } else if (decision.kind === 'change_role') {
        const d: MemberRoleChangedData = { org_id: orgId, user_id: target.user_id, from: decision.from, to: decision.to, changed_by: actorId, at: tx.now };
        tx.emit(Streams.org(orgId), T.MemberRoleChanged, d, org.revision);
      }
      const joined = members.find((m) => m.user_id === target.user_id)?.joined_at ?? tx.now;
      return {
        created: decision.kind === 'add',
        member: presentMember({ user_id: target.user_id, email: target.email, name: target.name, role, joined_at: joined }, orgId),
      };
    });
  }

  async removeMember(auth: AuthContext, orgId: string, userId: string, requestId: string) {
    const actorId = auth.user_id!;
    return this.uow.run(accountContext(auth, requestId, orgId), async (tx) => {
      const actor = this.accounts.membership(orgId, actorId);
      const org = this.accounts.org(orgId);
      if (!actor || !org) throw orgNotFound(orgId);
      const members = this.accounts.members(orgId);
      if (!decideRemoveMember(members, { user_id: actorId, role: actor.role }, userId))
        throw Errors.notFound(`user ${userId} is not a member of organization ${orgId}`, { id: userId });
      const d: MemberRemovedData = { org_id: orgId, user_id: userId, removed_by: actorId, at: tx.now };
      tx.emit(Streams.org(orgId), T.MemberRemoved, d, org.revision);
      // a Project grant does not outlive the membership (REFERENCE §12.8): revoked in the same append
      for (const g of this.briefs.grantsHeldBy(orgId, `user:${userId}`))
        tx.emit(BriefStreams.projectGrants(orgId, g.project_uid), 'ProjectGrantRevoked', {
          org_id: orgId,
          project_uid: g.project_uid,
          principal_uid: g.principal_uid,
          reason: 'member_removed',
          revoked_by: `user:${actorId}`,
          at: tx.now,
        });
      // nor does a Space grant (REFERENCE §13.2: a user grant is held by an org member), or it would
      // come back with a later invitation, whatever role that one gives
      for (const spaceUid of this.governance.grantsOf(orgId, `user:${userId}`).keys())
        tx.emit(GovernanceStreams.spaceGrants(orgId, spaceUid), 'SpaceGrantRevoked', {
          org_id: orgId,
          space_uid: spaceUid,
          principal_uid: `user:${userId}`,
          revoked_by: actorId,
          at: tx.now,
        });
      return { org_id: orgId, user_id: userId, removed: true };
    });
  }
}
