import { Body as ReqBody, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readBoolean, readEnum, readPage } from '@strata/domain/validation';
import { AgentAccessGuard, AgentRoute } from '../agent-access.guard';
import { agentPathId } from '../agent-fields';
import { CreateAgentDto, UpdateAgentDto, agentInput } from './agent.dto';
import { AgentHandlers } from './agent.handlers';
import { ResolveDecisionDto } from './resolve-decision.dto';
import { Answers } from '../../platform/http/responses/response-fields';
import { ToolApprovalRecord } from '../../platform/http/responses/tool-approval-record';
import { AgentArticlePage, AgentPage, AgentResponse, AgentTemplateResponse, AgentWorkResponse } from './agent.response';

const STATUSES = ['active', 'paused', 'archived'] as const;

@ApiTags('managed agents')
@Controller('v1/agents')
@UseGuards(AgentAccessGuard)
export class AgentsController {
  constructor(private readonly handlers: AgentHandlers) {}

  @Post()
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Create a managed agent (Pro plan and higher); the template fills what is left out' })
  @Answers(201, 'the agent', AgentResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateAgentDto) {
    return this.handlers.create(auth, rid, agentInput(body));
  }

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The organization’s agents, newest first; archived ones with include_archived=true' })
  @Answers(200, 'a page of agents', AgentPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset'], ['include_archived']);
    const status = readEnum(q, 'status', STATUSES);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    return this.handlers.list(auth, status, readBoolean(q, 'include_archived') ?? false, limit, offset);
  }

  @Get('templates')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The agent templates: instructions, tools, budget and suggested schedules' })
  @Answers(200, 'the templates, a bare array', [AgentTemplateResponse])
  templates() {
    return this.handlers.templates();
  }

  @Get(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One agent (archived ones too), with its budget today and its usage' })
  @Answers(200, 'the agent', AgentResponse)
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Req() req: FastifyRequest) {
    return this.handlers.get(auth, agentPathId(id, req));
  }

  @Patch(':id')
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Change an agent’s fields; paused:true cancels its in-flight runs, paused:false resumes it' })
  @Answers(200, 'the agent', AgentResponse)
  update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Req() req: FastifyRequest, @ReqBody() body: UpdateAgentDto) {
    return this.handlers.update(auth, rid, agentPathId(id, req), agentInput(body));
  }

  @Post(':id/archive')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Archive an agent: its sessions archived, its bound keys revoked; again a no-op' })
  @Answers(200, 'the archived agent', AgentResponse)
  archive(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Req() req: FastifyRequest) {
    return this.handlers.archive(auth, rid, agentPathId(id, req));
  }

  @Get(':id/work')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'What the agent is doing: active sessions, pending decisions and inputs, upcoming schedules' })
  @Answers(200, 'what waits on the agent', AgentWorkResponse)
  work(@Auth() auth: AuthContext, @Param('id') id: string, @Req() req: FastifyRequest) {
    return this.handlers.work(auth, agentPathId(id, req));
  }

  @Get(':id/articles')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Live Articles the agent wrote, newest first' })
  @Answers(200, 'a page of the agent’s Articles', AgentArticlePage)
  articles(@Auth() auth: AuthContext, @Param('id') id: string, @Req() req: FastifyRequest, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset']);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    return this.handlers.articles(auth, agentPathId(id, req), limit, offset);
  }

  @Post(':id/resolve-decision')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('decide')
  @ApiOperation({ summary: 'Allow or deny one of the agent’s pending tool-call approvals (member or higher, users only); 409 invalid_transition once settled' })
  @Answers(200, 'the approval, resolved', ToolApprovalRecord)
  resolveDecision(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: ResolveDecisionDto, @Req() req: FastifyRequest) {
    return this.handlers.resolveDecision(auth, rid, agentPathId(id, req), body as unknown as Record<string, unknown>);
  }
}
