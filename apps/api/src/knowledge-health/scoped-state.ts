import { ExceptionKind, ExceptionState } from '@strata/domain/knowledge-health';
import { StalePremise } from '@strata/domain/retrieval';
import { ReadScope } from '@strata/platform/scope/read-scope';

/**
 * An exception's state as a restricted caller may see it (REFERENCE §13.1: a node it cannot
 * read is absent): the uids it names that the caller cannot read are left out — stale premises,
 * a chunk's Document (null), the acknowledging Tasks. With none of those Tasks visible, nothing
 * acknowledges the exception for the caller, so it is open.
 */
export function scopedState(kind: ExceptionKind, state: ExceptionState, scope: ReadScope): ExceptionState {
  if (!scope.restricted) return state;
  let detail = state.detail;
  if (kind === 'derivation_stale') {
    const premises = (detail.stale_premises as StalePremise[] | undefined) ?? [];
    detail = { stale_premises: premises.filter((p) => scope.allows(p.uid)) };
  }
  if ((kind === 'chunk_failed' || kind === 'chunk_orphaned') && typeof detail.document_uid === 'string' && !scope.allows(detail.document_uid)) detail = { ...detail, document_uid: null };
  const task_uids = state.task_uids.filter((u) => scope.allows(u));
  if (detail === state.detail && task_uids.length === state.task_uids.length) return state;
  const unacknowledged = state.status === 'acknowledged' && task_uids.length === 0;
  return unacknowledged ? { ...state, detail, task_uids, status: 'open', acknowledged_at: null, acknowledged_by: null } : { ...state, detail, task_uids };
}
