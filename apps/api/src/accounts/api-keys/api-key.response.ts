import { KEY_SCOPES } from '@strata/domain/accounts';
import { ApiProperty } from '@nestjs/swagger';
import { Bool, Iso, ListOf, Nested, NullableIso, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

const KEY_STATUSES = ['active', 'rotating', 'rotated', 'expired', 'revoked'] as const;

/** A key as lists, rotation and revocation show it: its policy and lifecycle, never the secret. */
export class ApiKeyResponse {
  @Str()
  id!: string;
  @Str()
  name!: string;
  @Str('first characters of the secret, to recognise the key')
  prefix!: string;
  @ApiProperty({ enum: [...KEY_SCOPES], isArray: true })
  scopes!: string[];
  @ApiProperty({ type: [String], nullable: true, description: 'Spaces the key is confined to; null: all' })
  space_uids!: string[] | null;
  @ApiProperty({ type: [String], nullable: true, description: 'Projects the key is confined to; null: all' })
  project_uids!: string[] | null;
  @NullableStr('the agent the key is bound to')
  agent_id!: string | null;
  @Str('user id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @NullableIso()
  last_used_at!: string | null;
  @NullableIso()
  expires_at!: string | null;
  @OneOf(KEY_STATUSES)
  status!: string;
  @NullableStr('the key this one replaced (rotation)')
  rotated_from!: string | null;
  @NullableStr('the key that replaced this one')
  replaced_by!: string | null;
  @NullableIso('while rotating: when this key stops working')
  overlap_until!: string | null;
  @NullableIso()
  revoked_at!: string | null;
}

export class ApiKeyPage extends OffsetPage {
  @ListOf(() => ApiKeyResponse)
  items!: ApiKeyResponse[];
}

/** POST /v1/api-keys: the key with its secret, shown this once */
export class CreatedApiKeyResponse extends ApiKeyResponse {
  @Str('the secret: shown once, never again')
  key!: string;
}

class PreviousKey {
  @Str()
  id!: string;
  @Iso('when the replaced key stops working')
  overlap_until!: string;
}

/** POST /v1/api-keys/{id}/rotate: the replacement (with its secret) and the old key's end */
export class RotatedApiKeyResponse extends CreatedApiKeyResponse {
  @Nested(() => PreviousKey)
  previous_key!: PreviousKey;
}

export class RevokedApiKeyResponse {
  @Str()
  id!: string;
  @Bool()
  revoked!: boolean;
  @Iso()
  revoked_at!: string | null;
}

class Actor {
  @OneOf(['user', 'api_key', 'agent', 'system'])
  kind!: string;
  @Str()
  id!: string;
}

class ApiKeyActivityItem {
  @OneOf(['created', 'rotated', 'revoked', 'request'])
  type!: string;
  @Iso()
  at!: string;
  @Nested(() => Actor, 'lifecycle events: who acted', false, false)
  actor?: Actor;
  @Str('requests: HTTP method', { required: false })
  method?: string;
  @Str('requests: route template', { required: false })
  route?: string;
  @ApiProperty({ type: 'integer', required: false, description: 'requests: HTTP status' })
  status?: number;
  @Str('rotations: the replacement key', { required: false })
  replaced_by?: string;
  @Str('rotations: when this key stops working', { required: false, format: 'date-time' })
  overlap_until?: string | null;
  @Str('creations by rotation: the key replaced', { required: false })
  rotated_from?: string;
}

/** GET /v1/api-keys/{id}/activity: the 50 most recent lifecycle events and requests, newest first */
export class ApiKeyActivityResponse {
  @Str()
  key_id!: string;
  @ListOf(() => ApiKeyActivityItem)
  items!: ApiKeyActivityItem[];
}
