import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountsCoreModule } from '@strata/accounts/accounts-core.module';
import { MaintenanceModule } from '@strata/maintenance/maintenance.module';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { PlatformModule } from '@strata/platform/platform.module';
import type { Clock } from '@strata/domain/time';

/**
 * What a CLI command runs on: `accounts` (admin create-owner) or `snapshot` (export, import).
 * Both are the service's own libs modules, the ones the API's AppModule composes too, so the
 * CLI applies exactly the rules the routes apply: storage and the unit of work, the accounts
 * read model, plans and the node limit; `snapshot` adds export, import and the embedding
 * defaults they name and compare with. Not the retrieval area: its vector index loads every
 * organization's vectors when it opens (hundreds of MB on a large installation), which none
 * of these commands reads; the index keeps its own checkpoint and replays what it missed from
 * the log when the service starts.
 */
export type CliCapability = 'accounts' | 'snapshot';

@Module({})
export class CliContextModule {
  static forRoot(config: StrataConfig, capability: CliCapability, clock: Clock): DynamicModule {
    return {
      module: CliContextModule,
      imports: [PlatformModule.forRoot(config, clock), CqrsModule.forRoot(), AccountsCoreModule, ...(capability === 'snapshot' ? [MaintenanceModule] : [])],
    };
  }
}
