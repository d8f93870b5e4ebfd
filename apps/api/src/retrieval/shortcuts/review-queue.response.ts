import { NullableStr, Num, Str } from '../../platform/http/responses/response-fields';

/** An unresolved Contradicts edge between live nodes (`GET /contradictions`, `/retrieve unresolved_contradictions`) */
export class ContradictionItem {
  @Str()
  edge_uid!: string;
  @Str()
  node_a_uid!: string;
  @Str()
  node_a_label!: string;
  @Str()
  node_b_uid!: string;
  @Str()
  node_b_label!: string;
  @NullableStr()
  description!: string | null;
  @NullableStr()
  contradiction_type!: string | null;
  @Num('Unix seconds')
  created_at!: number;
}
