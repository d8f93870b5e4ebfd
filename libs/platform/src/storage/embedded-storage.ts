import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { RecordedEvent } from '@strata/domain/events';
import type { Clock } from '@strata/domain/time';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { CheckpointDone, WalCheckpointer, WriteGate } from '@strata/event-store/sqlite/wal-checkpointer';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { EmbeddedProjectionRunner } from '@strata/projections/embedded/embedded-projection-runner';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { ProjectionDefinition, createEmbedded } from '@strata/projections/registry/projection-definition';
import { PROJECTIONS } from '@strata/projections/registry/projection-registry';
import { ProjectionsSession, ProjectionsSync, currentBootId } from './projections-session';

/** Quiet time (no write, no search) after which the text index reads frequent words' lists. */
const TERM_LISTS_WARM_MS = 500;

export const EVENTS_FILE = 'events.db';
export const PROJECTIONS_FILE = 'projections.db';
/** the embedded request-activity and job stores, beside the data */
export const OPS_FILE = 'ops.db';

/**
 * Opens the projections database with settings for a rebuildable, checkpointed store.
 * `OFF` only under a ProjectionsSession that owns the file (see projections-session.ts).
 */
export function openProjectionsDb(file: string, synchronous: 'NORMAL' | 'OFF' = 'NORMAL'): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // rebuildable from the log and checkpointed with its data: no fsync per commit needed
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  return db;
}

/**
 * The embedded default: the event log in one SQLite file, the projections in another
 * (delete it and restart to rebuild), the vector index beside them.
 */
export class EmbeddedStorage {
  readonly events: SqliteEventStore;
  readonly projections: Database.Database;
  readonly graph: SqliteGraphStore;
  readonly text: SqliteTextIndex;
  readonly runner: EmbeddedProjectionRunner;
  /** WAL checkpoints of both files run off the event loop */
  private readonly checkpointer: WalCheckpointer;
  private readonly committedListeners: ((events: RecordedEvent[]) => void)[] = [];

  /** how this process flushes the projections file, and whether it found it torn */
  readonly session: ProjectionsSession;

  constructor(
    readonly dataDir: string,
    opts: {
      /** the service's clock: the time written into the projections-session marker */
      clock: Clock;
      projectionsFile?: string;
      projectionsSync?: ProjectionsSync;
      /** the text index's postings of its own (default off: SqliteTextIndexOptions.postings) */
      textPostings?: boolean;
      /** MiB for the text index's term lists, 0: none (default: SqliteTextIndexOptions.termListsBytes) */
      textListsMb?: number;
      /** the machine's boot id (tests stand in for a reboot); default: the kernel's */
      bootId?: string | null;
      /** the read models to keep; default: the projection registry */
      projections?: readonly ProjectionDefinition[];
    },
  ) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.events = new SqliteEventStore(path.join(dataDir, EVENTS_FILE), { onUpgrade: (m) => new Logger('EventLog').warn(m) });
    const projectionsFile = opts.projectionsFile ?? path.join(dataDir, PROJECTIONS_FILE);
    this.session = ProjectionsSession.begin(projectionsFile, {
      sync: opts.projectionsSync ?? 'off',
      clock: opts.clock,
      bootId: opts.bootId === undefined ? currentBootId() : opts.bootId,
    });
    if (this.session.discarded)
      new Logger('Projections').warn(`${path.basename(projectionsFile)} was discarded and is rebuilt from the log: ${this.session.discarded}`);
    this.projections = openProjectionsDb(projectionsFile, this.session.synchronous);
    // The log's commits fsync off the event loop (the unit of work answers after it) only where
    // the projections cannot be found ahead of the log on disk after a machine crash: a file
    // flushed without fsync is discarded and rebuilt then (the session marker), never trusted.
    if (this.session.synchronous === 'OFF') this.events.deferCommitSync();
    this.graph = new SqliteGraphStore(this.projections);
    this.text = new SqliteTextIndex(this.projections, {
      postings: opts.textPostings ?? false,
      termLists: opts.textListsMb !== 0,
      termListsBytes: opts.textListsMb ? opts.textListsMb * 1024 * 1024 : undefined,
      // frequent words are read once writes and queries pause, not by the first queries after
      termListsWarmMs: TERM_LISTS_WARM_MS,
    });
    const deps = { db: this.projections, graph: this.graph, text: this.text };
    this.runner = new EmbeddedProjectionRunner(
      this.projections,
      this.events,
      (opts.projections ?? PROJECTIONS).map((d) => createEmbedded(d, deps)),
    );
    this.checkpointer = new WalCheckpointer([
      // the log's WAL header is synced by the worker, not inside the service's COMMIT
      { db: this.events.db, file: this.events.file, synchronous: 'FULL', name: 'events', startOver: true },
      { db: this.projections, file: this.projections.name, synchronous: this.session.synchronous, name: 'projections' },
    ]);
  }

  /** taken by the unit of work around each write batch, so it never meets the checkpointer's locks in the busy handler */
  get writeGate(): WriteGate {
    return this.checkpointer.writeGate;
  }

  /** Told of each WAL checkpoint that copied pages, by database (`events`, `projections`). */
  onCheckpoint(listener: (c: CheckpointDone) => void): void {
    this.checkpointer.onCheckpoint(listener);
  }

  /** Listeners for committed events (vector index, auto-embedding, live tails). */
  onCommitted(listener: (events: RecordedEvent[]) => void): void {
    this.committedListeners.push(listener);
  }
  notifyCommitted(events: RecordedEvent[]): void {
    for (const l of this.committedListeners) l(events);
  }

  private readonly appliedListeners: ((events: RecordedEvent[]) => void)[] = [];
  private readonly rolledBackListeners: (() => void)[] = [];
  /**
   * Listeners for events just projected inside the open write batch, before it commits (the
   * live-node counts the plan limit reads must include the earlier requests of the batch).
   * If the batch then rolls back, `onRolledBack` listeners hear of it.
   */
  onApplied(listener: (events: RecordedEvent[]) => void): void {
    this.appliedListeners.push(listener);
  }
  notifyApplied(events: RecordedEvent[]): void {
    for (const l of this.appliedListeners) l(events);
  }
  onRolledBack(listener: () => void): void {
    this.rolledBackListeners.push(listener);
  }
  notifyRolledBack(): void {
    for (const l of this.rolledBackListeners) l();
  }

  private readonly caughtUpListeners: (() => void)[] = [];
  /** Work that must follow the start-up catch-up (the vector index replays from its own checkpoint). */
  onCaughtUp(listener: () => void): void {
    this.caughtUpListeners.push(listener);
  }
  notifyCaughtUp(): void {
    for (const l of this.caughtUpListeners) l();
  }

  async close(): Promise<void> {
    await this.checkpointer.close();
    await this.events.close();
    this.session.end(this.projections);
  }
}
