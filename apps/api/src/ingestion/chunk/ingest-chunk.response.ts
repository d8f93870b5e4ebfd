import { LAYERS } from '@strata/domain/records';
import { ApiProperty } from '@nestjs/swagger';
import { Bool, Int, ListOf, NullableStr, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

class LayerPassError {
  @OneOf(LAYERS)
  layer!: string;
  @Str('provider, HTTP status and a short reason; never the prompt or the raw body')
  error!: string;
}

/** `POST /ingest/chunk` (REFERENCE §9.3): 201, or 200 with deduplicated:true for identical content */
export class IngestChunkAnswer {
  @Str()
  chunk_uid!: string;
  @NullableStr()
  document_uid!: string | null;
  @ApiProperty({ enum: [...LAYERS], isArray: true, description: 'the layer passes run' })
  layers!: string[];
  @Int()
  nodes_created!: number;
  @Int()
  nodes_deduplicated!: number;
  @Int()
  edges_created!: number;
  @Strings()
  extracted_node_uids!: string[];
  @ListOf(() => LayerPassError, 'layer passes that failed (the others committed)')
  errors!: LayerPassError[];
  @Bool('true: an identical live chunk exists; nothing ran')
  deduplicated!: boolean;
}
