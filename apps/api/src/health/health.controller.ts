import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../platform/http/responses/response-fields';
import { HealthResponse, LiveResponse, NotReadyResponse, ReadyResponse } from './health.response';
import type { FastifyReply } from 'fastify';
import { Public } from '@strata/auth/route-tags';
import { CLOCK, Clock } from '@strata/domain/time';
import { Readiness } from '../platform/http/readiness';
import { VERSION } from '@strata/platform/version';
import { LANGUAGE_MODELS, LanguageModels } from '@strata/ai';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: Readiness,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness and readiness: 200 ok (with the configured language model, `llm:{provider, model}`), or 503 while starting' })
  @Answers(200, 'ready', HealthResponse)
  @Answers(503, 'starting or draining (Retry-After)', NotReadyResponse)
  health(@Res() reply: FastifyReply) {
    if (!this.readiness.ready) {
      return reply
        .status(503)
        .header('Retry-After', '2')
        .send({ status: this.readiness.draining ? 'draining' : 'starting' });
    }
    // which model serves the service, never its key or URL
    const llm = { provider: this.models.provider, model: this.models.model };
    const body: HealthResponse = { status: 'ok', version: VERSION, time: this.clock.now(), llm };
    return reply.send(body);
  }

  @Get('health/live')
  @Public()
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP, starting and draining included (a Kubernetes livenessProbe)' })
  @Answers(200, 'the process serves HTTP', LiveResponse)
  live(): LiveResponse {
    return { status: 'alive' };
  }

  @Get('health/ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: 200 once the projections have caught up with the log, 503 while starting or draining (a Kubernetes readinessProbe)' })
  @Answers(200, 'caught up', ReadyResponse)
  @Answers(503, 'starting or draining (Retry-After)', NotReadyResponse)
  ready(@Res() reply: FastifyReply) {
    if (!this.readiness.ready) return reply.status(503).header('Retry-After', '2').send({ status: this.readiness.draining ? 'draining' : 'starting' });
    return reply.send({ status: 'ready' });
  }
}
