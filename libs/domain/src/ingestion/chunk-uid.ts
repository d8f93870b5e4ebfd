import { createHash } from 'node:crypto';

/**
 * The uid of a document's chunk that a job creates only when it commits the chunk's extraction:
 * the same for every attempt of the job (the salt is kept in the job's checkpoint), so two
 * attempts that both try to create chunk `index` of the document collide on one new stream,
 * and one of them fails, instead of writing the chunk twice. A version-4 UUID in form (REFERENCE
 * §1), unguessable without the job's salt.
 */
export function draftedChunkUid(salt: string, documentUid: string, index: number): string {
  const h = createHash('sha256').update(`${salt}\u0000${documentUid}\u0000${index}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
