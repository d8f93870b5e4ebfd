import { Body as ReqBody, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, Public, UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { SubscribeDto } from './subscribe.dto';
import { BillingHandlers } from './billing.handlers';
import { PlanResponse, SubscribeResponse, SubscriptionResponse, UsageResponse } from './billing.response';

@ApiTags('accounts: billing and usage')
@Controller('v1')
export class BillingController {
  constructor(private readonly handlers: BillingHandlers) {}

  @Get('billing/plans')
  @Public()
  @ApiOperation({ summary: 'Plans and their limits (nodes, requests per minute, ingestion credits, managed agents, agents, agent credits, concurrent runs, schedules, MCP connections)' })
  @ApiOkResponse({ type: PlanResponse, isArray: true })
  plans(): PlanResponse[] {
    return this.handlers.plans();
  }

  @Get('billing/subscription')
  @UserJwt()
  @ApiOperation({ summary: "The organization's current plan" })
  @ApiOkResponse({ type: SubscriptionResponse })
  subscription(@Auth() auth: AuthContext): SubscriptionResponse {
    return this.handlers.subscription(auth);
  }

  @Post('billing/subscribe')
  @HttpCode(200)
  @UserJwt()
  @ApiOperation({ summary: 'Change the plan (owners and admins); takes effect at once' })
  @ApiOkResponse({ type: SubscribeResponse })
  subscribe(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: SubscribeDto): Promise<SubscribeResponse> {
    return this.handlers.subscribe(auth, body.plan, rid);
  }

  @Get('usage')
  @ApiKeyOrJwt()
  @ApiOperation({
    summary: 'Current organization usage: nodes, edges, requests this period, credits used and left, language-model calls and tokens, agents and MCP connections',
    description:
      '`llm: {calls, input_tokens, output_tokens}`: the language-model calls made for the organization this period and the tokens the provider reported for them. ' +
      '`agents: {active, limit}`, `agent_credits: {used, limit, left, today}`, `runs: {this_period, running, queued, concurrent_limit}`, `schedules: {used, limit}`, `mcp_connections: {used, limit}` (live connections) beside their plan limits.',
  })
  @ApiOkResponse({ type: UsageResponse })
  usage(@Auth() auth: AuthContext): Promise<UsageResponse> {
    return this.handlers.usage(auth);
  }
}
