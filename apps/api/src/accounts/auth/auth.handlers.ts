import { Inject, Injectable } from '@nestjs/common';
import {
  AccountEventTypes as T,
  MemberAddedData,
  OrganizationCreatedData,
  RefreshFamilyRevokedData,
  RefreshTokenIssuedData,
  RefreshTokenUsedData,
  UserSignedUpData,
  decideRefresh,
  normaliseEmail,
} from '@strata/domain/accounts';
import { Streams } from '@strata/domain/events';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { AuthErrors } from '@strata/auth/auth-errors';
import { formatRefreshToken, generateRefreshSecret, parseRefreshToken, sameHex, sha256Hex } from '@strata/auth/tokens/secrets';
import { TokenService } from '@strata/auth/tokens/token.service';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { duplicateEmail } from '@strata/domain/accounts/account-input';
import { SignupDto } from './signup.dto';
import { presentOrg, presentUser } from '../presenters';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { LoginThrottle } from './login-throttle';
import { PasswordHasher } from '@strata/accounts/password-hasher';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  /** seconds */
  expires_in: number;
}

function userContext(userId: string, org: string, requestId: string): CommandContext {
  return { org, principal: { kind: 'user', id: userId }, credential_id: null, agent_id: null, request_id: requestId };
}

/** Sign-up, sign-in and refresh-token rotation. */
@Injectable()
export class AuthHandlers {
  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly accounts: AccountsReadModel,
    private readonly tokens: TokenService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
  ) {}

  /** Starts a refresh-token family (or continues one) and returns the token to hand out. */
  private issueRefresh(tx: GraphTx, userId: string, familyId: string): string {
    const tokenId = this.ids.uuid();
    const secret = generateRefreshSecret();
    const data: RefreshTokenIssuedData = {
      user_id: userId,
      family_id: familyId,
      token_id: tokenId,
      token_sha256: sha256Hex(secret),
      issued_at: tx.now,
      expires_at: tx.now + this.tokens.refreshTtl,
    };
    tx.emit(Streams.user(userId), T.RefreshTokenIssued, data);
    return formatRefreshToken(tokenId, secret);
  }

  private pair(userId: string, refresh: string): TokenPair {
    const { access_token, expires_in } = this.tokens.signAccess(userId);
    return { access_token, refresh_token: refresh, token_type: 'Bearer', expires_in };
  }

  async signup(input: SignupDto, requestId: string) {
    const emailNorm = normaliseEmail(input.email);
    const passwordHash = await this.hasher.hash(input.password);
    const userId = this.ids.uuid();
    const orgId = this.ids.uuid();
    const orgName = input.organization_name ?? `${input.name ?? input.email.split('@')[0]}'s organization`;
    const out = await this.uow.run(userContext(userId, orgId, requestId), async (tx) => {
      if (this.accounts.userByEmail(emailNorm)) throw duplicateEmail();
      const user: UserSignedUpData = {
        user_id: userId,
        email: input.email,
        email_norm: emailNorm,
        name: input.name ?? null,
        password_hash: passwordHash,
        created_at: tx.now,
      };
      const org: OrganizationCreatedData = { org_id: orgId, name: orgName, created_by: userId, plan: 'free', created_at: tx.now };
      const member: MemberAddedData = { org_id: orgId, user_id: userId, role: 'owner', added_by: userId, at: tx.now };
      tx.emit(Streams.user(userId), T.UserSignedUp, user, 'no_stream');
      tx.emit(Streams.org(orgId), T.OrganizationCreated, org, 'no_stream');
      tx.emit(Streams.org(orgId), T.MemberAdded, member);
      const refresh = this.issueRefresh(tx, userId, this.ids.uuid());
      return {
        user: presentUser({ ...user, revision: 0 }),
        organization: presentOrg(org, 'owner'),
        refresh,
      };
    });
    return { user: out.user, organization: out.organization, ...this.pair(userId, out.refresh) };
  }

  async login(emailNorm: string, password: string, address: string, requestId: string): Promise<TokenPair> {
    this.throttle.check(emailNorm, address);
    const user = this.accounts.userByEmail(emailNorm);
    const ok = await this.hasher.verify(user?.password_hash ?? null, password);
    if (!user || !ok) {
      this.throttle.fail(emailNorm, address);
      throw AuthErrors.invalidCredentials();
    }
    this.throttle.succeed(emailNorm);
    const org = this.accounts.memberships(user.user_id)[0]?.org_id ?? '';
    const refresh = await this.uow.run(userContext(user.user_id, org, requestId), async (tx) => this.issueRefresh(tx, user.user_id, this.ids.uuid()));
    return this.pair(user.user_id, refresh);
  }

  /**
   * Rotates a refresh token. A token presented a second time revokes its whole family
   * (committed) and the caller gets 400 like any other refused refresh token.
   */
  async refresh(token: string, requestId: string): Promise<TokenPair> {
    const parsed = parseRefreshToken(token);
    if (!parsed) throw AuthErrors.invalidRefreshToken();
    const pre = this.accounts.refreshToken(parsed.token_id);
    if (!pre) throw AuthErrors.invalidRefreshToken();
    const org = this.accounts.memberships(pre.user_id)[0]?.org_id ?? '';
    const result = await this.uow.run(userContext(pre.user_id, org, requestId), async (tx) => {
      const row = this.accounts.refreshToken(parsed.token_id);
      const matches = row !== null && sameHex(sha256Hex(parsed.secret), row.token_sha256);
      const decision = decideRefresh(row, matches, tx.now);
      if (decision.kind === 'rejected') throw AuthErrors.invalidRefreshToken();
      const r = row!;
      if (decision.kind === 'reuse_detected') {
        const data: RefreshFamilyRevokedData = { user_id: r.user_id, family_id: r.family_id, reason: 'reuse_detected', at: tx.now };
        tx.emit(Streams.user(r.user_id), T.RefreshFamilyRevoked, data);
        return null;
      }
      const next = this.issueRefresh(tx, r.user_id, r.family_id);
      const used: RefreshTokenUsedData = {
        user_id: r.user_id,
        family_id: r.family_id,
        token_id: r.token_id,
        replaced_by: parseRefreshToken(next)!.token_id,
        at: tx.now,
      };
      tx.emit(Streams.user(r.user_id), T.RefreshTokenUsed, used);
      return { user_id: r.user_id, refresh: next };
    });
    if (result === null) throw AuthErrors.invalidRefreshToken();
    return this.pair(result.user_id, result.refresh);
  }
}
