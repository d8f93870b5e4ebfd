import { BeforeApplicationShutdown, Global, Inject, Module, OnModuleInit } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { ACCOUNTS_DIRECTORY, AccountsDirectory } from '@strata/auth/accounts-directory.port';
import { PlanCatalogue, withRateLimit } from '@strata/auth/plans/plan-catalogue';
import { PlanLimits, USAGE_COUNTERS, UsageCounters } from '@strata/auth/plans/plan-limits';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import { ServerUnitOfWork } from '@strata/platform/unit-of-work/server-unit-of-work';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { AccountsProjection } from '@strata/projections/accounts/accounts.projection';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import type { ProjectionDefinition } from '@strata/projections/registry/projection-definition';
import { PROJECTION_DEFINITIONS } from '@strata/projections/registry/projection-registry';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { ACCOUNTS_UNIT_OF_WORK } from './accounts-unit-of-work';
import { CreateOwnerService } from './create-owner.service';
import { PasswordHasher } from './password-hasher';
import { nodeLimitCheck } from './usage/node-limit.check';
import { ServerUsageCounters } from './usage/server-usage-counters';
import { EmbeddedUsageCounters } from './usage/usage-counters';
import { AccountsLlmUsageRecorder } from './usage/llm-usage-recorder';
import { LANGUAGE_MODELS, LanguageModels, MeteredLanguageModels } from '@strata/ai';

/**
 * Accounts without HTTP: the read model (servers mode: this process's mirror of the log), the
 * unit of work account changes run in, plans, usage and the node limit, and owner creation.
 * The API's AccountsModule adds authentication, rate limits, request activity and routes;
 * the CLI composes this module alone. Global: `PlanLimits` and the read model are injectable
 * anywhere (managed agents call `assertManagedAgentsAllowed`), and so is `MeteredLanguageModels`
 * (model calls made for an organization, metered into its usage).
 */
@Global()
@Module({
  providers: [
    // servers mode: this replica's in-memory copy, fed from the log (started in onModuleInit)
    {
      provide: AccountsMirror,
      inject: [SERVER_STORAGE, PROJECTION_DEFINITIONS],
      useFactory: (s: ServerStores | null, projections: readonly ProjectionDefinition[]) => (s ? new AccountsMirror(s.events, projections) : null),
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
    { provide: PlanCatalogue, inject: [STRATA_CONFIG], useFactory: (cfg: StrataConfig) => new PlanCatalogue(withRateLimit(cfg.planLimits, cfg.rateLimitPerMinute)) },
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
    { provide: PasswordHasher, useFactory: () => new PasswordHasher() },
    CreateOwnerService,
    // the language model as work for an organization gets it: every call's tokens land in its usage
    {
      provide: MeteredLanguageModels,
      inject: [LANGUAGE_MODELS, ACCOUNTS_UNIT_OF_WORK],
      useFactory: (models: LanguageModels, uow: UnitOfWork) => new MeteredLanguageModels(models, new AccountsLlmUsageRecorder(uow)),
    },
  ],
  exports: [
    AccountsMirror,
    AccountsReadModel,
    ACCOUNTS_UNIT_OF_WORK,
    ACCOUNTS_DIRECTORY,
    PlanCatalogue,
    USAGE_COUNTERS,
    PlanLimits,
    PasswordHasher,
    CreateOwnerService,
    MeteredLanguageModels,
  ],
})
export class AccountsCoreModule implements OnModuleInit, BeforeApplicationShutdown {
  constructor(
    @Inject(AccountsMirror) private readonly mirror: AccountsMirror | null,
    @Inject(UNIT_OF_WORK) uow: UnitOfWork,
    limits: PlanLimits,
  ) {
    // the node limit is the unit of work's, not each route's: no write path can forget it
    uow.addCommitCheck(nodeLimitCheck(limits));
    // servers mode: the area read models in the mirror (ontology, agents, MCP, briefs) read their own writes too
    if (mirror && uow instanceof ServerUnitOfWork) uow.addProjectionWait(mirror);
  }

  /** Servers mode: the accounts mirror replays the log before anyone reads it (nobody can authenticate against half the keys). */
  async onModuleInit(): Promise<void> {
    await this.mirror?.start();
  }

  /** the subscription stops before the storage closes its connections */
  async beforeApplicationShutdown(): Promise<void> {
    await this.mirror?.close();
  }
}
