import { Bool, Int, Str } from '../../platform/http/responses/response-fields';

/** `DELETE /edge/{uid}` (REFERENCE §8.3); idempotent */
export class DeletedEdgeResponse {
  @Str()
  uid!: string;
  @Bool()
  tombstoned!: boolean;
  @Int()
  version!: number;
}
