import { Body as ReqBody, Controller, Get, Inject, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt, UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { decideSettingsChange, GovernanceStreams } from '@strata/domain/governance';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { governanceContext, iso } from '../governance-context';
import { PatchGovernanceSettingsDto } from './governance-settings.dto';
import { GovernanceSync } from '../sync/governance-sync';
import { Answers } from '../../platform/http/responses/response-fields';
import { GovernanceSettingsResponse } from './governance-settings.response';

@ApiTags('governance: settings')
@Controller('v1/governance/settings')
export class GovernanceSettingsController {
  constructor(
    private readonly governance: GovernanceReadModel,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly sync: GovernanceSync,
  ) {}

  private async present(org: string) {
    const s = this.governance.settings(org);
    return {
      ...s.settings,
      policy_counts: this.governance.policyCounts(org),
      sync: await this.sync.status(org),
      updated_at: iso(s.updated_at),
      updated_by: s.updated_by,
    };
  }

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'The organization’s governance settings' })
  @Answers(200, 'the settings', GovernanceSettingsResponse)
  get(@Auth() auth: AuthContext) {
    return this.present(auth.org_id);
  }

  @Patch()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Change any subset of mode, agent_scope_without_grants, approval_deadline_hours, approval_ttl_hours' })
  @Answers(200, 'the settings after the change', GovernanceSettingsResponse)
  async patch(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: PatchGovernanceSettingsDto) {
    const org = auth.org_id;
    await this.uow.run(governanceContext(auth, rid), async (tx) => {
      const current = this.governance.settings(org).settings;
      const changes = decideSettingsChange(current, body);
      if (!changes) return;
      tx.emit(GovernanceStreams.governance(org), 'GovernanceSettingsChanged', { org_id: org, changes, changed_by: auth.principal.id, at: tx.now });
    });
    return this.present(org);
  }
}
