import { CLASSIFICATIONS } from '@strata/domain/governance';
import { ApiProperty } from '@nestjs/swagger';
import { Bool, Int, Iso, ListOf, Nested, NullableIso, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

const ACCESS = ['read', 'write'] as const;

/** Live nodes of a Space by classification (REFERENCE §13.2) */
class SpaceNodeCounts {
  @Int()
  public!: number;
  @Int()
  internal!: number;
  @Int()
  confidential!: number;
  @Int()
  restricted!: number;
  @Int()
  total!: number;
}

/** A Space as `GET /v1/spaces` lists it */
export class SpaceResponse {
  @Str()
  uid!: string;
  @Str()
  label!: string;
  @Str('props.name, else the label')
  name!: string;
  @NullableStr()
  description!: string | null;
  @OneOf(CLASSIFICATIONS)
  default_classification!: string;
  @Nested(() => SpaceNodeCounts, 'live nodes in the Space')
  node_counts!: SpaceNodeCounts;
  @Int()
  grant_count!: number;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @NullableIso()
  tombstone_at!: string | null;
}

export class SpacePage extends OffsetPage {
  @ListOf(() => SpaceResponse)
  items!: SpaceResponse[];
}

/** A Space grant (REFERENCE §13.2): `write` implies `read`; a null ceiling allows every level */
export class SpaceGrantResponse {
  @Str()
  space_uid!: string;
  @Str('user:<id> or agent:<id>')
  principal_uid!: string;
  @OneOf(ACCESS)
  access!: string;
  @ApiProperty({ enum: [...CLASSIFICATIONS], nullable: true, description: 'the highest classification the grant reaches; null: every level' })
  classification_ceiling!: string | null;
  @Str('principal id of who set it')
  granted_by!: string;
  @Iso()
  granted_at!: string;
  @Iso()
  updated_at!: string;
}

export class SpaceGrantPage extends OffsetPage {
  @ListOf(() => SpaceGrantResponse)
  items!: SpaceGrantResponse[];
}

export class SpaceGrantRevokedResponse {
  @Str()
  space_uid!: string;
  @Str()
  principal_uid!: string;
  @Bool('always true')
  revoked!: boolean;
}
