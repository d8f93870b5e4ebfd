import { tracing } from '@strata/observability/tracing';
import type { Database } from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import { EmbeddedProjection, ProjectionStatus, flushProjections } from '../projection';
import { CheckpointStore } from './checkpoint-store';

/** The part of the SQLite event store the runner reads (kept narrow for tests). */
export interface EmbeddedLogReader {
  /** the log's SQLite file, when it has one: a long replay then reads it on a second thread */
  readonly file?: string;
  headPositionSync(): number;
  /** with `ids: false` the reader may leave event ids empty (projections never use them) */
  iterateAll(after: number, batchSize?: number, options?: { ids?: boolean }): Generator<RecordedEvent>;
}

/**
 * Runs the SQLite projections. All of them share one database and one transaction per
 * batch, so after a crash they resume from a checkpoint that matches their data.
 */
export class EmbeddedProjectionRunner {
  readonly checkpoints: CheckpointStore;
  /** position every projection has applied (they move together after start-up) */
  private position = 0;

  constructor(
    readonly db: Database,
    private readonly log: EmbeddedLogReader,
    readonly projections: EmbeddedProjection[],
  ) {
    this.checkpoints = new CheckpointStore(db);
  }

  get appliedPosition(): number {
    return this.position;
  }

  /**
   * Brings every projection up to the head of the log. A projection whose stored version
   * differs from its code version is reset and rebuilt from position 0, and so is one whose
   * checkpoint lies past the head: it holds events this log does not have (a log restored
   * from an older backup beside newer projections), and left as it was it would skip the
   * log's next events as already applied. `onReset` hears of the latter.
   */
  catchUp(onProgress?: (done: number, head: number) => void, batch = 5000, onReset?: (name: string, checkpoint: number, head: number) => void): void {
    const head = this.log.headPositionSync();
    for (const p of this.projections) {
      const cp = this.checkpoints.get(p.name);
      const ahead = !!cp && cp.position > head;
      if (!cp || cp.version !== p.version || ahead) {
        if (ahead) onReset?.(p.name, cp.position, head);
        this.db.transaction(() => {
          p.reset();
          this.checkpoints.set(p.name, p.version, 0);
        })();
      }
    }
    // projections may sit at different checkpoints (one was just reset): replay from the lowest
    const starts = new Map(this.projections.map((p) => [p.name, this.checkpoints.get(p.name)!.position]));
    const from = Math.min(...starts.values(), head);
    let pending: RecordedEvent[] = [];
    const flush = () => {
      if (!pending.length) return;
      const events = pending;
      pending = [];
      this.db.transaction(() => {
        for (const e of events)
          for (const p of this.projections) if (e.position > (starts.get(p.name) ?? 0)) p.apply(e);
        flushProjections(this.projections);
        const last = events[events.length - 1].position;
        for (const p of this.projections) this.checkpoints.set(p.name, p.version, Math.max(last, starts.get(p.name) ?? 0));
      })();
      onProgress?.(events[events.length - 1].position, head);
    };
    for (const e of this.log.iterateAll(from, batch, { ids: false })) {
      pending.push(e);
      if (pending.length >= batch) flush();
    }
    flush();
    this.position = Math.max(head, ...this.projections.map((p) => this.checkpoints.get(p.name)!.position));
  }

  /**
   * Applies freshly appended events. Called by the unit of work while its projection
   * transaction is open; it saves the checkpoints in the same transaction.
   */
  applyInline(events: RecordedEvent[], trace?: unknown): void {
    if (tracing.enabled) return this.applyTraced(events, trace);
    for (const e of events) {
      if (e.position <= this.position) continue;
      for (const p of this.projections) p.apply(e);
      this.position = e.position;
    }
    flushProjections(this.projections);
  }

  /** applyInline, with one span per projection for its share of the time (same order of work) */
  private applyTraced(events: RecordedEvent[], trace: unknown): void {
    const spent = this.projections.map(() => 0);
    const startMs = performance.timeOrigin + performance.now();
    let n = 0;
    for (const e of events) {
      if (e.position <= this.position) continue;
      this.projections.forEach((p, i) => {
        const t0 = performance.now();
        p.apply(e);
        spent[i] += performance.now() - t0;
      });
      this.position = e.position;
      n++;
    }
    this.projections.forEach((p, i) => {
      const t0 = performance.now();
      p.flush?.();
      spent[i] += performance.now() - t0;
    });
    this.projections.forEach((p, i) => tracing.measured('strata.projection', { 'strata.projection': p.name, 'strata.events': n }, startMs, spent[i], trace));
  }

  /** Writes the checkpoints of everything applied inline; called once per commit. */
  saveCheckpoints(): void {
    for (const p of this.projections) this.checkpoints.set(p.name, p.version, this.position);
  }

  /** After a rolled-back transaction: back to a given position, or to the stored checkpoints. */
  resetPosition(position?: number): void {
    this.position = position ?? Math.min(...this.projections.map((p) => this.checkpoints.get(p.name)?.position ?? 0));
    for (const p of this.projections) p.rolledBack?.();
  }

  status(): ProjectionStatus[] {
    const head = this.log.headPositionSync();
    return this.projections.map((p) => {
      const cp = this.checkpoints.get(p.name);
      return {
        name: p.name,
        version: p.version,
        stored_version: cp?.version ?? null,
        checkpoint: cp?.position ?? 0,
        head,
        lag: head - (cp?.position ?? 0),
        last_error: cp?.last_error ?? null,
      };
    });
  }
}
