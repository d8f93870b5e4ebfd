import { Global, Module } from '@nestjs/common';
import { JobRegistry } from './job-registry';
import { JobsController } from './jobs.controller';

/** Background jobs: global, so that the areas that start jobs and `POST /clear` share one registry. */
@Global()
@Module({
  controllers: [JobsController],
  providers: [JobRegistry],
  exports: [JobRegistry],
})
export class JobsModule {}
