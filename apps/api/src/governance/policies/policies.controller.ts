import { Body as ReqBody, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt, UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Errors } from '@strata/domain/errors';
import { POLICY_EFFECTS, POLICY_STATUSES, PolicyEffect, PolicyStatus } from '@strata/domain/governance';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { CreatePolicyDto, PatchPolicyDto } from './policy.dto';
import { PolicyHandlers } from './policy.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { PolicyPage, PolicyResponse } from './policy.response';

@ApiTags('governance: policies')
@Controller('v1/governance/policies')
export class PoliciesController {
  constructor(private readonly handlers: PolicyHandlers) {}

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'Policies, highest priority first (then oldest)' })
  @Answers(200, 'a page of policies', PolicyPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset']);
    const { limit, offset } = readPage(q, { limit: 100, max: 1000 });
    return this.handlers.list(auth, { status: oneOf(q.status, POLICY_STATUSES, 'status'), effect: oneOf(q.effect, POLICY_EFFECTS, 'effect') }, limit, offset);
  }

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Create a policy (draft unless said otherwise); match is validated (422 invalid_policy)' })
  @Answers(201, 'the policy', PolicyResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreatePolicyDto) {
    return this.handlers.create(auth, body, rid);
  }

  @Patch(':policy_uid')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Move a policy through its lifecycle or edit it; each change adds 1 to version' })
  @Answers(200, 'the policy', PolicyResponse)
  patch(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('policy_uid') uid: string, @ReqBody() body: PatchPolicyDto) {
    return this.handlers.patch(auth, pathUid(uid, 'policy_uid'), body, rid);
  }
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], field: string): T | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !allowed.includes(v as T)) throw Errors.invalidField(field, `${field} must be one of: ${allowed.join(', ')}`, { allowed: [...allowed] });
  return v as T;
}
