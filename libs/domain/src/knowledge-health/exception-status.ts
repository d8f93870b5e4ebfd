import { ExceptionStatus, Resolution } from './exception-kinds';

/** The lifecycle part of an exception record (REFERENCE §14.2), as the projection keeps it. */
export interface ExceptionState {
  status: ExceptionStatus;
  first_detected_at: number;
  last_changed_at: number;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  task_uids: string[];
  resolved_at: number | null;
  resolution: Resolution | null;
  reopen_count: number;
  detail: Record<string, unknown>;
}

/** The live pending or in-progress Tasks Targeting the subject, earliest first. */
export interface Acknowledgement {
  task_uids: string[];
  /** the principal that created the earliest of them */
  by: string | null;
  /** when the earliest acknowledgement began (its Task or Targets edge, whichever came later) */
  since: number;
}

/** What an evaluation found: the condition holds (with its detail and acknowledgement), or not. */
export type Observation =
  | { holds: true; detail: Record<string, unknown>; ack: Acknowledgement | null }
  | { holds: false; removed: boolean };

const sameTasks = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The status machine of §14.2, applied at `at` (the `occurred_at` of the event that changed
 * something, or the threshold of a time-based kind). Null: no exception, and none is due.
 *
 * - the condition becomes true → open (acknowledged at once when a Task already Targets it);
 * - open ↔ acknowledged as acknowledging Tasks appear and all go away;
 * - the condition becomes false or the subject goes → resolved;
 * - resolved and true again → open under the same id, `reopen_count` + 1, acknowledgement cleared.
 */
export function nextExceptionState(prev: ExceptionState | null, obs: Observation, at: number): ExceptionState | null {
  if (!obs.holds) {
    if (!prev || prev.status === 'resolved') return prev;
    return { ...prev, status: 'resolved', resolved_at: at, resolution: obs.removed ? 'subject_removed' : 'condition_cleared', last_changed_at: at };
  }
  let s: ExceptionState;
  if (!prev) {
    s = { status: 'open', first_detected_at: at, last_changed_at: at, acknowledged_at: null, acknowledged_by: null, task_uids: [], resolved_at: null, resolution: null, reopen_count: 0, detail: obs.detail };
  } else if (prev.status === 'resolved') {
    s = { ...prev, status: 'open', last_changed_at: at, acknowledged_at: null, acknowledged_by: null, task_uids: [], resolved_at: null, resolution: null, reopen_count: prev.reopen_count + 1, detail: obs.detail };
  } else s = { ...prev, detail: obs.detail };
  const ack = obs.ack && obs.ack.task_uids.length ? obs.ack : null;
  if (ack && s.status === 'open') {
    const ackAt = Math.max(at, ack.since);
    s = { ...s, status: 'acknowledged', acknowledged_at: ackAt, acknowledged_by: ack.by, task_uids: ack.task_uids, last_changed_at: ackAt };
  } else if (ack) {
    if (!sameTasks(s.task_uids, ack.task_uids)) s = { ...s, task_uids: ack.task_uids, last_changed_at: at };
  } else if (s.status === 'acknowledged') {
    s = { ...s, status: 'open', acknowledged_at: null, acknowledged_by: null, task_uids: [], last_changed_at: at };
  }
  if (prev && s !== prev && JSON.stringify(prev.detail) !== JSON.stringify(s.detail) && s.last_changed_at === prev.last_changed_at) s = { ...s, last_changed_at: at };
  return s;
}

/** Resolved exceptions are shown for 90 days after `resolved_at`. */
export function retained(s: Pick<ExceptionState, 'status' | 'resolved_at'>, now: number, retentionS: number): boolean {
  return s.status !== 'resolved' || s.resolved_at === null || s.resolved_at + retentionS > now;
}
