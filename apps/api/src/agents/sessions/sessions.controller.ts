import { Body as ReqBody, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, stateOf } from '@strata/auth/request-context.decorator';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { Errors } from '@strata/domain/errors';
import { Body, coerceQuery, readEnum, readPage } from '@strata/domain/validation';
import { AgentAccessGuard, AgentRoute, agentRouteGuard } from '../agent-access.guard';
import { pathId } from '../agent-fields';
import { CreateSessionDto, RespondDto, SESSION_STATUSES, SendMessageDto } from './session.dto';
import { SessionHandlers } from './session.handlers';
import { SessionStream } from './session-stream';
import { Answers } from '../../platform/http/responses/response-fields';
import { FastRoutes } from '../../platform/http/fast-routes';
import { dtoBody } from '../../platform/http/dto/dto-body.pipe';
import { AgentSessionPage, AgentSessionResponse, CreatedSessionResponse, InterruptResponse, MessageAnsweredResponse, MessageQueuedResponse, PendingInputResponse, RespondResponse, SessionEventPage } from './session.response';

const EVENT_TYPES = [
  'session.created', 'message.user', 'run.started', 'inference.completed', 'message.assistant', 'tool.call', 'approval.requested', 'approval.resolved',
  'tool.result', 'input.requested', 'input.provided', 'run.completed', 'run.failed', 'run.cancelled', 'budget.exhausted', 'session.archived',
];

@ApiTags('managed agents: sessions')
@Controller('v1/agents/sessions')
@UseGuards(AgentAccessGuard)
export class SessionsController {
  constructor(
    private readonly handlers: SessionHandlers,
    private readonly stream: SessionStream,
    plans: PlanLimits,
    fast: FastRoutes,
  ) {
    // each run's message: on the fast lane (the Nest pipeline was a measurable share of a
    // one-step run's CPU), with the guard's checks (from the method's own @AgentRoute), then
    // the body as the DTO pipe reads it
    const guard = agentRouteGuard(plans, SessionsController, 'message');
    fast.takeOver({
      method: 'POST',
      url: '/v1/agents/sessions/:sid/message',
      controller: SessionsController,
      methodName: 'message',
      status: 202,
      handle: async (req, reply, auth) => {
        guard(auth);
        const body = dtoBody(SendMessageDto, req.body);
        const r = await this.handlers.message(auth, stateOf(req).request_id, pathId((req.params as { sid: string }).sid), body);
        reply.status(r.status).send(r.body);
      },
    });
  }

  @Post()
  @ApiKeyOrJwt()
  @AgentRoute('act')
  @ApiOperation({ summary: 'Open a session with an agent; a first message starts a run at once' })
  @Answers(201, 'the session; with a message, its message_id and run_id', CreatedSessionResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateSessionDto) {
    return this.handlers.create(auth, rid, body);
  }

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Sessions, newest first; filter by agent_id and status' })
  @Answers(200, 'a page of sessions', AgentSessionPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset']);
    const status = readEnum(q, 'status', SESSION_STATUSES);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    const agentId = typeof q.agent_id === 'string' && q.agent_id ? q.agent_id : undefined;
    return this.handlers.list(auth, agentId, status, limit, offset);
  }

  @Get(':sid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One session with its current and last run' })
  @Answers(200, 'the session', AgentSessionResponse)
  get(@Auth() auth: AuthContext, @Param('sid') sid: string) {
    return this.handlers.get(auth, pathId(sid));
  }

  @Post(':sid/message')
  @ApiKeyOrJwt()
  @AgentRoute('act')
  @ApiOperation({ summary: 'Send a message: 202 queued (a run per message, one at a time); wait:true answers 200 with the run once it ended' })
  @Answers(202, 'the message is queued', MessageQueuedResponse)
  @Answers(200, 'wait: the run ended', MessageAnsweredResponse)
  async message(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('sid') sid: string, @ReqBody() body: SendMessageDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.handlers.message(auth, rid, pathId(sid), body);
    reply.status(r.status);
    return r.body;
  }

  @Post(':sid/interrupt')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('act')
  @ApiOperation({ summary: 'Stop the current run (aborting its model request) and discard the queued messages' })
  @Answers(200, 'what the interrupt stopped', InterruptResponse)
  interrupt(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('sid') sid: string) {
    return this.handlers.interrupt(auth, rid, pathId(sid));
  }

  @Post(':sid/archive')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('act')
  @ApiOperation({ summary: 'Archive the session (its run cancelled); again a no-op' })
  @Answers(200, 'the archived session', AgentSessionResponse)
  archive(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('sid') sid: string) {
    return this.handlers.archive(auth, rid, pathId(sid));
  }

  @Get(':sid/pending-input')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The question the agent waits on, if any' })
  @Answers(200, 'the pending question, if any', PendingInputResponse)
  pendingInput(@Auth() auth: AuthContext, @Param('sid') sid: string) {
    return this.handlers.pendingInput(auth, pathId(sid));
  }

  @Post(':sid/respond')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('act')
  @ApiOperation({ summary: 'Answer the agent’s pending question; its run goes on' })
  @Answers(200, 'the answer is given to the run', RespondResponse)
  respond(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('sid') sid: string, @ReqBody() body: RespondDto) {
    return this.handlers.respond(auth, rid, pathId(sid), body);
  }

  @Get(':sid/stream')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The session’s events live (text/event-stream); Last-Event-ID or ?after=<seq> replays what came after' })
  @ApiResponse({
    status: 200,
    description: 'Server-sent events: a `ready` event, then each session event as `id: <seq>`, `event: <type>`, `data: <envelope JSON>`; heartbeat comments every 15 s',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  async live(@Auth() auth: AuthContext, @Param('sid') sid: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    await this.stream.serve(auth, pathId(sid), request, reply);
  }

  @Get(':sid/events')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'The session’s recorded events in seq order (after, types, run_id)' })
  @Answers(200, 'a page of events', SessionEventPage)
  events(@Auth() auth: AuthContext, @Param('sid') sid: string, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset', 'after']);
    const { limit, offset } = readPage(q, { limit: 100, max: 1000 });
    const after = q.after === undefined ? 0 : q.after;
    if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) throw Errors.invalidField('after', 'after must be a non-negative integer');
    const types = typeof q.types === 'string' && q.types ? q.types.split(',').map((t) => t.trim()) : undefined;
    const bad = types?.find((t) => !EVENT_TYPES.includes(t));
    if (bad) throw Errors.invalidField('types', `unknown event type '${bad}'`, { allowed: EVENT_TYPES });
    const runId = typeof q.run_id === 'string' && q.run_id ? q.run_id : undefined;
    return this.handlers.events(auth, pathId(sid), { after, types, run_id: runId, limit, offset });
  }
}
