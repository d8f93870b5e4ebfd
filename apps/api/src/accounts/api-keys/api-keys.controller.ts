import { Body as ReqBody, Controller, Delete, Get, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '@strata/domain/accounts';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body, assertObjectBody, coerceQuery, readPage } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { readApiKey, readOverlap } from '@strata/domain/accounts/account-input';
import { ApiKeyHandlers } from './api-key.handlers';

@ApiTags('accounts: API keys')
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(
    private readonly handlers: ApiKeyHandlers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Create a named, scoped, optionally expiring or agent-bound key; the secret is in `key`, shown once' })
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown) {
    return this.handlers.create(auth, readApiKey(assertObjectBody(raw), this.clock.now()), rid);
  }

  @Get()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Keys of the organization: policy, creator, last use, expiry, status (never the secret)' })
  list(@Auth() auth: AuthContext, @Query() q: Body) {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), { limit: 100, max: 1000 });
    return this.handlers.list(auth, limit, offset);
  }

  @Post(':id/rotate')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Issue a replacement with the same policy; the old key works for overlap_seconds (≤ 7 days, default 1 day)' })
  rotate(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() raw: unknown) {
    const overlap = readOverlap(assertObjectBody(raw), DEFAULT_ROTATION_OVERLAP_SECONDS);
    return this.handlers.rotate(auth, pathUid(id, 'id'), overlap, rid);
  }

  @Get(':id/activity')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'The 50 most recent lifecycle and request events of the key, newest first' })
  activity(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.handlers.activityOf(auth, pathUid(id, 'id'));
  }

  @Delete(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Revoke at once: the next request with the key is refused' })
  revoke(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.revoke(auth, pathUid(id, 'id'), rid);
  }
}
