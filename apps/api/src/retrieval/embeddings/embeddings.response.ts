import { Bool, Int, NullableStr, Num, Nums, OneOf, Str } from '../../platform/http/responses/response-fields';

/** `POST /embeddings/configure` (REFERENCE §8.7) */
export class EmbeddingConfigResponse {
  @OneOf(['builtin', 'openai'])
  provider!: string;
  @Str('the model in use, reported truthfully')
  model!: string;
  @Int()
  dimensions!: number;
  @OneOf(['cosine', 'dot', 'euclidean'])
  distance_metric!: string;
  @Num('Unix seconds')
  configured_at!: number;
  // beyond REFERENCE's list: the built-in embedder matches spellings, not meaning, and says so
  @Bool('true for the built-in lexical embedder')
  lexical!: boolean;
  @Str('what the provider’s vectors capture')
  note!: string;
  @Int('vectors deleted by a forced change of dimensions or metric')
  embeddings_dropped!: number;
  // beyond REFERENCE's list: the re-embedding a forced change starts, to poll at GET /jobs/{id}
  @NullableStr('the re-embedding job, when one was queued')
  job_id!: string | null;
}

/** `PUT /node/{uid}/embedding` */
export class EmbeddingSetResponse {
  @Str()
  uid!: string;
  @Int()
  dimension!: number;
  @Num('Unix seconds')
  updated_at!: number;
}

/** `GET /node/{uid}/embedding` */
export class NodeEmbeddingResponse {
  @Str()
  uid!: string;
  @Nums()
  vector!: number[];
  @Int()
  dimension!: number;
  @Str()
  model!: string;
}

/** `DELETE /node/{uid}/embedding` */
export class EmbeddingDeletedResponse {
  @Str()
  uid!: string;
  @Bool()
  deleted!: boolean;
}

/** `POST /ingest/embed-all` (REFERENCE §9.3): 202 */
export class EmbedAllResponse {
  @Str('poll GET /jobs/{id}')
  job_id!: string;
  @Int('live nodes without a vector')
  nodes_pending!: number;
}
