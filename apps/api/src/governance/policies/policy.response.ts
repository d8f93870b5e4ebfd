import { ApiProperty } from '@nestjs/swagger';
import { CLASSIFICATIONS, POLICY_EFFECTS, POLICY_STATUSES } from '@strata/domain/governance';
import { Int, Iso, ListOf, Nested, NullableInt, NullableIso, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

const list = (description: string) => ApiProperty({ type: [String], required: false, description });

/** What a policy matches (REFERENCE §13.6): every condition present must hold */
class PolicyMatchFields {
  @list('user:<id>, api_key:<id>, agent:<id>, their * forms, role:<role>')
  principals?: string[];
  @list('"<METHOD> <template>", optionally #<action> or a trailing /**')
  routes?: string[];
  @list('Affordance uids')
  tools?: string[];
  @list('node type names')
  node_types?: string[];
  @list('layer names')
  layers?: string[];
  @ApiProperty({ enum: [...CLASSIFICATIONS], required: false })
  min_classification?: string;
  @list('Space uids')
  spaces?: string[];
  @list('Project uids')
  projects?: string[];
}

/** A structured policy (REFERENCE §13.6) */
export class PolicyResponse {
  @Str()
  uid!: string;
  @Str()
  name!: string;
  @NullableStr()
  description!: string | null;
  @OneOf(POLICY_STATUSES)
  status!: string;
  @OneOf(POLICY_EFFECTS)
  effect!: string;
  @Int('-1000…1000; the highest wins')
  priority!: number;
  @Nested(() => PolicyMatchFields)
  match!: PolicyMatchFields;
  @Int('1 at creation, +1 each change')
  version!: number;
  @NullableStr()
  status_reason!: string | null;
  @Str('principal id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @NullableStr('principal id')
  status_changed_by!: string | null;
  @NullableIso()
  status_changed_at!: string | null;
  @NullableInt('the version the graph mirror holds; null when not mirrored')
  mirrored_version!: number | null;
}

export class PolicyPage extends OffsetPage {
  @ListOf(() => PolicyResponse)
  items!: PolicyResponse[];
}
