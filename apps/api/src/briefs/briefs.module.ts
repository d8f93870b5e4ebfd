import { Module, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { McpConnectionsModule } from '@strata/mcp/connections/mcp-connections.module';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { ProjectAccessService } from './access/project-access.service';
import { BriefController } from './brief/brief.controller';
import { BriefHandlers } from './brief/brief.handlers';
import { BriefWriter } from './brief/brief-writer';
import { BriefRegenerateJobHandler, BRIEF_REGENERATE_JOB_KIND } from './generation/brief-regenerate-job.handler';
import { ProjectGrantHandlers } from './grants/project-grant.handlers';
import { ProjectGrantsController } from './grants/project-grants.controller';
import { ProjectSourcesService } from './sources/project-sources.service';
import { BriefingDelivery } from './schedules/briefing-delivery';
import { BriefingLog } from './schedules/briefing-log';
import { BRIEFING_RETRY_DELAYS, DEFAULT_RETRY_DELAYS } from './schedules/briefing-retry-delays';
import { BriefingRunJobHandler } from './schedules/briefing-run-job.handler';
import { BRIEFING_RUN_JOB_KIND, BriefingRunJobs } from './schedules/briefing-run-jobs';
import { BriefingScheduleHandlers } from './schedules/briefing-schedule.handlers';
import { BriefingSchedulesController } from './schedules/briefing-schedules.controller';
import { BriefingSecrets } from './schedules/briefing-secrets';
import { BriefingTicker } from './schedules/briefing-ticker.service';

/** How often the briefing ticker looks for due schedules and retries. */
const BRIEFING_TICK_S = 5;

/** Projects and living briefs (REFERENCE §12): the brief, its versions and history, Project grants. */
@Module({
  imports: [ScopeModule, McpConnectionsModule],
  controllers: [BriefController, ProjectGrantsController, BriefingSchedulesController],
  providers: [
    {
      provide: BriefsReadModel,
      // the briefs projection: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new BriefsReadModel(e.projections) : m!.briefsReadModel),
    },
    ProjectSourcesService,
    ProjectAccessService,
    BriefWriter,
    BriefHandlers,
    BriefRegenerateJobHandler,
    ProjectGrantHandlers,
    { provide: BRIEFING_RETRY_DELAYS, useValue: DEFAULT_RETRY_DELAYS },
    BriefingLog,
    BriefingSecrets,
    BriefingDelivery,
    BriefingRunJobs,
    BriefingRunJobHandler,
    BriefingScheduleHandlers,
    BriefingTicker,
  ],
  exports: [BriefsReadModel],
})
export class BriefsModule implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly runner: JobRunner,
    private readonly job: BriefRegenerateJobHandler,
    private readonly briefingJob: BriefingRunJobHandler,
    private readonly ticker: BriefingTicker,
    private readonly delivery: BriefingDelivery,
  ) {}

  onModuleInit(): void {
    this.runner.register(BRIEF_REGENERATE_JOB_KIND, this.job);
    this.runner.register(BRIEFING_RUN_JOB_KIND, this.briefingJob);
  }

  /** Missed fire times are caught up (or dropped) before the ticker starts firing. */
  async onApplicationBootstrap(): Promise<void> {
    await this.ticker.catchUpAtStartup();
    this.ticker.start(BRIEFING_TICK_S);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ticker.stop();
    this.delivery.close();
  }
}
