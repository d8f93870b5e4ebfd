import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { SpacesController } from './spaces/spaces.controller';
import { SpaceHandlers } from './spaces/space.handlers';

/** Governance and access (REFERENCE §13): Spaces and their grants. */
@Module({
  imports: [ScopeModule],
  controllers: [SpacesController],
  providers: [SpaceHandlers],
})
export class GovernanceModule {}
