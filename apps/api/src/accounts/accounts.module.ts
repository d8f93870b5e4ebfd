import * as path from 'node:path';
import { BeforeApplicationShutdown, Global, Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost, Reflector } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyInstance } from 'fastify';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { ACTIVITY_STORE, ActivityStore } from '@strata/auth/activity/activity-store.port';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import { ACCOUNTS_DIRECTORY, AccountsDirectory } from '@strata/auth/accounts-directory.port';
import { StrataRequestState } from '@strata/auth/auth-context';
import { StrataBearerStrategy } from '@strata/auth/bearer.strategy';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { PlanCatalogue } from '@strata/auth/plans/plan-catalogue';
import { PlanLimits, USAGE_COUNTERS, UsageCounters } from '@strata/auth/plans/plan-limits';
import { PlanThrottlerGuard, planThrottlerOptions } from '@strata/auth/rate-limit/plan-throttler.guard';
import { StrataAuthGuard } from '@strata/auth/strata-auth.guard';
import { requireSharedJwtSecret, resolveJwtSecret } from '@strata/auth/tokens/jwt-secret';
import { TokenService } from '@strata/auth/tokens/token.service';
import { STRATA_CONFIG, StrataConfig } from '../platform/config/strata-config';
import { EmbeddedStorage } from '../platform/storage/embedded-storage';
import type { ServerStores } from '../platform/storage/server-stores';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '../platform/storage/storage.tokens';
import { ServerUnitOfWork } from '../platform/unit-of-work/server-unit-of-work';
import { UNIT_OF_WORK, UnitOfWork } from '../platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from './accounts-unit-of-work';
import { AccountController } from './account/account.controller';
import { OPS_FILE, RequestActivity } from './activity/request-activity';
import { ApiKeyHandlers } from './api-keys/api-key.handlers';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthController } from './auth/auth.controller';
import { AuthHandlers } from './auth/auth.handlers';
import { LoginThrottle } from './auth/login-throttle';
import { PasswordHasher } from './auth/password-hasher';
import { BillingController } from './billing/billing.controller';
import { BillingHandlers } from './billing/billing.handlers';
import { OrgHandlers } from './orgs/org.handlers';
import { OrgsController } from './orgs/orgs.controller';
import { AccountsProjection } from './read-model/accounts.projection';
import { AccountsMirror } from './read-model/accounts-mirror';
import { AccountsReadModel } from './read-model/accounts-read-model';
import { ServerUsageCounters } from './usage/server-usage-counters';
import { EmbeddedUsageCounters } from './usage/usage-counters';
import { nodeLimitCheck } from './usage/node-limit.check';

/**
 * Accounts, organizations, API keys, plans and authentication. Global: the auth guard applies
 * to every route of every area, and `PlanLimits` is injectable anywhere (managed agents call
 * `assertManagedAgentsAllowed`; the node limit is a check of the unit of work, registered here).
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [STRATA_CONFIG, CLOCK],
      useFactory: (cfg: StrataConfig, clock: Clock) => planThrottlerOptions(new PlanCatalogue(cfg.planLimits), cfg.rateLimitPerMinute, clock),
    }),
  ],
  controllers: [AuthController, AccountController, OrgsController, ApiKeysController, BillingController],
  providers: [
    // read model and authentication
    // servers mode: this replica's in-memory copy, fed from the log (started in onModuleInit)
    {
      provide: AccountsMirror,
      inject: [SERVER_STORAGE],
      useFactory: (s: ServerStores | null) => (s ? new AccountsMirror(s.events) : null),
    },
    {
      provide: AccountsReadModel,
      inject: [EMBEDDED_STORAGE, AccountsMirror],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) =>
        e ? new AccountsReadModel(e.projections, e.runner.projections.find((p) => p.name === 'accounts') as AccountsProjection) : m!.readModel,
    },
    {
      provide: ACCOUNTS_UNIT_OF_WORK,
      inject: [UNIT_OF_WORK, SERVER_STORAGE, AccountsMirror, CLOCK, ID_GENERATOR],
      useFactory: (uow: UnitOfWork, s: ServerStores | null, m: AccountsMirror | null, clock: Clock, ids: IdGenerator) =>
        s ? new ServerUnitOfWork(s.events, s.graph, m!, clock, ids, s.readWaitMs) : uow,
    },
    { provide: ACCOUNTS_DIRECTORY, useExisting: AccountsReadModel },
    { provide: PlanCatalogue, inject: [STRATA_CONFIG], useFactory: (cfg: StrataConfig) => new PlanCatalogue(cfg.planLimits) },
    {
      provide: TokenService,
      inject: [STRATA_CONFIG, CLOCK],
      useFactory: (cfg: StrataConfig, clock: Clock) =>
        new TokenService(
          cfg.store === 'servers' ? requireSharedJwtSecret(cfg.jwtSecret) : resolveJwtSecret(cfg.jwtSecret, cfg.dataDir),
          cfg.accessTokenTtl,
          cfg.refreshTokenTtl,
          clock,
        ),
    },
    {
      provide: CredentialResolver,
      inject: [ACCOUNTS_DIRECTORY, TokenService, CLOCK],
      useFactory: (d: AccountsDirectory, t: TokenService, clock: Clock) => new CredentialResolver(d, t, clock),
    },
    StrataBearerStrategy,
    PlanThrottlerGuard,
    DirectAuthenticator,
    {
      provide: APP_GUARD,
      inject: [Reflector, PlanThrottlerGuard, CredentialResolver],
      useFactory: (reflector: Reflector, throttler: PlanThrottlerGuard, resolver: CredentialResolver) => new StrataAuthGuard(reflector, throttler, resolver),
    },
    // plans and usage
    {
      provide: USAGE_COUNTERS,
      inject: [EMBEDDED_STORAGE, SERVER_STORAGE, AccountsReadModel, AccountsMirror, CLOCK],
      useFactory: (e: EmbeddedStorage | null, s: ServerStores | null, a: AccountsReadModel, m: AccountsMirror | null, clock: Clock) => {
        if (e) return new EmbeddedUsageCounters(e, a, clock);
        const counters = new ServerUsageCounters(
          { checkpoint: () => s!.checkpoints.lowest(['graph']), countLive: (org) => s!.graph.countNodes(org, {}) },
          a,
          clock,
        );
        m!.onFollowed((event) => counters.observe(event));
        return counters;
      },
    },
    {
      provide: PlanLimits,
      inject: [PlanCatalogue, ACCOUNTS_DIRECTORY, USAGE_COUNTERS, CLOCK],
      useFactory: (c: PlanCatalogue, d: AccountsDirectory, u: UsageCounters, clock: Clock) => new PlanLimits(c, d, u, () => clock.now()),
    },
    {
      provide: ACTIVITY_STORE,
      inject: [STRATA_CONFIG, SERVER_STORAGE],
      useFactory: (cfg: StrataConfig, s: ServerStores | null): ActivityStore => s?.activity ?? new SqliteActivityStore(path.join(cfg.dataDir, OPS_FILE)),
    },
    { provide: RequestActivity, inject: [ACTIVITY_STORE], useFactory: (store: ActivityStore) => new RequestActivity(store) },
    { provide: PasswordHasher, useFactory: () => new PasswordHasher() },
    { provide: LoginThrottle, inject: [CLOCK], useFactory: (clock: Clock) => new LoginThrottle(() => clock.now()) },
    // commands and queries
    AuthHandlers,
    OrgHandlers,
    ApiKeyHandlers,
    BillingHandlers,
  ],
  exports: [PlanLimits, PlanCatalogue, CredentialResolver, DirectAuthenticator, TokenService, AccountsReadModel, USAGE_COUNTERS, ACCOUNTS_DIRECTORY, ACCOUNTS_UNIT_OF_WORK],
})
export class AccountsModule implements OnModuleInit, BeforeApplicationShutdown {
  private readonly log = new Logger('Accounts');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly activity: RequestActivity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(USAGE_COUNTERS) private readonly counters: UsageCounters,
    @Inject(AccountsMirror) private readonly mirror: AccountsMirror | null,
    @Inject(UNIT_OF_WORK) uow: UnitOfWork,
    limits: PlanLimits,
  ) {
    // the node limit is the unit of work's, not each route's: no write path can forget it
    uow.addCommitCheck(nodeLimitCheck(limits));
  }

  /**
   * Servers mode: the accounts mirror replays the log before the service listens (nobody can
   * authenticate against half the keys), then a serving replica reads live-node counts in the
   * background.
   * Request activity: recorded after the response is sent, so it never slows a request.
   */
  async onModuleInit(): Promise<void> {
    await this.mirror?.start();
    // an application context (the CLI) serves no requests: nothing to record or count ahead
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify?.addHook) return;
    if (this.mirror && this.counters instanceof ServerUsageCounters)
      void this.counters.warm(this.mirror.readModel.orgIds()).catch((err) => this.log.warn(`live-node counts: ${(err as Error).message}`));
    fastify.addHook('onResponse', (req, reply, done) => {
      const auth = (req as unknown as { strata?: StrataRequestState }).strata?.auth;
      if (auth && auth.org_id)
        this.activity.record({
          org_id: auth.org_id,
          key_id: auth.api_key_id,
          method: req.method,
          route: req.routeOptions?.url ?? req.url.split('?')[0],
          status: reply.statusCode,
          at: this.clock.now(),
        });
      done();
    });
  }

  /** before the storage closes its connections: the last activity is written, the subscription stops */
  async beforeApplicationShutdown(): Promise<void> {
    await this.activity.close();
    await this.mirror?.close();
  }
}
