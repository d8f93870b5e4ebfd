import { Module, OnModuleInit } from '@nestjs/common';
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

/** Projects and living briefs (REFERENCE §12): the brief, its versions and history, Project grants. */
@Module({
  imports: [ScopeModule],
  controllers: [BriefController, ProjectGrantsController],
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
  ],
})
export class BriefsModule implements OnModuleInit {
  constructor(
    private readonly runner: JobRunner,
    private readonly job: BriefRegenerateJobHandler,
  ) {}

  onModuleInit(): void {
    this.runner.register(BRIEF_REGENERATE_JOB_KIND, this.job);
  }
}
