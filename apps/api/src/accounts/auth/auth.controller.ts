import { Body as ReqBody, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '@strata/auth/route-tags';
import { RequestId } from '@strata/auth/request-context.decorator';
import { assertObjectBody, readString } from '@strata/domain/validation';
import { Errors } from '@strata/domain/errors';
import { normaliseEmail } from '@strata/domain/accounts';
import { readLoginPassword, readSignup } from '@strata/domain/accounts/account-input';
import { AuthHandlers } from './auth.handlers';

@ApiTags('accounts: auth')
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly handlers: AuthHandlers) {}

  @Post('signup')
  @Public()
  @ApiOperation({ summary: 'Create an account and its organization (201 user, organization, tokens)' })
  signup(@RequestId() rid: string, @ReqBody() raw: unknown) {
    return this.handlers.signup(readSignup(assertObjectBody(raw)), rid);
  }

  @Post('login')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Sign in: access token (JWT) and refresh token; expires_in in seconds' })
  login(@RequestId() rid: string, @ReqBody() raw: unknown, @Req() req: FastifyRequest) {
    const body = assertObjectBody(raw);
    const email = readString(body, 'email', { required: true, trim: true, max: 254 })!;
    const password = readLoginPassword(body);
    return this.handlers.login(normaliseEmail(email), password, req.ip, rid);
  }

  @Post('refresh')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Rotate a refresh token; reusing a used one revokes its whole family' })
  refresh(@RequestId() rid: string, @ReqBody() raw: unknown) {
    const body = assertObjectBody(raw);
    const token = readString(body, 'refresh_token', { required: true, max: 512 });
    if (!token) throw Errors.missingField('refresh_token');
    return this.handlers.refresh(token, rid);
  }
}
