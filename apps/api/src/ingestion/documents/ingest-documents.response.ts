import { Bool, Int, NullableStr, Str } from '../../platform/http/responses/response-fields';

/** `POST /ingest/document` (REFERENCE §9.3): 202 queued, or 200 with deduplicated:true and no job */
export class DocumentQueuedResponse {
  @NullableStr('poll GET /jobs/{id}; null when deduplicated')
  job_id!: string | null;
  @Str('the new Document, or the existing one with identical content')
  document_uid!: string;
  @Bool()
  deduplicated!: boolean;
}

/** `POST /ingest/session` (REFERENCE §9.3): 202 */
export class SessionQueuedResponse {
  @Str()
  job_id!: string;
  @Str('the transcript Document')
  document_uid!: string;
  @Str('the given Session, or the closed one created for it')
  session_uid!: string;
}

/** `POST /ingest/resume/{doc_uid}`: 202 queued, or 200 with job_id null when nothing is left */
export class ResumeResponse {
  @NullableStr()
  job_id!: string | null;
  @Str()
  document_uid!: string;
  @Int('chunks pending, processing or failed, now queued')
  chunks_pending!: number;
}

/** `POST /ingest/cleanup` */
export class CleanupResponse {
  @Int()
  chunks_tombstoned!: number;
  @Int()
  edges_tombstoned!: number;
}

/** `DELETE /ingest/document/{uid}` */
export class DocumentDeletedResponse {
  @Str()
  document_uid!: string;
  @Int()
  chunks_deleted!: number;
  @Int()
  nodes_deleted!: number;
  @Int()
  edges_deleted!: number;
  @Int()
  jobs_cancelled!: number;
}
