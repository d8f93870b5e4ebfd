import { JobKind } from '@strata/domain/jobs';
import { ChunkingOptions } from '@strata/domain/ingestion';
import { Layer } from '@strata/domain/records';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { Principal } from '@strata/domain/events';
import type { AccessPrincipal } from '@strata/domain/governance';
import type { RequestOrigin } from '@strata/platform/policy/http-request';

export const INGESTION_JOB_KINDS: readonly JobKind[] = ['ingest_document', 'ingest_session', 'ingest_resume'];

/** One ingestion job at a time per organization, FIFO (REFERENCE §9.4). */
export const INGESTION_SERIAL_GROUP = 'ingestion';

/** Who asked, so the job's writes carry the same attribution as the request would have. */
export interface IngestionActor {
  principal: Principal;
  credential_id: string | null;
  agent_id: string | null;
  /** the caller's governance facts, so the job's writes obey the same Space rule */
  access?: AccessPrincipal;
  /** the Space the request placed its Document in: every Chunk and extracted node goes there too */
  space_uid?: string | null;
  /** the request that queued the job: structured policies judge each of its units as that request */
  origin?: RequestOrigin;
}

/** A queued ingestion job's input (never shown: the job record shows title and document only). */
export interface IngestionJobInput {
  title: string;
  document_uid: string;
  session_uid?: string;
  layers: Layer[];
  /** the schema of the `ontology` pass, when `layers` holds it (a job queued without one takes the default active schema) */
  ontology_schema_id?: string | null;
  actor: IngestionActor;
  /**
   * The text to chunk travels as the job's payload (read once, never with the job); `content`
   * is only found in jobs queued before payloads existed. A resume works on the chunks written.
   */
  content?: string;
  chunking?: ChunkingOptions;
  chunk_type?: 'document' | 'transcript';
}

export function jobCommandContext(org: string, jobId: string, actor: IngestionActor): CommandContext {
  return {
    org,
    principal: actor.principal,
    credential_id: actor.credential_id,
    agent_id: actor.agent_id,
    request_id: `job:${jobId}`,
    ...(actor.access ? { access: actor.access } : {}),
    ...(actor.space_uid ? { space_uid: actor.space_uid } : {}),
    ...(actor.origin ? { origin: actor.origin } : {}),
  };
}

