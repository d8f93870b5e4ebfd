import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { SpacesController } from './spaces/spaces.controller';
import { SpaceHandlers } from './spaces/space.handlers';
import { ToolGrantsController } from './tool-grants/tool-grants.controller';
import { ToolGrantHandlers } from './tool-grants/tool-grant.handlers';
import { GovernanceSettingsController } from './settings/governance-settings.controller';

/** Governance and access (REFERENCE §13): Spaces and their grants, agent tool grants, settings. */
@Module({
  imports: [ScopeModule],
  controllers: [SpacesController, ToolGrantsController, GovernanceSettingsController],
  providers: [SpaceHandlers, ToolGrantHandlers],
})
export class GovernanceModule {}
