import { Bool, Iso, ListOf, NullableIso, NullableStr, OffsetPage, Str } from '../../platform/http/responses/response-fields';

/** A live Affordance in the agent's scope, with its grant if any (REFERENCE §13.4) */
class ToolGrantItem {
  @Str()
  affordance_uid!: string;
  @Str()
  label!: string;
  @NullableStr()
  action_name!: string | null;
  @NullableStr()
  affordance_type!: string | null;
  @NullableStr()
  risk_level!: string | null;
  @Bool()
  granted!: boolean;
  @NullableStr('principal id')
  granted_by!: string | null;
  @NullableIso()
  granted_at!: string | null;
  @NullableIso('null: no end')
  expires_at!: string | null;
  @NullableStr()
  note!: string | null;
}

export class ToolGrantPage extends OffsetPage {
  @Str()
  agent_id!: string;
  @ListOf(() => ToolGrantItem)
  items!: ToolGrantItem[];
}

/** `PUT /v1/agents/{id}/tool-grants/{affordance_uid}`: the grant as set */
export class ToolGrantResponse {
  @Str()
  agent_id!: string;
  @Str()
  affordance_uid!: string;
  @Bool('always true')
  granted!: boolean;
  @Str('principal id')
  granted_by!: string;
  @Iso()
  granted_at!: string;
  @Iso()
  updated_at!: string;
  @NullableIso('null: no end')
  expires_at!: string | null;
  @NullableStr()
  note!: string | null;
}

export class ToolGrantRevokedResponse {
  @Str()
  agent_id!: string;
  @Str()
  affordance_uid!: string;
  @Bool('always true')
  revoked!: boolean;
}
