import { EXTRACTION_MODES, ExtractionMode } from '@strata/domain/ontology';
import { Errors } from '@strata/domain/errors';
import { Body, readEnum, readString, readUids } from '@strata/domain/validation';

export interface ExtractRequest {
  schema_id: string;
  source_uids: string[];
  mode: ExtractionMode;
}

/** `POST /ontology/extract` (an unprefixed route: read with the request readers). */
export function readExtractRequest(body: Body): ExtractRequest {
  const schema_id = readString(body, 'ontology_schema_id', { required: true, max: 128 })!;
  const source_uids = readUids(body, 'source_uids', { required: true, max: 1000 })!;
  if (!source_uids.length) throw Errors.invalidField('source_uids', 'source_uids must name at least one Document or Chunk');
  const mode = readEnum(body, 'mode', EXTRACTION_MODES) ?? 'respect_policies';
  return { schema_id, source_uids, mode };
}
