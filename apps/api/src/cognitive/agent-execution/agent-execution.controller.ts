import { Body as ReqBody, Controller, Inject, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { AGENT_EXECUTION } from '@strata/domain/cognitive';
import { GovernanceStreams, toolGrantRefusal, toolNotGranted } from '@strata/domain/governance';
import { CLOCK, Clock } from '@strata/domain/time';
import { assertObjectBody } from '@strata/domain/validation';
import { ToolGrantService } from '@strata/platform/scope/tool-grants.service';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { cognitiveCall } from '../shared/cognitive-call';

/** The tool an execution starts: `affordance_uid` at the top level or in props. */
function affordanceOf(body: Record<string, unknown>): string | null {
  if (typeof body.affordance_uid === 'string' && body.affordance_uid) return body.affordance_uid;
  const props = body.props as Record<string, unknown> | undefined;
  return props && typeof props === 'object' && typeof props.affordance_uid === 'string' && props.affordance_uid ? props.affordance_uid : null;
}

/** POST /agent/execution: actions and rules in libs/domain/src/cognitive/agent-execution.ts. */
@ApiTags('cognitive: agent')
@Controller()
export class AgentExecutionController {
  constructor(
    private readonly commands: CommandBus,
    private readonly tools: ToolGrantService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
  ) {}

  @Post('agent/execution')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Track execution lifecycle (start, complete, fail); register agents' })
  async post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.assertToolGranted(auth, rid, raw);
    return cognitiveCall(this.commands, AGENT_EXECUTION, auth, rid, raw, reply);
  }

  /**
   * An agent-bound credential starting an execution of a tool needs the agent's unexpired grant
   * on a live Affordance (REFERENCE §13.4); users are not subject to tool grants. A tool that is
   * unknown or tombstoned has no live grant (a grant on a tombstoned one is dormant), so it is
   * refused too: the action itself does not check the field. A refusal writes only its
   * decision record (§13.4), so audit shows who was refused which tool.
   */
  private async assertToolGranted(auth: AuthContext, rid: string, raw: unknown): Promise<void> {
    if (!auth.bound_agent_id || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
    const body = assertObjectBody(raw);
    if (body.action !== 'start') return;
    const tool = affordanceOf(body);
    if (!tool) return;
    const agentId = auth.bound_agent_id;
    if (await this.tools.isGranted(auth.org_id, agentId, tool, this.clock.now())) return;
    const ctx = { org: auth.org_id, principal: auth.principal, credential_id: auth.api_key_id, agent_id: agentId, request_id: rid };
    await this.uow.run(ctx, async (tx) => {
      const data = toolGrantRefusal(tx.org, tx.uuid(), { method: 'POST', route: '/agent/execution', tool_uid: tool, agent_id: agentId });
      tx.emit(GovernanceStreams.governance(tx.org), 'PolicyDecisionRecorded', data);
    });
    throw toolNotGranted(tool, agentId);
  }
}
