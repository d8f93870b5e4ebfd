import { Global, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost, Reflector } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyInstance } from 'fastify';
import { CLOCK, Clock } from '@strata/domain/time';
import { ACCOUNTS_DIRECTORY, AccountsDirectory } from '@strata/auth/accounts-directory.port';
import { StrataRequestState } from '@strata/auth/auth-context';
import { StrataBearerStrategy } from '@strata/auth/bearer.strategy';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { PlanCatalogue } from '@strata/auth/plans/plan-catalogue';
import { PlanLimits, USAGE_COUNTERS, UsageCounters } from '@strata/auth/plans/plan-limits';
import { PlanThrottlerGuard, planThrottlerOptions } from '@strata/auth/rate-limit/plan-throttler.guard';
import { StrataAuthGuard } from '@strata/auth/strata-auth.guard';
import { resolveJwtSecret } from '@strata/auth/tokens/jwt-secret';
import { TokenService } from '@strata/auth/tokens/token.service';
import { STRATA_CONFIG, StrataConfig } from '../platform/config/strata-config';
import { EmbeddedStorage } from '../platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../platform/storage/storage.tokens';
import { AccountController } from './account/account.controller';
import { RequestActivity } from './activity/request-activity';
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
import { AccountsReadModel } from './read-model/accounts-read-model';
import { EmbeddedUsageCounters } from './usage/usage-counters';

/**
 * Accounts, organizations, API keys, plans and authentication. Global: the auth guard applies
 * to every route of every area, and `PlanLimits` is injectable anywhere (graph writes call
 * `assertCanAddNodes`, managed agents `assertManagedAgentsAllowed`).
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [STRATA_CONFIG],
      useFactory: (cfg: StrataConfig) => planThrottlerOptions(new PlanCatalogue(cfg.planLimits), cfg.rateLimitPerMinute),
    }),
  ],
  controllers: [AuthController, AccountController, OrgsController, ApiKeysController, BillingController],
  providers: [
    // read model and authentication
    {
      provide: AccountsReadModel,
      inject: [EMBEDDED_STORAGE],
      useFactory: (s: EmbeddedStorage) =>
        new AccountsReadModel(s.projections, s.runner.projections.find((p) => p.name === 'accounts') as AccountsProjection),
    },
    { provide: ACCOUNTS_DIRECTORY, useExisting: AccountsReadModel },
    { provide: PlanCatalogue, inject: [STRATA_CONFIG], useFactory: (cfg: StrataConfig) => new PlanCatalogue(cfg.planLimits) },
    {
      provide: TokenService,
      inject: [STRATA_CONFIG, CLOCK],
      useFactory: (cfg: StrataConfig, clock: Clock) =>
        new TokenService(resolveJwtSecret(cfg.jwtSecret, cfg.dataDir), cfg.accessTokenTtl, cfg.refreshTokenTtl, clock),
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
      inject: [EMBEDDED_STORAGE, AccountsReadModel],
      useFactory: (s: EmbeddedStorage, a: AccountsReadModel) => new EmbeddedUsageCounters(s, a),
    },
    {
      provide: PlanLimits,
      inject: [PlanCatalogue, ACCOUNTS_DIRECTORY, USAGE_COUNTERS, CLOCK],
      useFactory: (c: PlanCatalogue, d: AccountsDirectory, u: UsageCounters, clock: Clock) => new PlanLimits(c, d, u, () => clock.now()),
    },
    { provide: RequestActivity, inject: [STRATA_CONFIG], useFactory: (cfg: StrataConfig) => new RequestActivity(cfg.dataDir) },
    { provide: PasswordHasher, useFactory: () => new PasswordHasher() },
    { provide: LoginThrottle, inject: [CLOCK], useFactory: (clock: Clock) => new LoginThrottle(() => clock.now()) },
    // commands and queries
    AuthHandlers,
    OrgHandlers,
    ApiKeyHandlers,
    BillingHandlers,
  ],
  exports: [PlanLimits, PlanCatalogue, CredentialResolver, DirectAuthenticator, TokenService, AccountsReadModel, USAGE_COUNTERS, ACCOUNTS_DIRECTORY],
})
export class AccountsModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly activity: RequestActivity,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Request activity: recorded after the response is sent, so it never slows a request. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify?.addHook) return;
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

  onApplicationShutdown(): void {
    this.activity.close();
  }
}
