import { createHash } from 'node:crypto';
import { EmbeddingSetData } from '../events';

/**
 * `EmbeddingSet` as Strata records it: who produced the vector and, for provider vectors,
 * a hash of the text embedded (so unchanged text is never sent to the provider again).
 * `explicit` vectors (PUT /node/{uid}/embedding) are pinned: automatic embedding never
 * replaces them; only another PUT or a DELETE does.
 */
export type RecordedEmbedding = EmbeddingSetData;

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
