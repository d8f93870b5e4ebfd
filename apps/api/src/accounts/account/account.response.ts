import { ROLES } from '@strata/domain/accounts';
import { Iso, ListOf, Nested, NullableStr, OneOf, Str } from '../../platform/http/responses/response-fields';

export class UserResponse {
  @Str()
  id!: string;
  @Str()
  email!: string;
  @NullableStr()
  name!: string | null;
  @Iso()
  created_at!: string;
}

export class MembershipResponse {
  @Str()
  org_id!: string;
  @Str()
  org_name!: string;
  @OneOf(ROLES)
  role!: string;
  @Str('plan id')
  plan!: string;
  @Iso()
  joined_at!: string;
}

/** GET /v1/account */
export class AccountResponse {
  @Nested(() => UserResponse)
  user!: UserResponse;
  @ListOf(() => MembershipResponse)
  memberships!: MembershipResponse[];
  @NullableStr('the organization the access token is for')
  current_org_id!: string | null;
  @NullableStr('the role in that organization')
  role!: string | null;
}
