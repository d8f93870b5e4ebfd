import { Module, OnModuleInit } from '@nestjs/common';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { SynthesisJobHandler, SYNTHESIS_JOB_KIND } from './run/synthesis-job.handler';
import { SynthesisRunController } from './run/synthesis-run.controller';
import { ProjectCorpusService } from './signals/project-corpus.service';
import { SignalsController } from './signals/signals.controller';

/** Synthesis (REFERENCE §10): a Project's structural signals, and the job that writes Articles from them. */
@Module({
  imports: [ScopeModule],
  controllers: [SignalsController, SynthesisRunController],
  providers: [ProjectCorpusService, SynthesisJobHandler],
})
export class SynthesisModule implements OnModuleInit {
  constructor(
    private readonly runner: JobRunner,
    private readonly handler: SynthesisJobHandler,
  ) {}

  onModuleInit(): void {
    this.runner.register(SYNTHESIS_JOB_KIND, this.handler);
  }
}
