import { Int, Iso, Nested, NullableIso, NullableStr, OneOf } from '../../platform/http/responses/response-fields';

/** Whether the graph mirrors the policies (REFERENCE §13.5 `sync`) */
export class GovernanceSyncStatus {
  @OneOf(['never', 'in_sync', 'out_of_sync'])
  status!: string;
  @NullableIso('null before the first sync')
  last_synced_at!: string | null;
  @NullableStr('principal id')
  last_synced_by!: string | null;
  @Int('shadow or published policies not mirrored at their version, rejected ones still mirrored')
  pending_policies!: number;
  @Int('mirrors edited outside sync')
  drifted_nodes!: number;
}

/** `POST /v1/governance/sync` (REFERENCE §13.7): what one sync changed */
export class GovernanceSyncResponse {
  @Iso()
  synced_at!: string;
  @Int('policies considered')
  policies!: number;
  @Int()
  nodes_created!: number;
  @Int()
  nodes_updated!: number;
  @Int()
  nodes_tombstoned!: number;
  @Int()
  edges_created!: number;
  @Int()
  edges_tombstoned!: number;
  @Nested(() => GovernanceSyncStatus, 'the status after this sync')
  sync!: GovernanceSyncStatus;
}
