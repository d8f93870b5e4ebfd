import { Int, MapOf, Strings } from '../../platform/http/responses/response-fields';

/** `POST /batch` (REFERENCE §8.8) */
export class BatchCreateResponse {
  @Int()
  nodes_added!: number;
  @Int()
  edges_added!: number;
  @Strings('the new nodes’ uids, in the order of `nodes`')
  node_uids!: string[];
  @Strings('the new edges’ uids, in the order of `edges`')
  edge_uids!: string[];
  @MapOf('string', 'each `ref` of the request and the uid of its node')
  refs!: Record<string, string>;
}
