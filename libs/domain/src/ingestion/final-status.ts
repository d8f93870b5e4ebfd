export type DocumentStatus = 'pending' | 'processing' | 'completed' | 'partial' | 'failed';

/**
 * REFERENCE §9.4: the job completes when at least one chunk succeeded, and fails when none did;
 * the Document ends `completed` when every chunk succeeded, `partial` when some failed or the
 * job was cancelled after at least one chunk, `failed` when none succeeded.
 */
export function finalStatuses(counts: { total: number; completed: number; failed: number; cancelled: boolean }): {
  job: 'completed' | 'failed';
  document: Exclude<DocumentStatus, 'pending' | 'processing'>;
} {
  const { total, completed } = counts;
  if (total === 0) return { job: 'completed', document: 'completed' };
  if (completed === 0) return { job: 'failed', document: 'failed' };
  if (completed === total) return { job: 'completed', document: 'completed' };
  return { job: 'completed', document: 'partial' };
}
