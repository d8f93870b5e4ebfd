import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AccountEventTypes as T,
  MemberAddedData,
  MemberRoleChangedData,
  OrganizationCreatedData,
  UserSignedUpData,
} from '@strata/domain/accounts';
import { DomainError, Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { PasswordHasher } from './password-hasher';
import { duplicateEmail, readEmail, readNewPassword } from '@strata/domain/accounts/account-input';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from './accounts-unit-of-work';

export interface CreateOwnerInput {
  email: string;
  /** an existing organization's id, or the name of a new organization */
  org: string;
  /** null: a one-time password is generated (only for a new user) */
  password: string | null;
  name: string | null;
  /** who runs the command, for the audit trail */
  operator: string;
  request_id: string;
}

export interface CreateOwnerResult {
  user_id: string;
  email: string;
  org_id: string;
  org_name: string;
  created_user: boolean;
  created_org: boolean;
  /** the generated one-time password; null when given or when the user already existed */
  one_time_password: string | null;
}

/** The shape of the ids the service gives organizations (UUIDs), whatever their version. */
const ORG_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `--org` has the form of an organization id. Such a value always means an existing
 * organization, never the name of a new one: a mistyped or foreign id must fail, not create an
 * organization named after it.
 */
export function looksLikeOrgId(org: string): boolean {
  return ORG_ID_SHAPE.test(org.trim());
}

/** `organization … not found`, for an `--org` that has the form of an id and matches none. */
export function unknownOrgId(org: string): DomainError {
  return Errors.notFound(
    `organization ${org} not found (--org takes an existing organization's id, or the name of a new organization, which cannot have the form of an id)`,
    { field: 'org' },
  );
}

/** Long enough for the password rules, and typeable: 20 characters of base64url. */
export function oneTimePassword(): string {
  return randomBytes(15).toString('base64url');
}

/**
 * `strata admin create-owner`: bootstraps an owner without the HTTP sign-up, recorded under
 * the system principal. A new e-mail gets a user (with the given password or a one-time
 * one); `org` is an existing organization's id (the user becomes its owner) or the name of a
 * new one. A value with the form of an id that matches no organization is refused (404
 * not_found), before anything is written.
 */
@Injectable()
export class CreateOwnerService {
  private readonly hasher = new PasswordHasher();

  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly accounts: AccountsReadModel,
  ) {}

  async createOwner(input: CreateOwnerInput): Promise<CreateOwnerResult> {
    const { email, email_norm } = readEmail({ email: input.email });
    const orgArg = input.org.trim();
    if (!orgArg) throw Errors.missingField('org');
    if (orgArg.length > 200) throw Errors.invalidField('org', 'org must be an organization id or a name of at most 200 characters');
    const existingOrg = this.accounts.org(orgArg);
    if (!existingOrg && looksLikeOrgId(orgArg)) throw unknownOrgId(orgArg);
    const existingUser = this.accounts.userByEmail(email_norm);
    if (existingUser && input.password !== null)
      throw new DomainError(409, 'duplicate', `a user with e-mail ${email} already exists; create-owner does not change passwords (leave out --password-stdin)`, { field: 'email' });
    const generated = existingUser || input.password !== null ? null : oneTimePassword();
    const password = existingUser ? null : readNewPassword({ password: input.password ?? generated });
    const passwordHash = password === null ? null : await this.hasher.hash(password);

    const userId = existingUser?.user_id ?? this.ids.uuid();
    const orgId = existingOrg?.org_id ?? this.ids.uuid();
    const ctx: CommandContext = {
      org: orgId,
      principal: { kind: 'system', id: input.operator },
      credential_id: null,
      agent_id: null,
      request_id: input.request_id,
    };
    const orgName = await this.uow.run(ctx, async (tx) => {
      // checked again inside the write: a sign-up may have raced us
      if (!existingUser) {
        if (this.accounts.userByEmail(email_norm)) throw duplicateEmail();
        const user: UserSignedUpData = { user_id: userId, email, email_norm, name: input.name, password_hash: passwordHash!, created_at: tx.now };
        tx.emit(Streams.user(userId), T.UserSignedUp, user, 'no_stream');
      }
      if (!existingOrg) {
        const org: OrganizationCreatedData = { org_id: orgId, name: orgArg, created_by: userId, plan: 'free', created_at: tx.now };
        const member: MemberAddedData = { org_id: orgId, user_id: userId, role: 'owner', added_by: input.operator, at: tx.now };
        tx.emit(Streams.org(orgId), T.OrganizationCreated, org, 'no_stream');
        tx.emit(Streams.org(orgId), T.MemberAdded, member);
        return orgArg;
      }
      const org = this.accounts.org(orgId)!;
      const current = this.accounts.membership(orgId, userId);
      if (current?.role === 'owner') throw new DomainError(409, 'duplicate', `${email} is already an owner of organization ${orgId}`, { field: 'email' });
      if (current) {
        const d: MemberRoleChangedData = { org_id: orgId, user_id: userId, from: current.role, to: 'owner', changed_by: input.operator, at: tx.now };
        tx.emit(Streams.org(orgId), T.MemberRoleChanged, d, org.revision);
      } else {
        const d: MemberAddedData = { org_id: orgId, user_id: userId, role: 'owner', added_by: input.operator, at: tx.now };
        tx.emit(Streams.org(orgId), T.MemberAdded, d, org.revision);
      }
      return org.name;
    });
    return {
      user_id: userId,
      email: existingUser?.email ?? email,
      org_id: orgId,
      org_name: orgName,
      created_user: !existingUser,
      created_org: !existingOrg,
      one_time_password: generated,
    };
  }
}
