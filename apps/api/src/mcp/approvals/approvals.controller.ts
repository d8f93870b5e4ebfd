import { Body as ReqBody, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { UserJwt } from '@strata/auth/route-tags';
import { Body, coerceQuery, readEnum, readPage, readString } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { ApprovalHandlers } from './approval.handlers';
import { ResolveApprovalDto } from './resolve-approval.dto';
import { Answers } from '../../platform/http/responses/response-fields';
import { ToolApprovalRecord } from '../../platform/http/responses/tool-approval-record';
import { ToolApprovalPage } from './approval.response';

const STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;

@ApiTags('mcp: approvals')
@Controller('v1/mcp/approvals')
export class ApprovalsController {
  constructor(private readonly handlers: ApprovalHandlers) {}

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'Tool-call approvals, newest first; filters status, agent_id, session_id, connection_id, kind (mcp_tool default, or all)' })
  @Answers(200, 'a page of approvals', ToolApprovalPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset']);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    return this.handlers.list(auth, {
      status: readEnum(q, 'status', STATUSES),
      agent_id: readString(q, 'agent_id'),
      session_id: readString(q, 'session_id'),
      connection_id: readString(q, 'connection_id'),
      kind: readEnum(q, 'kind', ['mcp_tool', 'all'] as const) ?? 'mcp_tool',
      limit,
      offset,
    });
  }

  @Get(':id')
  @UserJwt()
  @ApiOperation({ summary: 'One tool-call approval' })
  @Answers(200, 'the approval', ToolApprovalRecord)
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.handlers.get(auth, pathUid(id, 'id'));
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @UserJwt()
  @ApiOperation({ summary: 'Allow or deny a pending tool call (member or higher); scope "session" covers later calls of the tool in the session; 409 invalid_transition once settled' })
  @Answers(200, 'the approval, resolved', ToolApprovalRecord)
  resolve(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: ResolveApprovalDto) {
    return this.handlers.resolve(auth, rid, pathUid(id, 'id'), body as unknown as Record<string, unknown>);
  }
}
