import { Body as ReqBody, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '@strata/auth/route-tags';
import { RequestId } from '@strata/auth/request-context.decorator';
import { normaliseEmail } from '@strata/domain/accounts';
import { LoginDto } from './login.dto';
import { RefreshDto } from './refresh.dto';
import { SignupDto } from './signup.dto';
import { AuthHandlers } from './auth.handlers';
import { SignupResponse, TokenPairResponse } from './tokens.response';

@ApiTags('accounts: auth')
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly handlers: AuthHandlers) {}

  @Post('signup')
  @Public()
  @ApiOperation({ summary: 'Create an account and its organization (201 user, organization, tokens)' })
  @ApiCreatedResponse({ type: SignupResponse })
  signup(@RequestId() rid: string, @ReqBody() body: SignupDto): Promise<SignupResponse> {
    return this.handlers.signup(body, rid);
  }

  @Post('login')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Sign in: access token (JWT) and refresh token; expires_in in seconds' })
  @ApiOkResponse({ type: TokenPairResponse })
  login(@RequestId() rid: string, @ReqBody() body: LoginDto, @Req() req: FastifyRequest): Promise<TokenPairResponse> {
    return this.handlers.login(normaliseEmail(body.email), body.password, req.ip, rid);
  }

  @Post('refresh')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Rotate a refresh token; reusing a used one revokes its whole family' })
  @ApiOkResponse({ type: TokenPairResponse })
  refresh(@RequestId() rid: string, @ReqBody() body: RefreshDto): Promise<TokenPairResponse> {
    return this.handlers.refresh(body.refresh_token, rid);
  }
}
