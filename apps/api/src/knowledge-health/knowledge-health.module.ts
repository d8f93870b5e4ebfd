import { Module } from '@nestjs/common';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { KnowledgeHealthReadModel } from '@strata/projections/knowledge-health/knowledge-health-read-model';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { ExceptionViewService } from './exception-view.service';
import { ExceptionListHandler } from './exceptions/exception-list.handler';
import { ExceptionsController } from './exceptions/exceptions.controller';
import { HealthSummaryController } from './summary/health-summary.controller';
import { HealthSummaryHandler } from './summary/health-summary.handler';

/** Knowledge Health (REFERENCE §14): the summary and the exceptions, read from their projection. */
@Module({
  imports: [ScopeModule],
  controllers: [HealthSummaryController, ExceptionsController],
  providers: [
    {
      provide: KnowledgeHealthReadModel,
      // the projection: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new KnowledgeHealthReadModel(e.projections) : m!.healthReadModel),
    },
    ExceptionViewService,
    ExceptionListHandler,
    HealthSummaryHandler,
  ],
})
export class KnowledgeHealthModule {}
