/**
 * A chunk created for a Document records it as its first version's `change_reason`. The
 * ChunkOf edge says the same while it exists, but purging the Document (`/purge`,
 * `/nodes/delete` with `hard_purge`) removes every edge touching it, and `POST /ingest/cleanup`
 * must still find the chunks of a Document that is now missing (REFERENCE §9.3).
 */
const CHUNK_OF_PREFIX = 'chunk of document ';

export function chunkOfReason(documentUid: string): string {
  return CHUNK_OF_PREFIX + documentUid;
}

/** The Document a chunk's creation reason names, or null (a standalone chunk, or one written before the reason was recorded). */
export function documentOfChunkReason(reason: string | null | undefined): string | null {
  if (typeof reason !== 'string' || !reason.startsWith(CHUNK_OF_PREFIX)) return null;
  return reason.slice(CHUNK_OF_PREFIX.length) || null;
}

/**
 * Whether a chunk is orphaned (§9.3 cleanup): it was created for a Document (it names at least
 * one) and every Document it names is now missing or tombstoned. A chunk ingested without a
 * document names none and is never an orphan.
 */
export function orphanedChunk(documents: readonly ({ tombstone_at: number | null } | null)[]): boolean {
  return documents.length > 0 && documents.every((d) => d === null || d.tombstone_at !== null);
}
