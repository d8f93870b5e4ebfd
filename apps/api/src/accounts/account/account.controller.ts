import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { UserJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { presentMembership, presentUser } from '../presenters';
import { AccountsReadModel } from '@strata/projections/accounts/accounts-read-model';
import { AccountResponse } from './account.response';

@ApiTags('accounts: account')
@Controller('v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountsReadModel) {}

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'The signed-in user and their organization memberships (roles)' })
  @ApiOkResponse({ type: AccountResponse })
  get(@Auth() auth: AuthContext): AccountResponse {
    const user = this.accounts.user(auth.user_id!);
    if (!user) throw Errors.notFound('account not found');
    return {
      user: presentUser(user),
      memberships: this.accounts.memberships(user.user_id).map(presentMembership),
      current_org_id: auth.org_id || null,
      role: auth.role,
    };
  }
}
