import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { ContradictionItem } from './review-queue.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { DEFAULT_WEAK_CLAIM_THRESHOLD } from '@strata/domain/retrieval';
import { Body, coerceQuery, present, readPage, readUnit } from '@strata/domain/validation';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { ReviewQueuesService } from './review-queues.service';

const NUMERIC = ['limit', 'offset', 'threshold', 'max_confidence'];

/** The GET query shortcuts (REFERENCE §5.3): bare arrays, `limit` 100 by default (max 1000). */
@ApiTags('retrieval: shortcuts')
@Controller()
export class ShortcutsController {
  constructor(
    private readonly queues: ReviewQueuesService,
    private readonly scopes: ReadScopeService,
  ) {}

  private async args(auth: AuthContext, query: Body) {
    const q = coerceQuery(query, NUMERIC);
    return { q, scope: await this.scopes.of(auth), limit: readPage(q, { limit: 100, max: 1000 }).limit };
  }

  @Get('goals')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Active goals (status active or unset): priority, then deadline, then creation' })
  @Answers(200, 'active goals', ['NodeRecord'])
  async goals(@Auth() auth: AuthContext, @Query() query: Body) {
    const { scope, limit } = await this.args(auth, query);
    return this.queues.activeGoals(scope, limit);
  }

  @Get('decisions')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Open decisions (status open, revisited or unset), newest first' })
  @Answers(200, 'open decisions', ['NodeRecord'])
  async decisions(@Auth() auth: AuthContext, @Query() query: Body) {
    const { scope, limit } = await this.args(auth, query);
    return this.queues.openDecisions(scope, limit);
  }

  @Get('questions')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Open questions (Question and OpenQuestion): importance, then newest' })
  @Answers(200, 'open questions', ['NodeRecord'])
  async questions(@Auth() auth: AuthContext, @Query() query: Body) {
    const { scope, limit } = await this.args(auth, query);
    return this.queues.openQuestions(scope, limit);
  }

  @Get('claims/weak')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Claims with confidence below `threshold` (alias max_confidence; default 0.6), weakest first' })
  @Answers(200, 'weak claims, weakest first', ['NodeRecord'])
  async weakClaims(@Auth() auth: AuthContext, @Query() query: Body) {
    const { q, scope, limit } = await this.args(auth, query);
    const threshold = readUnit(q, present(q, 'threshold') ? 'threshold' : 'max_confidence') ?? DEFAULT_WEAK_CLAIM_THRESHOLD;
    return this.queues.weakClaims(scope, threshold, limit);
  }

  @Get('contradictions')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Unresolved Contradicts edges between live nodes, newest first' })
  @Answers(200, 'unresolved contradictions, newest first', [ContradictionItem])
  async contradictions(@Auth() auth: AuthContext, @Query() query: Body) {
    const { scope, limit } = await this.args(auth, query);
    return this.queues.unresolvedContradictions(scope, limit);
  }

  @Get('approvals/pending')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Pending approvals, oldest request first' })
  @Answers(200, 'pending approvals, oldest first', ['NodeRecord'])
  async approvals(@Auth() auth: AuthContext, @Query() query: Body) {
    const { scope, limit } = await this.args(auth, query);
    return this.queues.pendingApprovals(scope, limit);
  }
}
