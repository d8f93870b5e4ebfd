import type { Database } from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import { EmbeddedProjection, PlannedProjection, flushProjections, isPlanned } from '../projection';
import { CheckpointStore } from './checkpoint-store';
import { EmbeddedLogReader } from './embedded-projection-runner';
import { APPLY_EVENT } from './replay-plan';
import { ReplayEntry, ReplayReader } from './replay-reader';

/** The projections a replay writes, in one database, with their checkpoints. */
export interface ReplayTarget {
  db: Database;
  projections: EmbeddedProjection[];
  checkpoints: CheckpointStore;
}

export interface ReplayProgress {
  /** events read from the log so far */
  done: number;
  /** events the replay expects to read (positions from its start to its end; gaps make it an upper bound) */
  total: number;
  /** position of the last event applied */
  position: number;
  /** where the replay stops */
  until: number;
}

export interface ReplayOptions {
  /** last position to apply (default: the head of the log when the replay starts) */
  until?: number;
  /** per-projection last position (verify rebuilds each up to the live checkpoint) */
  bounds?: ReadonlyMap<string, number>;
  /** events per transaction */
  batch?: number;
  /** events read from the log at a time (small pages keep the garbage young) */
  page?: number;
  onProgress?: (p: ReplayProgress) => void;
  /** give the event loop a turn between transactions, so a service keeps answering meanwhile */
  yieldBetweenBatches?: boolean;
  /**
   * read and plan the log on a second thread (replay-reader.ts). By default a replay does so
   * when it has at least PARALLEL_FROM events, every projection can be planned and the log
   * is a file; `true` asks for it whatever the length, `false` never.
   */
  parallel?: boolean;
}

const DEFAULT_BATCH = 5_000;
const DEFAULT_PAGE = 1_000;
/** below this many events a second thread costs more to start than it saves */
const PARALLEL_FROM = 20_000;
/** pages of events the reading thread may run ahead */
const READ_AHEAD = 16;

/**
 * Applies the log to projections from their checkpoints (a projection at checkpoint 0 is
 * rebuilt from scratch) up to a bound, one transaction per batch with the checkpoints moving
 * in the same transaction. The log is read in pages, so it never sits in memory whole.
 */
export async function replayLog(target: ReplayTarget, log: EmbeddedLogReader, opts: ReplayOptions = {}): Promise<ReplayProgress> {
  const until = opts.until ?? log.headPositionSync();
  const batchSize = Math.max(1, opts.batch ?? DEFAULT_BATCH);
  const ps = target.projections;
  const starts = ps.map((p) => target.checkpoints.get(p.name)?.position ?? 0);
  const ends = ps.map((p) => Math.min(until, opts.bounds?.get(p.name) ?? until));
  const from = ps.length ? Math.min(...starts) : until;
  const progress: ReplayProgress = { done: 0, total: Math.max(0, until - from), position: from, until };
  if (from >= until) return progress;

  const db = target.db;
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  let inBatch = 0;
  let last = from;
  const commitBatch = () => {
    flushProjections(ps);
    for (let i = 0; i < ps.length; i++) target.checkpoints.set(ps[i].name, ps[i].version, Math.max(starts[i], Math.min(last, ends[i])));
    commit.run();
    progress.done += inBatch;
    progress.position = last;
    inBatch = 0;
    opts.onProgress?.(progress);
  };
  const page = Math.max(1, opts.page ?? DEFAULT_PAGE);
  /** applies one event (through `apply(i)` for each projection it concerns); true when that closed a batch */
  const step = (pos: number, apply: (i: number) => void): boolean => {
    if (inBatch === 0) begin.run();
    for (let i = 0; i < ps.length; i++) if (pos > starts[i] && pos <= ends[i]) apply(i);
    last = pos;
    if (++inBatch < batchSize) return false;
    commitBatch();
    return true;
  };
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const planned = ps.every(isPlanned) ? (ps as PlannedProjection[]) : null;
  const parallel = planned && log.file !== undefined && opts.parallel !== false && (opts.parallel === true || until - from >= PARALLEL_FROM);
  try {
    if (parallel) {
      // events read, decoded and planned on another thread; most arrive as rows to write
      const reader = new ReplayReader({ file: log.file!, from, until, planners: planned.map((p) => p.replayPlanner), page, window: READ_AHEAD });
      let entry: ReplayEntry;
      const applyPlan = (i: number) => {
        const plan = entry[2 + i];
        if (plan === APPLY_EVENT) ps[i].apply(entry[1] as RecordedEvent);
        else if (plan !== null) planned[i].applyPlanned(plan);
      };
      try {
        for await (const entries of reader)
          for (entry of entries) if (step(entry[0], applyPlan) && opts.yieldBetweenBatches) await turn();
      } finally {
        await reader.close();
      }
    } else {
      // each event is applied as soon as it is read (so it dies young)
      let event: RecordedEvent;
      const applyEvent = (i: number) => ps[i].apply(event);
      for (event of log.iterateAll(from, page, { ids: false })) {
        if (event.position > until) break;
        if (step(event.position, applyEvent) && opts.yieldBetweenBatches) await turn();
      }
    }
    if (inBatch > 0) commitBatch();
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
  return progress;
}

/** Drops a projection's rows and puts its checkpoint back to 0 (code version), so a replay rebuilds it. */
export function resetForRebuild(target: ReplayTarget, names: readonly string[]): void {
  target.db.transaction(() => {
    for (const p of target.projections) {
      if (!names.includes(p.name)) continue;
      p.reset();
      target.checkpoints.set(p.name, p.version, 0);
    }
  })();
}
