import { Inject, Injectable, Optional } from '@nestjs/common';
import { AgentStreams, CancelReason, SessionRecord } from '@strata/domain/agents';
import type { RecordedEvent } from '@strata/domain/events';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import type { ToolApprovals } from '@strata/mcp/approvals';
import type { ExpectedRevision } from '@strata/event-store/event-store.port';

/**
 * The runs this process is executing, each with the controller that aborts its in-flight
 * model request, so that an interrupt, an archive or a pause stops a run at once (the
 * cancellation itself is an event; the abort only stops the work still going on).
 *
 * Servers mode: the request that ends a run (an interrupt, archive, pause, a deadline) may be
 * served by another replica than the one running it. This replica follows the log in its
 * mirror, so a run of its own ended there (`AgentRunCancelled`, `AgentRunFailed`) is aborted
 * as soon as the mirror applies the event.
 */
@Injectable()
export class RunControl {
  private readonly running = new Map<string, AbortController>();

  constructor(@Optional() @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null, @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null) {
    // embedded: one process, whose handlers abort what they end themselves
    if (!storage) mirror?.onFollowed((e) => this.followed(e));
  }

  private followed(e: RecordedEvent): void {
    if (!this.running.size || (e.type !== 'AgentRunCancelled' && e.type !== 'AgentRunFailed')) return;
    this.abort([e.data.run_id as string]);
  }

  /** whether this process is executing the run */
  isRunning(runId: string): boolean {
    return this.running.has(runId);
  }

  /** a controller for a run starting here; `release` when it stops */
  claim(runId: string): AbortController {
    const c = new AbortController();
    this.running.set(runId, c);
    return c;
  }

  release(runId: string, c: AbortController): void {
    if (this.running.get(runId) === c) this.running.delete(runId);
  }

  abort(runIds: readonly string[]): void {
    for (const id of runIds) this.running.get(id)?.abort(new Error('run cancelled'));
  }
}

/**
 * Stages the cancellation of a session's current run (REFERENCE §16.6): `AgentRunCancelled`
 * with the messages queued behind it discarded, and the run's pending approvals cancelled.
 * Returns the cancelled run id and the discarded message ids, or null when the session has
 * no active run.
 */
export async function stageRunCancel(
  tx: GraphTx,
  s: SessionRecord,
  reason: CancelReason,
  approvals: ToolApprovals,
  /** the session stream's revision the append expects (a decision that may race another replica's) */
  expected: ExpectedRevision = 'any',
): Promise<{ run_id: string; discarded_message_ids: string[] } | null> {
  if (s.current_run === null) return null;
  const stream = AgentStreams.session(s.org_id, s.id);
  await approvals.stageCancel(tx, approvals.pendingOfRuns([s.current_run]), reason);
  const discarded = s.queued_runs.map((q) => q.message_id);
  tx.emit(stream, 'AgentRunCancelled', {
    org_id: s.org_id,
    agent_id: s.agent_id,
    session_id: s.id,
    run_id: s.current_run,
    at: tx.now,
    reason,
    discarded_message_ids: discarded,
  }, expected);
  return { run_id: s.current_run, discarded_message_ids: discarded };
}
