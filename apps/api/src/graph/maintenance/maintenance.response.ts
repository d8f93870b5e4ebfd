import { ApiProperty } from '@nestjs/swagger';
import type { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { AliasRecord } from '../../platform/http/responses/graph-records';
import { Int, ListOf, ListOfShared, ListOfSharedWith, MapOf, Nested, NullableInt, NullableNum, NullableStr, Num, Nums, OneOf, Str } from '../../platform/http/responses/response-fields';

/** `GET /stats` (REFERENCE §8.1); type keys canonical PascalCase, live counts */
export class GraphStatsResponse {
  @Int()
  total_nodes!: number;
  @Int()
  live_nodes!: number;
  @Int()
  tombstoned_nodes!: number;
  @Int()
  total_edges!: number;
  @Int()
  live_edges!: number;
  @Int()
  tombstoned_edges!: number;
  @MapOf('integer', 'live nodes by node type')
  nodes_by_type!: Record<string, number>;
  @MapOf('integer', 'live nodes by layer')
  nodes_by_layer!: Record<string, number>;
  @MapOf('integer', 'live edges by edge type')
  edges_by_type!: Record<string, number>;
  @Int()
  total_versions!: number;
  @Int()
  total_aliases!: number;
  @Int()
  embedding_count!: number;
  @NullableInt()
  embedding_dimension!: number | null;
  @NullableStr()
  embedding_model!: string | null;
  // beyond REFERENCE's list: how far the vector index lags, which an operator watching search quality needs
  @Int('vectors waiting to enter the ANN index (searched exactly meanwhile)')
  embedding_index_backlog!: number;
  @Int()
  series_point_count!: number;
  @Num('Unix seconds')
  generated_at!: number;
}

class SnapshotCounts {
  @Int()
  nodes!: number;
  @Int()
  edges!: number;
  @Int()
  aliases!: number;
  @Int()
  embeddings!: number;
  @Int()
  series_points!: number;
}

class SnapshotVector {
  @Str()
  uid!: string;
  @Nums()
  vector!: number[];
}

class SnapshotEmbeddings {
  @Str()
  model!: string;
  @Int()
  dimension!: number;
  @OneOf(['cosine', 'dot', 'euclidean'])
  metric!: string;
  // beyond REFERENCE's list: an import adopting the configuration needs to know who embeds
  @OneOf(['builtin', 'openai'], 'the embedding provider of the configuration')
  provider!: string;
  @ListOf(() => SnapshotVector)
  items!: SnapshotVector[];
}

class SnapshotSeriesPoint {
  @Str()
  series_uid!: string;
  @Num('Unix seconds')
  ts!: number;
  @Num()
  value!: number;
  @NullableStr()
  source_uid!: string | null;
  @NullableStr()
  note!: string | null;
  @Num('Unix seconds')
  recorded_at!: number;
}

/** What a snapshot keeps of a node beyond its record */
export class ExportedNodeFields {
  @ApiProperty({ type: Number, required: false, description: 'a decayed node’s decay clock (Unix seconds), which import restores' })
  last_decayed_at?: number;
}

/** `GET /export`, and what `POST /import` takes (REFERENCE §8.6) */
export class GraphSnapshot {
  @OneOf(['strata.graph'])
  format!: 'strata.graph';
  @ApiProperty({ type: 'integer', enum: [1] })
  format_version!: 1;
  @Num('Unix seconds')
  exported_at!: number;
  @Nested(() => SnapshotCounts)
  counts!: SnapshotCounts;
  @ListOfSharedWith('NodeRecord', ExportedNodeFields)
  nodes!: (NodeRecord & ExportedNodeFields)[];
  @ListOfShared('EdgeRecord')
  edges!: EdgeRecord[];
  @ListOf(() => AliasRecord)
  aliases!: AliasRecord[];
  @Nested(() => SnapshotEmbeddings, 'null when include_embeddings=false or nothing is configured', true)
  embeddings!: SnapshotEmbeddings | null;
  @ListOf(() => SnapshotSeriesPoint)
  series_points!: SnapshotSeriesPoint[];
}

/** `POST /import` (REFERENCE §8.6) */
export class ImportResponse {
  @Int()
  nodes_imported!: number;
  @Int('uid already present, live or tombstoned')
  nodes_skipped!: number;
  @Int()
  edges_imported!: number;
  @Int()
  edges_skipped!: number;
  @Int()
  aliases_imported!: number;
  @Int()
  embeddings_imported!: number;
  @Int('the configuration differs')
  embeddings_skipped!: number;
  @Int()
  series_points_imported!: number;
}

/** `POST /purge` (REFERENCE §7.3) */
export class PurgeResponse {
  @Int()
  nodes_purged!: number;
  @Int()
  edges_purged!: number;
  @Int()
  versions_purged!: number;
  @Int()
  aliases_purged!: number;
  @Int()
  embeddings_purged!: number;
  @Int()
  points_purged!: number;
  @NullableNum('Unix seconds; null when every tombstoned object qualified')
  cutoff!: number | null;
}

/** `POST /clear` (REFERENCE §8.9) */
export class ClearResponse {
  @ApiProperty({ type: Boolean, enum: [true] })
  cleared!: true;
  @Int()
  nodes_removed!: number;
  @Int()
  edges_removed!: number;
  @Int()
  versions_removed!: number;
  @Int()
  aliases_removed!: number;
  @Int()
  embeddings_removed!: number;
  @Int()
  series_points_removed!: number;
  @Int()
  jobs_cancelled!: number;
}
