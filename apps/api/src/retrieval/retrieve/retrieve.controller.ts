import { Body as ReqBody, Controller, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { reportingUnusedKeys } from '../../platform/http/unused-keys';
import { ContradictionItem } from '../shortcuts/review-queue.response';
import { CurationCounts, MergeCandidate, RankedNode, StaleDerivationPage } from './retrieve.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { RetrieveService } from './retrieve.service';

/** `POST /retrieve` (REFERENCE §5). Read-only. */
@ApiTags('retrieval: retrieve')
@Controller()
export class RetrieveController {
  constructor(
    private readonly retrieve: RetrieveService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Post('retrieve')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({
    summary:
      'Unified retrieval: text, semantic, hybrid (RRF k=60), active_goals, open_questions, weak_claims, pending_approvals, unresolved_contradictions, merge_candidates, curation_counts, stale_derivations, preferences, layer, recent',
  })
  @Answers(
    200,
    'by action: ranked nodes (text, semantic, hybrid, preferences); node lists (active_goals, open_questions, weak_claims, pending_approvals); contradictions; merge candidates; curation counts; a page of stale derivations; a page of nodes (layer, recent)',
    [RankedNode],
    ['NodeRecord'],
    [ContradictionItem],
    [MergeCandidate],
    CurationCounts,
    StaleDerivationPage,
    'NodePage',
  )
  async run(@Auth() auth: AuthContext, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const scope = await this.scopes.of(auth);
    return reportingUnusedKeys(assertObjectBody(raw), 'retrieve', reply, (body) => this.retrieve.run(scope, body));
  }
}
