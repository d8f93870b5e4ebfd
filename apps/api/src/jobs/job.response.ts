import { ApiProperty } from '@nestjs/swagger';
import { JOB_KINDS, JOB_STATUSES } from '@strata/domain/jobs';
import { Int, Json, ListOf, Nested, NullableNum, NullableStr, Num, OffsetPage, OneOf, Str } from '../platform/http/responses/response-fields';

class JobProgress {
  @Int('chunks of the document or session (ingestion)')
  total_chunks!: number;
  @Int()
  processed_chunks!: number;
  @Int()
  nodes_created!: number;
  @Int()
  edges_created!: number;
  @Int('nodes to embed (embedding jobs)')
  total_nodes!: number;
  @Int()
  processed_nodes!: number;
  @Int()
  embedded_nodes!: number;
  @Int()
  failed_nodes!: number;
}

/** A job of REFERENCE §9.4 (Unix seconds, as the graph routes use) */
export class JobResponse {
  @Str()
  id!: string;
  @OneOf(JOB_KINDS)
  kind!: string;
  @Str()
  title!: string;
  @OneOf(JOB_STATUSES)
  status!: string;
  @NullableStr('the Document an ingestion job works on')
  document_uid!: string | null;
  @Nested(() => JobProgress)
  progress!: JobProgress;
  @Json('what the job produced, by kind', true)
  result!: Record<string, unknown> | null;
  @NullableStr()
  error!: string | null;
  @Num('Unix seconds')
  created_at!: number;
  @Num('Unix seconds')
  updated_at!: number;
  @NullableNum('Unix seconds')
  started_at!: number | null;
  @NullableNum('Unix seconds')
  completed_at!: number | null;
  @ApiProperty({ type: 'integer', required: false, description: '1-based place in the queue, only while pending' })
  queue_position?: number;
}

export class JobPage extends OffsetPage {
  @ListOf(() => JobResponse)
  items!: JobResponse[];
}
