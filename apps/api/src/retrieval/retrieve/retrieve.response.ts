import { ApiProperty } from '@nestjs/swagger';
import type { NodeRecord } from '@strata/domain/records';
import { ScoredNode, NodeRef } from '../../platform/http/responses/graph-records';
import { Int, ListOf, NullableNum, NullableStr, Num, OffsetPage, OneOf, Shared, Str } from '../../platform/http/responses/response-fields';

class LegRank {
  @OneOf(['fts', 'vec'])
  leg!: 'fts' | 'vec';
  @Int('1-based, within the leg')
  rank!: number;
  @Num('the leg’s own raw value (BM25 or similarity)')
  score!: number;
}

/** A search-like result (REFERENCE §5.1); `legs` with hybrid and explain */
export class RankedNode extends ScoredNode {
  @ApiProperty({ type: () => LegRank, isArray: true, required: false, description: 'hybrid with explain: each leg’s rank and score' })
  legs?: LegRank[];
}

/** `merge_candidates` (REFERENCE §5.2) */
export class MergeCandidate {
  @Str()
  edge_uid!: string;
  @Str()
  node_a_uid!: string;
  @Str()
  node_a_label!: string;
  @NullableStr()
  node_a_summary!: string | null;
  @Str()
  node_b_uid!: string;
  @Str()
  node_b_label!: string;
  @NullableStr()
  node_b_summary!: string | null;
  @Str('node A’s type')
  node_type!: string;
  @NullableNum()
  similarity!: number | null;
  @NullableStr()
  method!: string | null;
  @NullableStr('Claims only')
  node_a_truth_status!: string | null;
  @NullableStr('Claims only')
  node_b_truth_status!: string | null;
}

/** `curation_counts` (REFERENCE §5.5) */
export class CurationCounts {
  @Int()
  merge_candidates!: number;
  @Int()
  unresolved_contradictions!: number;
  @Int()
  weak_claims!: number;
  @Int()
  stale_derivations!: number;
  @Int()
  open_questions!: number;
  @Int()
  pending_approvals!: number;
  @Int()
  skill_reviews!: number;
  @Int('the sum of the seven counts')
  total!: number;
  @Num()
  threshold!: number;
  @Num('Unix seconds')
  generated_at!: number;
}

class StalePremise extends NodeRef {
  @Str()
  edge_type!: string;
  @OneOf(['premise_updated', 'premise_tombstoned', 'premise_superseded'])
  reason!: string;
  @Num('Unix seconds')
  changed_at!: number;
}

class StaleDerivation {
  @Shared('NodeRecord')
  node!: NodeRecord;
  @ListOf(() => StalePremise)
  stale_premises!: StalePremise[];
  @Num('the earliest premise change, Unix seconds')
  stale_since!: number;
}

/** `stale_derivations` (REFERENCE §5.6) */
export class StaleDerivationPage extends OffsetPage {
  @ListOf(() => StaleDerivation)
  items!: StaleDerivation[];
}
