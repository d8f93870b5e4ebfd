import { Body as ReqBody, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '@strata/domain/accounts';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { CreateApiKeyDto, apiKeyInput } from './create-api-key.dto';
import { RotateApiKeyDto } from './rotate-api-key.dto';
import { ApiKeyHandlers } from './api-key.handlers';
import { ApiKeyActivityResponse, ApiKeyPage, CreatedApiKeyResponse, RevokedApiKeyResponse, RotatedApiKeyResponse } from './api-key.response';

@ApiTags('accounts: API keys')
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly handlers: ApiKeyHandlers) {}

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Create a named, scoped, optionally expiring or agent-bound key; the secret is in `key`, shown once' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    return this.handlers.create(auth, apiKeyInput(body), rid);
  }

  @Get()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Keys of the organization: policy, creator, last use, expiry, status (never the secret)' })
  @ApiOkResponse({ type: ApiKeyPage })
  list(@Auth() auth: AuthContext, @Query() q: Body): Promise<ApiKeyPage> {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), { limit: 100, max: 1000 });
    return this.handlers.list(auth, limit, offset);
  }

  @Post(':id/rotate')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Issue a replacement with the same policy; the old key works for overlap_seconds (≤ 7 days, default 1 day)' })
  @ApiCreatedResponse({ type: RotatedApiKeyResponse })
  rotate(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: RotateApiKeyDto): Promise<RotatedApiKeyResponse> {
    return this.handlers.rotate(auth, pathUid(id, 'id'), body.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS, rid);
  }

  @Get(':id/activity')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'The 50 most recent lifecycle and request events of the key, newest first' })
  @ApiOkResponse({ type: ApiKeyActivityResponse })
  activity(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ApiKeyActivityResponse> {
    return this.handlers.activityOf(auth, pathUid(id, 'id'));
  }

  @Delete(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Revoke at once: the next request with the key is refused' })
  @ApiOkResponse({ type: RevokedApiKeyResponse })
  revoke(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string): Promise<RevokedApiKeyResponse> {
    return this.handlers.revoke(auth, pathUid(id, 'id'), rid);
  }
}
