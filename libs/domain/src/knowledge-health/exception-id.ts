import { hash } from 'node:crypto';
import { ExceptionKind } from './exception-kinds';

/**
 * An exception's id (REFERENCE §14.2): opaque and deterministic, the same kind and subject
 * always give the same id, so a rebuild (or another replica) names it alike. UUID-shaped.
 */
export function exceptionId(kind: ExceptionKind, subjectUid: string): string {
  // the one-shot digest: a hasher object per id cost about three times as much (one per new exception)
  const h = hash('sha256', `${kind}\u0000${subjectUid}`, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
