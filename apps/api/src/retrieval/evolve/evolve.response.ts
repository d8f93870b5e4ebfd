import { Int, OneOf, Str } from '../../platform/http/responses/response-fields';

/** `/evolve tombstone` and `tombstone_cascade` (REFERENCE §7.1) */
export class EvolveTombstoneResponse {
  @Str()
  uid!: string;
  @OneOf(['tombstone', 'tombstone_cascade'])
  action!: 'tombstone' | 'tombstone_cascade';
  @Int()
  version!: number;
  @Int()
  edges_tombstoned!: number;
}

/** `/evolve restore` */
export class EvolveRestoreResponse {
  @Str()
  uid!: string;
  @OneOf(['restore'])
  action!: 'restore';
  @Int()
  version!: number;
  @Int('edges of this node’s cascade that came back')
  edges_restored!: number;
}

/** `/evolve tombstone_edge` and `restore_edge` */
export class EvolveEdgeResponse {
  @Str('the edge uid')
  uid!: string;
  @OneOf(['tombstone_edge', 'restore_edge'])
  action!: 'tombstone_edge' | 'restore_edge';
  @Int()
  version!: number;
}
