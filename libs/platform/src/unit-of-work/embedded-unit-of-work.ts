import { Logger } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { RecordedEvent } from '@strata/domain/events';
import { Clock, IdGenerator } from '@strata/domain/time';
import { WrongExpectedRevisionError } from '@strata/event-store/event-store.port';
import { CommandContext } from './command-context';
import { answerBeforeGuard, CommitCheck, GraphTx, GuardCheck, OpenStep } from './graph-tx';
import { addInStage, CheckStage, RunOptions, UnitOfWork } from './unit-of-work.port';
import { tracing } from '@strata/observability/tracing';
import { recordedFromAppend } from './recorded-from-append';
import type { EmbeddedStorage } from '../storage/embedded-storage';

interface Job {
  ctx: CommandContext;
  fn: (tx: GraphTx) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** the request's trace context, when tracing runs: the batch runs outside the request */
  trace: unknown;
  /** answered at the log commit; durable with a later fsync (RunOptions) */
  deferred: boolean;
}

const MAX_BATCH = 256;

/**
 * How long a deferred commit may wait for a durable one to share its fsync. Short: a run's
 * start must not stay unannounced to live subscribers, nor undurable, for the length of a slow
 * model call; long enough that a fast step's final commit (a few ms later) covers it.
 */
export const DEFERRED_SYNC_BOUND_MS = 10;

/** Arms the bound of deferred commits; returns its cancel. Tests pass their own. */
export type DeferTimer = (fire: () => void, ms: number) => () => void;

const realTimer: DeferTimer = (fire, ms) => {
  const t = setTimeout(fire, ms);
  t.unref();
  return () => clearTimeout(t);
};

/**
 * Embedded default. Requests that arrive together are decided one after another and
 * committed with ONE fsync (group commit): each request's events go into the open log
 * transaction and are projected at once, so the next request in the batch reads them.
 * Nobody is answered before the log commit is durable, except a caller that asked for a
 * deferred commit (RunOptions): it is answered at the log commit, and live listeners hear of
 * that commit only once an fsync covers it.
 */
export class EmbeddedUnitOfWork implements UnitOfWork {
  private readonly log = new Logger('UnitOfWork');
  private queue: Job[] = [];
  /** maintenance work that must run between batches (projection swap), ahead of queued writes */
  private exclusives: (() => Promise<void>)[] = [];
  private scheduled = false;
  private running = false;
  private readonly checks: CommitCheck[] = [];
  private readonly openSteps: OpenStep[] = [];
  private readonly guardChecks: GuardCheck[] = [];

  /** commits answered but not yet fsynced, in commit order, with the bound's cancel */
  private pendingSync: RecordedEvent[][] = [];
  private cancelBound: (() => void) | null = null;
  /** settles once the latest commit handed to an fsync is durable */
  private lastSync: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: EmbeddedStorage,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly deferTimer: DeferTimer = realTimer,
  ) {}

  private policyChecks = 0;
  private policyGuards = 0;

  addCommitCheck(check: CommitCheck, stage?: CheckStage): void {
    this.policyChecks = addInStage(this.checks, this.policyChecks, check, stage);
  }

  addOpenStep(step: OpenStep): void {
    this.openSteps.push(step);
  }

  addGuardCheck(check: GuardCheck, stage?: CheckStage): void {
    this.policyGuards = addInStage(this.guardChecks, this.policyGuards, check, stage);
  }

  run<T>(ctx: CommandContext, fn: (tx: GraphTx) => Promise<T>, opts?: RunOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ctx, fn, resolve: resolve as (v: unknown) => void, reject, trace: tracing.capture(), deferred: opts?.durability === 'deferred' });
      this.schedule();
    });
  }

  /**
   * Runs `fn` at an idle point of the write queue: no batch is open on either database while
   * it runs, and writes that arrive meanwhile wait for it (reads are not affected).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.exclusives.push(() => Promise.resolve().then(fn).then(resolve, reject));
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // While the previous batch's fsync runs, the next batch waits for it (its answers would
    // wait for the fsync after it anyway) and gathers every request that arrives meanwhile:
    // fewer, larger batches, each with one transaction per database and one fsync.
    const syncing = this.storage.events.syncInFlight;
    const go = () => void this.drain();
    const soon = () => setImmediate(go); // after the I/O of this turn: the requests read with it join
    if (syncing) void syncing.then(soon, soon);
    else soon();
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const exclusive = this.exclusives.shift();
    if (exclusive) {
      await exclusive();
      return this.finish();
    }
    const batch = this.queue.splice(0, MAX_BATCH);
    if ((await this.gated(batch, false)) === 'isolate') {
      // one request's append or projection failed: replay the batch one request per
      // transaction so that only that request fails (handlers only stage events, so
      // deciding again is safe)
      for (const job of batch) if (!this.settled.has(job)) await this.gated([job], true);
    }
    this.settled = new WeakSet();
    this.finish();
  }

  /**
   * One commit inside the write gate: while the WAL checkpointer's worker holds the write
   * locks (a RESTART, a start-over and its fsync) the batch waits for it on a promise, the
   * event loop free to read the requests that join the next batch, instead of sleeping in
   * SQLite's busy handler.
   */
  private async gated(batch: Job[], isolated: boolean): Promise<'ok' | 'isolate'> {
    const gate = this.storage.writeGate;
    for (let wait = gate.enter(); wait; wait = gate.enter()) await wait;
    try {
      return await this.commit(batch, isolated);
    } finally {
      gate.leave();
    }
  }

  /** Jobs already answered in this drain (a replay must not run them again). */
  private settled = new WeakSet<Job>();

  /**
   * Decides every job and commits all their events in ONE transaction per database. No
   * savepoints: they would flush the full-text index on every request. A failure while
   * appending or projecting rolls the whole batch back and asks for isolated replay.
   */
  private async commit(batch: Job[], isolated: boolean): Promise<'ok' | 'isolate'> {
    const { events, projections, runner, graph } = this.storage;
    const done: { job: Job; result: unknown }[] = [];
    const committed: RecordedEvent[] = [];
    /** whether this batch changed the log (appends or deleted streams) */
    let wrote = false;
    const startPosition = runner.appliedPosition;
    // IMMEDIATE on both: the write locks are taken now, waiting (busy_timeout) while the WAL
    // checkpointer's RESTART or start-over, or an operator tool, holds one. A deferred BEGIN
    // read first and upgraded later, and an upgrade that finds the lock held fails at once
    // (SQLITE_BUSY)
    try {
      events.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      return this.refuseBatch(batch, err);
    }
    try {
      projections.exec('BEGIN IMMEDIATE');
    } catch (err) {
      safe(() => events.db.exec('ROLLBACK'));
      return this.refuseBatch(batch, err);
    }
    try {
      for (const job of batch) {
        const span = tracing.start('strata.unit_of_work', { 'strata.request_id': job.ctx.request_id, 'strata.batch_size': batch.length }, job.trace);
        try {
          const tx = new GraphTx(job.ctx, graph, this.ids, this.clock.now());
          let result: unknown;
          try {
            for (const step of this.openSteps) await step(tx);
            let refusedBeforeGuard = false;
            try {
              result = await job.fn(tx);
            } catch (err) {
              // a policy answers before the handler's state guard (REFERENCE §13.6)
              if (!(refusedBeforeGuard = await answerBeforeGuard(tx, err, this.guardChecks))) throw err;
            }
            // rules on the whole request (plan node limit, one live Series per entity and metric),
            // against the state the earlier requests of this batch left: race-free
            if (!refusedBeforeGuard) await tx.verify(this.checks);
          } catch (err) {
            this.settle(job, () => job.reject(err)); // nothing of this request was staged
            continue;
          }
          if (tx.refusal) result = refused(tx.refusal);
          if (!tx.hasChanges()) {
            done.push({ job, result });
            continue;
          }
          try {
            // deletions first: a clear removes the old graph stream, then records the clear on a fresh one
            if (tx.streamsToDelete.length) events.deleteStreamsSync(tx.streamsToDelete);
            const appends = tx.staged();
            const recorded = appends.length
              ? recordedFromAppend(
                  appends,
                  tracing.inSpanSync('strata.event_log.append', { 'strata.streams': appends.length }, () => events.appendSync(appends), span.context),
                )
              : [];
            runner.applyInline(recorded, span.context);
            this.storage.notifyApplied(recorded);
            done.push({ job, result });
            wrote = true;
            for (const e of recorded) committed.push(e); // a spread overflows the call stack past ~120k events
          } catch (err) {
            safe(() => events.db.exec('ROLLBACK'));
            safe(() => projections.exec('ROLLBACK'));
            runner.resetPosition(startPosition);
            this.storage.notifyRolledBack();
            if (!isolated) return 'isolate';
            this.settle(job, () => job.reject(err instanceof WrongExpectedRevisionError ? new DomainError(409, 'version_conflict', err.message) : isStorageBusy(err) ? storageBusy() : err));
            return 'ok';
          }
        } finally {
          span.end();
        }
      }
      if (committed.length) runner.saveCheckpoints();
      events.db.exec('COMMIT');
    } catch (err) {
      // the log did not commit: nobody in this batch may be told they succeeded
      this.log.error(`log commit failed: ${(err as Error).message}`);
      safe(() => events.db.exec('ROLLBACK'));
      safe(() => projections.exec('ROLLBACK'));
      runner.resetPosition(startPosition);
      this.storage.notifyRolledBack();
      const unavailable = storageBusy();
      for (const d of done) this.settle(d.job, () => d.job.reject(unavailable));
      return 'ok';
    }
    const answer = (d: { job: Job; result: unknown }) => (d.result instanceof Refused ? d.job.reject(d.result.error) : d.job.resolve(d.result));
    // settled now (a replay must not run them again), answered once the log is on disk: with a
    // deferred fsync the next batch is decided while this one's fsync runs
    for (const d of done) this.settled.add(d.job);
    const deferredOnly = wrote && events.commitSyncDeferred && done.every((d) => d.job.deferred);
    if (deferredOnly) {
      // Nobody waits for this batch's fsync, and its callers read the projections on this very
      // connection: they are answered at the log commit and go on (a run to its model call)
      // while the projections' COMMIT, which writes their WAL pages, waits for the next turn of
      // the event loop. The write queue and the write gate stay held until it is done.
      this.pendingSync.push(committed);
      if (!this.cancelBound) this.cancelBound = this.deferTimer(() => void this.syncDeferred(), DEFERRED_SYNC_BOUND_MS);
      for (const d of done) answer(d);
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.commitProjections();
      return 'ok';
    }
    this.commitProjections();
    if (!wrote || !events.commitSyncDeferred) {
      this.notify(committed);
      for (const d of done) answer(d);
      return 'ok';
    }
    // callers that asked for a deferred commit are answered at the log commit; the rest wait for its fsync
    const waiting = done.filter((d) => !d.job.deferred);
    for (const d of done) if (d.job.deferred) answer(d);
    // one fsync covers the deferred commits before this one too: they are announced first, in commit order
    const covered = this.takePending();
    covered.push(committed);
    const synced = events.syncCommitted();
    this.lastSync = synced;
    synced.then(
      () => {
        for (const c of covered) this.notify(c);
        for (const d of waiting) answer(d);
      },
      (err: unknown) => {
        this.log.error(`log fsync failed: ${(err as Error).message}`);
        const unavailable = storageBusy();
        for (const d of waiting) d.job.reject(unavailable);
      },
    );
    return 'ok';
  }

  /** The projections' COMMIT of a batch whose log committed; a failure catches them up from the log. */
  private commitProjections(): void {
    const { projections, runner } = this.storage;
    try {
      projections.exec('COMMIT');
    } catch (err) {
      // the log is durable; the projections catch up from their checkpoint
      this.log.error(`projection commit failed: ${(err as Error).message}; catching up from the log`);
      safe(() => projections.exec('ROLLBACK'));
      runner.resetPosition();
      runner.catchUp();
    }
  }

  durable(): Promise<void> {
    return this.pendingSync.length ? this.syncDeferred() : this.lastSync;
  }

  /** tells the live listeners of one commit's events; a listener's failure is logged, not thrown */
  private notify(events: RecordedEvent[]): void {
    if (!events.length) return;
    try {
      this.storage.notifyCommitted(events);
    } catch (err) {
      this.log.error(`committed-event listener failed: ${(err as Error).message}`);
    }
  }

  /** the deferred commits waiting for an fsync, taken (their bound cancelled) */
  private takePending(): RecordedEvent[][] {
    this.cancelBound?.();
    this.cancelBound = null;
    return this.pendingSync.splice(0);
  }

  /**
   * The fsync of the deferred commits (the bound ran out, or someone needs them durable); their
   * live listeners hear of them after it. A failed fsync announces nothing: those commits may
   * not survive a crash, so no subscriber may hold an id of theirs.
   */
  private syncDeferred(): Promise<void> {
    const covered = this.takePending();
    if (!covered.length) return this.lastSync;
    const synced = this.storage.events.syncCommitted();
    this.lastSync = synced;
    synced.then(
      () => {
        for (const c of covered) this.notify(c);
      },
      (err: unknown) => this.log.error(`log fsync failed: ${(err as Error).message}`),
    );
    return synced;
  }

  /** No transaction could start: every request of the batch is refused, nothing written (503 when storage is locked). */
  private refuseBatch(batch: Job[], err: unknown): 'ok' {
    this.log.error(`write batch refused: ${(err as Error).message}`);
    const answer = isStorageBusy(err) ? storageBusy() : err;
    for (const job of batch) if (!this.settled.has(job)) this.settle(job, () => job.reject(answer));
    return 'ok';
  }

  private settle(job: Job, answer: () => void): void {
    this.settled.add(job);
    answer();
  }

  private finish(): void {
    this.running = false;
    if (this.queue.length || this.exclusives.length) this.schedule();
  }
}

/** A request refused after its refusal's own records were appended (GraphTx.refuseKeeping). */
class Refused {
  constructor(readonly error: Error) {}
}
function refused(error: Error): Refused {
  return new Refused(error);
}

/** REFERENCE §1.12: storage briefly locked is a 503 with Retry-After; nothing was written. */
function storageBusy(): DomainError {
  return new DomainError(503, 'unavailable', 'storage is temporarily unavailable; nothing was written', { retry_after: 1 });
}

/** SQLite's "database is locked" family (a lock held past busy_timeout, or one it may not wait for). */
function isStorageBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function safe(fn: () => void): void {
  try {
    fn();
  } catch {
    /* already rolled back */
  }
}
