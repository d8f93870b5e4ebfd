import { ApiProperty } from '@nestjs/swagger';
import type { BodyWarning } from '@strata/domain/cognitive/body-use';
import { AliasRecord, NodeRef } from '../../platform/http/responses/graph-records';
import { Bool, Int, ListOf, Nested, NullableStr, Num, OneOf, Str } from '../../platform/http/responses/response-fields';

/** `POST /alias` (REFERENCE §8.4): 201 for a new pair, 200 when its score was replaced */
export class AliasResponse extends AliasRecord {}

/** One alias of `GET /aliases/{uid}` */
export class AliasItem {
  @Str()
  text!: string;
  @Num()
  score!: number;
  @Num('Unix seconds')
  created_at!: number;
}

/** An exact (normalised) match */
export class ResolvedEntity extends NodeRef {
  @Num('1 for an exact match')
  score!: number;
}

/** A similarity match (trigram Jaccard, REFERENCE §4.2) */
export class FuzzyMatch extends ResolvedEntity {
  @Str('the label or alias that scored')
  matched_text!: string;
}

/** `GET /resolve` (REFERENCE §8.4) */
export class ResolveResponse {
  @Str()
  text!: string;
  @Nested(() => ResolvedEntity, 'null when nothing matches exactly', true)
  exact!: ResolvedEntity | null;
  @ListOf(() => FuzzyMatch, 'never repeats the exact uid; score descending')
  fuzzy!: FuzzyMatch[];
}

/** `POST /entities/merge` and `/reality/entity merge` (REFERENCE §8.5) */
export class MergeResponse {
  @Str()
  keep_uid!: string;
  @Str()
  merge_uid!: string;
  @Int()
  edges_retargeted!: number;
  @Int('self-loops and duplicates tombstoned instead')
  edges_dropped!: number;
  @Int()
  aliases_merged!: number;
  @Bool('the merged label became an alias of the kept node')
  alias_added!: boolean;
  @Int()
  keep_version!: number;
}

/** A top-level field of the request the action did not use (§2.8), as the cognitive routes report it */
class CallWarning {
  @Str()
  field!: string;
  @Str()
  reason!: string;
}

// `/reality/entity` answers (REFERENCE §4.2): each may carry the request's unused fields
const Warnings = () => ApiProperty({ type: () => CallWarning, isArray: true, required: false, description: 'top-level fields of the request the action did not use' });

/** `create`: the node record (allOf) with these */
export class EntityCreationFields {
  @Bool('false when an existing entity matched')
  created!: boolean;
  @OneOf(['alias', 'label'], 'how an existing entity matched; null when created', true)
  matched_by!: 'alias' | 'label' | null;
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityAliasResponse {
  @OneOf(['ok'])
  status!: 'ok';
  @Str()
  text!: string;
  @Str()
  canonical_uid!: string;
  @Num()
  alias_score!: number;
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityResolved extends ResolvedEntity {
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityUnresolved {
  @NullableStr('always null: nothing matched')
  uid!: null;
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityFuzzyResolved {
  @ListOf(() => FuzzyMatch, 'score descending')
  matches!: FuzzyMatch[];
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityMerged extends MergeResponse {
  @Warnings()
  warnings?: BodyWarning[];
}

export class EntityRelated {
  @Str('the edge uid')
  uid!: string;
  @Str('canonical')
  edge_type!: string;
  @Str()
  source_uid!: string;
  @Str()
  target_uid!: string;
  @Str()
  layer!: string;
  @Int()
  version!: number;
  @Warnings()
  warnings?: BodyWarning[];
}
