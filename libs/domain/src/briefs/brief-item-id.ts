import { createHash } from 'node:crypto';
import { BriefItemKind } from './brief-records';

/** Opaque and deterministic: the same kind and set of subjects give the same id in every version (§12.3). */
export function briefItemId(kind: BriefItemKind, subjectUids: readonly string[]): string {
  const subjects = [...new Set(subjectUids)].sort();
  return 'bi_' + createHash('sha256').update(`${kind}\n${subjects.join('\n')}`).digest('hex').slice(0, 24);
}
