import { tracing } from '@strata/observability/tracing';
import { Logger } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { Clock, IdGenerator } from '@strata/domain/time';
import { EventStore, WrongExpectedRevisionError } from '@strata/event-store/event-store.port';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { markReadLag } from './read-lag';
import { CommandContext } from './command-context';
import { answerBeforeGuard, CommitCheck, GraphTx, GuardCheck, OpenStep } from './graph-tx';
import { RevisionPinningReader, RevisionedReads } from './revision-pinning-reader';
import { addInStage, CheckStage, RunOptions, UnitOfWork } from './unit-of-work.port';

/** Waits until the projections show a log position (CheckpointWatcher). */
export interface ProjectionWait {
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
}

/** A decision that lost its race this many times is answered with 409. */
const MAX_ATTEMPTS = 3;

/**
 * Server mode (`STRATA_STORE=servers`): decide against the MongoDB read model, append the
 * request's events to KurrentDB in ONE multi-stream append (optimistic concurrency per
 * stream), then wait — bounded by STRATA_READ_WAIT_MS — until the projection worker has
 * applied them, so the client reads its own write. On timeout the write still succeeded:
 * the answer carries `X-Strata-Read-Lag: true`.
 *
 * Requests run concurrently (the API is stateless and scales out), so a decision may rest on
 * a read model that had not yet caught up with the log. The append's expected revisions
 * catch that; the request then waits for the read model to reach the log's head and decides
 * again (handlers do no I/O inside `fn`, so running it again is safe). A client's own
 * `expected_version` is checked by the decider on each attempt, as on the embedded default.
 */
export class ServerUnitOfWork implements UnitOfWork {
  private readonly log = new Logger('UnitOfWork');
  private readonly checks: CommitCheck[] = [];
  private readonly openSteps: OpenStep[] = [];
  private readonly guardChecks: GuardCheck[] = [];
  private readonly extraWaits: ProjectionWait[] = [];

  constructor(
    private readonly events: EventStore,
    private readonly graph: GraphReadModel & RevisionedReads,
    private readonly projections: ProjectionWait,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly readWaitMs: number,
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

  /**
   * Another read model a write must show before it answers, beside the worker's checkpoints:
   * this replica's log mirror, which the area read models kept there are decided against.
   */
  addProjectionWait(wait: ProjectionWait): void {
    this.extraWaits.push(wait);
  }

  /** every read model shows `position` (each waited for within the same bound) */
  private async allShow(position: number): Promise<boolean> {
    const all = await Promise.all([this.projections, ...this.extraWaits].map((w) => w.waitFor(position, this.readWaitMs)));
    return all.every(Boolean);
  }

  /** `opts.durability` changes nothing here: KurrentDB acknowledges an append once it is durable */
  run<T>(ctx: CommandContext, fn: (tx: GraphTx) => Promise<T>, _opts?: RunOptions): Promise<T> {
    return tracing.inSpan('strata.unit_of_work', { 'strata.request_id': ctx.request_id }, () => this.attempt(ctx, fn));
  }

  /** every append this unit acknowledged is durable already */
  durable(): Promise<void> {
    return Promise.resolve();
  }

  private async attempt<T>(ctx: CommandContext, fn: (tx: GraphTx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const tx = new GraphTx(ctx, new RevisionPinningReader(this.graph), this.ids, this.clock.now());
      for (const step of this.openSteps) await step(tx);
      let result: T;
      let refusedBeforeGuard = false;
      try {
        result = await fn(tx);
      } catch (err) {
        // a policy answers before the handler's state guard (REFERENCE §13.6)
        if (!(refusedBeforeGuard = await answerBeforeGuard(tx, err, this.guardChecks))) throw err;
        result = undefined as T;
      }
      // a request whose job writes later is still judged now (its decision may be all it appends)
      if (!tx.hasChanges() && !tx.writesLater) {
        if (tx.refusal) throw tx.refusal;
        return result;
      }
      if (!refusedBeforeGuard) await tx.verify(this.checks); // rules on the whole request (plan node limit, one live Series per entity and metric)
      if (tx.refusal && !tx.hasChanges()) throw tx.refusal;
      if (!tx.hasChanges()) return result;
      let position: number | null;
      try {
        position = await this.commit(tx);
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        if (attempt >= MAX_ATTEMPTS || !(await this.readModelAtHead())) throw new DomainError(409, 'version_conflict', err.message);
        this.log.debug(`retrying ${ctx.request_id} after ${err.message}`);
        continue;
      }
      if (position !== null && !(await this.allShow(position))) {
        ctx.lagging = true;
        markReadLag();
      }
      // refused, with its decision record appended (GraphTx.refuseKeeping)
      if (tx.refusal) throw tx.refusal;
      return result;
    }
  }

  /**
   * Appends the staged events; returns the position of the last one (null when the request
   * only deleted streams). A stream that is deleted and written again (a clear re-starting
   * the graph stream) is deleted first; other deletions follow the append, so a failed
   * append deletes nothing and the purge marker is in the log before any stream leaves it.
   */
  private async commit(tx: GraphTx): Promise<number | null> {
    const appends = tx.staged();
    const written = new Set(appends.map((a) => a.stream));
    const before = tx.streamsToDelete.filter((s) => written.has(s));
    const after = tx.streamsToDelete.filter((s) => !written.has(s));
    if (before.length) await this.events.deleteStreams(before);
    const position = appends.length
      ? (await tracing.inSpan('strata.event_log.append', { 'strata.streams': appends.length }, () => this.events.append(appends))).position
      : null;
    if (after.length) await this.events.deleteStreams(after);
    return position;
  }

  /** Waits for the read model to show everything in the log now; false if it cannot in time. */
  private async readModelAtHead(): Promise<boolean> {
    return this.allShow(await this.events.headPosition());
  }
}
