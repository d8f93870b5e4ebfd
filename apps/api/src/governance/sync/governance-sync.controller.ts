import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { GovernanceSync } from './governance-sync';
import { Answers } from '../../platform/http/responses/response-fields';
import { GovernanceSyncResponse } from './governance-sync.response';

@ApiTags('governance: sync')
@Controller('v1/governance/sync')
export class GovernanceSyncController {
  constructor(private readonly sync: GovernanceSync) {}

  @Post()
  @HttpCode(200)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Mirror policy state into the graph (Policy nodes, GovernedByPolicy edges) in one transaction' })
  @Answers(200, 'what the sync changed', GovernanceSyncResponse)
  run(@Auth() auth: AuthContext, @RequestId() rid: string) {
    return this.sync.sync(auth, rid);
  }
}
