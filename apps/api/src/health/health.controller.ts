import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@strata/auth/route-tags';
import { CLOCK, Clock } from '@strata/domain/time';
import { Readiness } from '../platform/http/readiness';
import { VERSION } from '@strata/platform/version';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: Readiness,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness and readiness: 200 ok, or 503 while starting' })
  health(@Res() reply: FastifyReply) {
    if (!this.readiness.ready) {
      return reply
        .status(503)
        .header('Retry-After', '2')
        .send({ status: this.readiness.draining ? 'draining' : 'starting' });
    }
    return reply.send({ status: 'ok', version: VERSION, time: this.clock.now() });
  }

  @Get('health/live')
  @Public()
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP, starting and draining included (a Kubernetes livenessProbe)' })
  live() {
    return { status: 'alive' };
  }

  @Get('health/ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: 200 once the projections have caught up with the log, 503 while starting or draining (a Kubernetes readinessProbe)' })
  ready(@Res() reply: FastifyReply) {
    if (!this.readiness.ready) return reply.status(503).header('Retry-After', '2').send({ status: this.readiness.draining ? 'draining' : 'starting' });
    return reply.send({ status: 'ready' });
  }
}
