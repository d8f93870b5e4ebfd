import { Int, Nested, OneOf, Str } from '../../platform/http/responses/response-fields';
import { UserResponse } from '../account/account.response';
import { OrgResponse } from '../orgs/org.response';

/** POST /v1/auth/login and /v1/auth/refresh */
export class TokenPairResponse {
  @Str('JWT for the Authorization header')
  access_token!: string;
  @Str('single use: refreshing rotates it; reusing a used one revokes the whole family')
  refresh_token!: string;
  @OneOf(['Bearer'])
  token_type!: 'Bearer';
  @Int('seconds until the access token expires')
  expires_in!: number;
}

/** POST /v1/auth/signup: the new user, their own organization (role owner) and a token pair */
export class SignupResponse extends TokenPairResponse {
  @Nested(() => UserResponse)
  user!: UserResponse;
  @Nested(() => OrgResponse)
  organization!: OrgResponse;
}
