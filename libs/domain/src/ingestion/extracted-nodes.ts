/**
 * The `change_reason` of the first version of every node an extraction creates. It is how
 * `DELETE /ingest/document` tells a node ingestion made from one a user (or any other route)
 * made and an extraction later reused.
 */
export const EXTRACTION_REASON = 'extracted by ingestion';

/** What a node's creation event says about where the node came from. */
export interface NodeOrigin {
  reason: string | null;
  request_id: string;
}

/**
 * Whether ingestion created a node (REFERENCE §9.3: deleting a document removes "every
 * extracted node whose only provenance is those chunks"). A node created elsewhere and reused
 * by an extraction has a provenance of its own and outlives the document. Nodes created
 * before the reason was recorded count as extracted when the request that created them also
 * wrote one of their ExtractedFrom edges (`provenanceRequestIds`, live or tombstoned).
 */
export function createdByExtraction(origin: NodeOrigin | null, provenanceRequestIds: readonly string[]): boolean {
  if (origin === null) return false;
  return origin.reason === EXTRACTION_REASON || provenanceRequestIds.includes(origin.request_id);
}
