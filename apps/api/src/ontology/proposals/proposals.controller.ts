import { Body as ReqBody, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { PROPOSAL_TYPES, REVIEW_STATUSES } from '@strata/domain/ontology';
import { canonicalNodeTypeName } from '@strata/domain/catalogue';
import { Body, coerceQuery, readEnum, readPage, readString } from '@strata/domain/validation';
import { ApproveProposalDto, BatchApproveDto, BatchRejectDto, EditProposalDto, RejectProposalDto } from './proposal.dto';
import { ProposalHandlers, readEdits } from './proposal.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { BatchReviewResponse, ProposalPage, ProposalResponse } from './proposal.response';

@ApiTags('ontology: proposals')
@Controller('v1/ontology/proposals')
export class ProposalsController {
  constructor(private readonly handlers: ProposalHandlers) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Proposals, newest first; filters status, schema_id, object_type, proposal_type, extract_job_id' })
  @Answers(200, 'a page of proposals, created_at descending', ProposalPage)
  list(@Auth() auth: AuthContext, @Query() q: Body): Promise<ProposalPage> {
    const query = coerceQuery(q, ['limit', 'offset']);
    const objectType = readString(query, 'object_type', { max: 100 });
    const filter = {
      status: readEnum(query, 'status', REVIEW_STATUSES),
      schema_id: readString(query, 'schema_id', { max: 128 }),
      object_type: objectType && canonicalNodeTypeName(objectType),
      proposal_type: readEnum(query, 'proposal_type', PROPOSAL_TYPES),
      extract_job_id: readString(query, 'extract_job_id', { max: 128 }),
    };
    const { limit, offset } = readPage(query, { limit: 50, max: 1000 });
    return this.handlers.list(auth, filter, limit, offset);
  }

  @Post('batch-approve')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Approve up to 100 proposals, each on its own' })
  @Answers(200, 'one result per id, in input order', BatchReviewResponse)
  batchApprove(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: BatchApproveDto) {
    return this.handlers.batch(auth, rid, body.ids, 'approve', body.feedback ?? null);
  }

  @Post('batch-reject')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Reject up to 100 proposals, each on its own' })
  @Answers(200, 'one result per id, in input order', BatchReviewResponse)
  batchReject(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: BatchRejectDto) {
    return this.handlers.batch(auth, rid, body.ids, 'reject', body.reason ?? null);
  }

  @Get(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One proposal with its full diff in changes_json' })
  @Answers(200, 'the proposal', ProposalResponse)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ProposalResponse> {
    return this.handlers.get(auth, id);
  }

  @Patch(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Save edits without approving (pending or approval_required); keeps original_snapshot' })
  @Answers(200, 'the edited proposal', ProposalResponse)
  edit(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: EditProposalDto): Promise<ProposalResponse> {
    return this.handlers.edit(auth, rid, id, readEdits(body.edits));
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Approve (optional inline edits) and apply at once; the record is normally applied' })
  @Answers(200, 'the proposal, normally applied (apply_failed when writing failed)', ProposalResponse)
  approve(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: ApproveProposalDto): Promise<ProposalResponse> {
    return this.handlers.approve(auth, rid, id, body.edits ? readEdits(body.edits) : undefined);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Reject a pending or approval_required proposal' })
  @Answers(200, 'the rejected proposal', ProposalResponse)
  reject(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: RejectProposalDto): Promise<ProposalResponse> {
    return this.handlers.reject(auth, rid, id, body.reason ?? null);
  }

  @Post(':id/apply')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Idempotent retry of an approved or apply_failed proposal; an applied one returns unchanged' })
  @Answers(200, 'the proposal', ProposalResponse)
  apply(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string): Promise<ProposalResponse> {
    return this.handlers.apply(auth, rid, id);
  }
}
