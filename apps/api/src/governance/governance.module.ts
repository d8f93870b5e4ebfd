import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { SpacesController } from './spaces/spaces.controller';
import { SpaceHandlers } from './spaces/space.handlers';
import { ToolGrantsController } from './tool-grants/tool-grants.controller';
import { ToolGrantHandlers } from './tool-grants/tool-grant.handlers';
import { GovernanceSettingsController } from './settings/governance-settings.controller';
import { PolicyModule } from '@strata/platform/policy/policy.module';
import { PoliciesController } from './policies/policies.controller';
import { PolicyHandlers } from './policies/policy.handlers';
import { AuditController } from './audit/audit.controller';
import { GovernanceSync } from './sync/governance-sync';
import { GovernanceSyncController } from './sync/governance-sync.controller';

/** Governance and access (REFERENCE §13): Spaces and their grants, agent tool grants, settings, structured policies. */
@Module({
  imports: [ScopeModule, PolicyModule],
  controllers: [SpacesController, ToolGrantsController, GovernanceSettingsController, PoliciesController, AuditController, GovernanceSyncController],
  providers: [SpaceHandlers, ToolGrantHandlers, PolicyHandlers, GovernanceSync],
})
export class GovernanceModule {}
