import { ScopeModule } from '@strata/platform/scope/scope.module';
import { KnownAgents } from '@strata/platform/scope/known-agents';
import { BeforeApplicationShutdown, Global, Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyInstance } from 'fastify';
import { CLOCK, Clock } from '@strata/domain/time';
import { ACTIVITY_STORE, ActivityStore } from '@strata/auth/activity/activity-store.port';
import { ACCOUNTS_DIRECTORY, AccountsDirectory } from '@strata/auth/accounts-directory.port';
import { StrataRequestState } from '@strata/auth/auth-context';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { PlanCatalogue } from '@strata/auth/plans/plan-catalogue';
import { USAGE_COUNTERS, UsageCounters } from '@strata/auth/plans/plan-limits';
import { PlanThrottlerGuard, planThrottlerOptions } from '@strata/auth/rate-limit/plan-throttler.guard';
import { StrataAuthGuard } from '@strata/auth/strata-auth.guard';
import { requireSharedJwtSecret, resolveJwtSecret } from '@strata/auth/tokens/jwt-secret';
import { TokenService } from '@strata/auth/tokens/token.service';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { OPS_STORES, OpsStores } from '@strata/platform/storage/ops-stores';
import { AccountsCoreModule } from '@strata/accounts/accounts-core.module';
import { McpConnectionsModule } from '@strata/mcp/connections';
import { AccountController } from './account/account.controller';
import { RequestActivity } from './activity/request-activity';
import { ApiKeyHandlers } from './api-keys/api-key.handlers';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthController } from './auth/auth.controller';
import { AuthHandlers } from './auth/auth.handlers';
import { LoginThrottle } from './auth/login-throttle';
import { BillingController } from './billing/billing.controller';
import { BillingHandlers } from './billing/billing.handlers';
import { OrgHandlers } from './orgs/org.handlers';
import { OrgsController } from './orgs/orgs.controller';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { ServerUsageCounters } from '@strata/accounts/usage/server-usage-counters';

/**
 * Accounts, organizations, API keys, plans and authentication: the HTTP side (routes, the auth
 * guard, rate limits, request activity) over AccountsCoreModule (read model, plans, usage, the
 * node limit). Global: the auth guard applies to every route of every area.
 */
@Global()
@Module({
  imports: [
    AccountsCoreModule,
    // the Project grants a removed member loses (REFERENCE §12.8)
    ScopeModule,
    // the MCP connections read model, for GET /v1/usage (REFERENCE §17)
    McpConnectionsModule,
    ThrottlerModule.forRootAsync({
      inject: [STRATA_CONFIG, CLOCK],
      useFactory: (cfg: StrataConfig, clock: Clock) => planThrottlerOptions(new PlanCatalogue(cfg.planLimits), cfg.rateLimitPerMinute, clock),
    }),
  ],
  controllers: [AuthController, AccountController, OrgsController, ApiKeysController, BillingController],
  providers: [
    // authentication (the read model, plans and usage are AccountsCoreModule's)
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
      inject: [ACCOUNTS_DIRECTORY, TokenService, CLOCK, KnownAgents],
      // a key bound to a managed agent acts within the agent's scope (REFERENCE §16.13)
      useFactory: (d: AccountsDirectory, t: TokenService, clock: Clock, agents: KnownAgents) => new CredentialResolver(d, t, clock, (org, id) => agents.managed(org, id)),
    },
    PlanThrottlerGuard,
    DirectAuthenticator,
    {
      provide: APP_GUARD,
      inject: [PlanThrottlerGuard, DirectAuthenticator],
      useFactory: (throttler: PlanThrottlerGuard, authenticator: DirectAuthenticator) => new StrataAuthGuard(throttler, authenticator),
    },
    { provide: ACTIVITY_STORE, inject: [OPS_STORES], useFactory: (ops: OpsStores): ActivityStore => ops.activity() },
    { provide: RequestActivity, inject: [ACTIVITY_STORE], useFactory: (store: ActivityStore) => new RequestActivity(store) },
    { provide: LoginThrottle, inject: [CLOCK], useFactory: (clock: Clock) => new LoginThrottle(() => clock.now()) },
    // commands and queries
    AuthHandlers,
    OrgHandlers,
    ApiKeyHandlers,
    BillingHandlers,
  ],
  exports: [CredentialResolver, DirectAuthenticator, TokenService],
})
export class AccountsModule implements OnModuleInit, BeforeApplicationShutdown {
  private readonly log = new Logger('Accounts');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly activity: RequestActivity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(USAGE_COUNTERS) private readonly counters: UsageCounters,
    @Inject(AccountsMirror) private readonly mirror: AccountsMirror | null,
  ) {}

  /**
   * Servers mode: the accounts mirror replays the log before the service listens (nobody can
   * authenticate against half the keys; AccountsCoreModule awaits the same start), then a
   * serving replica reads live-node counts in the background.
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

  /** before the storage closes its connections: the last activity is written */
  async beforeApplicationShutdown(): Promise<void> {
    await this.activity.close();
  }
}
