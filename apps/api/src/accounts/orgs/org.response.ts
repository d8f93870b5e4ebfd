import { PLAN_IDS, ROLES } from '@strata/domain/accounts';
import { Bool, Iso, ListOf, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

export class OrgResponse {
  @Str()
  id!: string;
  @Str()
  name!: string;
  @OneOf(PLAN_IDS)
  plan!: string;
  @OneOf(ROLES, "the caller's role in it", true)
  role!: string | null;
  @Iso()
  created_at!: string;
}

export class OrgPage extends OffsetPage {
  @ListOf(() => OrgResponse)
  items!: OrgResponse[];
}

export class MemberResponse {
  @Str()
  org_id!: string;
  @Str()
  user_id!: string;
  @Str()
  email!: string;
  @NullableStr()
  name!: string | null;
  @OneOf(ROLES)
  role!: string;
  @Iso()
  joined_at!: string;
}

export class MemberPage extends OffsetPage {
  @ListOf(() => MemberResponse)
  items!: MemberResponse[];
}

export class MemberRemovedResponse {
  @Str()
  org_id!: string;
  @Str()
  user_id!: string;
  @Bool()
  removed!: boolean;
}
