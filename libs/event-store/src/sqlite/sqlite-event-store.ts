import * as fs from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { IdGenerator, randomIds } from '@strata/domain/time';
import {
  AppendResult,
  EventStore,
  ReadAllOptions,
  StreamAppend,
  Subscription,
  WrongExpectedRevisionError,
} from '../event-store.port';
import { assertValidAppends, checkExpectedRevision } from '../expected-revision';
import { setRawData } from './raw-event-data';
import { migrateToStreamKeys, rekeyStreams, STREAM_KEY_FUNCTION, STREAM_KEY_SCHEME, streamKeyScheme } from './stream-key-migration';
import { EVENTS_STREAM_INDEX_SQL, eventsTableSql } from './events-table';
import { DEFAULT_STREAM_KEYS, HASHED_STREAM_KEYS, StreamKeys, streamFamily } from './stream-key';

export interface SqliteEventStoreOptions {
  /** open an existing file read-only (e.g. `strata events tail`); appends and deletes throw */
  readonly?: boolean;
  /** how often idle subscriptions re-check the file for appends made by other connections (ms) */
  pollIntervalMs?: number;
  /** how long a writer waits for another connection's write lock before SQLITE_BUSY (ms) */
  busyTimeoutMs?: number;
  /** event id generator (DESIGN rule 8); random UUIDs by default */
  ids?: IdGenerator;
  /** how stream names map to index keys; tests inject colliding ones */
  streamKeys?: StreamKeys;
  /** told before a one-time upgrade of an older log file starts (it takes ~9 s per million events) */
  onUpgrade?: (message: string) => void;
}

export interface SubscribeOptions {
  /**
   * Called when the handler throws (the subscription then stops, so no event is skipped; the
   * owner resumes from its checkpoint) or when a read fails (the subscription retries after the
   * poll interval). Without it errors are logged with console.error.
   */
  onError?: (error: unknown, event?: RecordedEvent) => void;
}

/** Columns in the order every read selects them; rows are read in raw (array) mode for speed. */
type EventRow = [position: number, id: string, stream: string, revision: number, type: string, data: string, metadata: string];

const COLUMNS = 'position, id, stream, revision, type, data, metadata';
const CATCH_UP_BATCH = 500;
const ROW_PARAMS = 8;
const INSERT_ROW_SQL = `INSERT INTO events (${COLUMNS}, stream_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
/** rows per INSERT statement, largest first: a batch goes in as few statements as these sizes allow */
const INSERT_CHUNKS = [64, 16, 4, 1] as const;
const INSERT_CHUNK = INSERT_CHUNKS[0];
const insertSql = (rows: number) => `${INSERT_ROW_SQL}${', (?, ?, ?, ?, ?, ?, ?, ?)'.repeat(rows - 1)}`;
const REVISION_SQL = 'SELECT revision FROM events WHERE stream_key = ? AND stream = ? ORDER BY revision DESC LIMIT 1';

/** The append's statements, prepared once on first use (a read-only or legacy handle never appends). */
interface AppendStatements {
  /** takes the next positions: the counter moves in the append's own transaction */
  reserve: Statement;
  exists: Statement;
  /** one per INSERT_CHUNKS size, in that order */
  insert: Statement[];
}

/**
 * Turns rows into events. The events of one request are consecutive and share one metadata
 * text, so they share one parsed metadata object (as they do when first appended); the data
 * text rides along under RAW_DATA for projections that store it again.
 */
class RowDecoder {
  private lastMetaJson = '';
  private lastMeta: RecordedEvent['metadata'] | undefined;

  decode(r: EventRow): RecordedEvent {
    const metaJson = r[6];
    if (metaJson !== this.lastMetaJson || this.lastMeta === undefined) {
      this.lastMeta = JSON.parse(metaJson);
      this.lastMetaJson = metaJson;
    }
    const event = recordedEvent({
      id: r[1],
      stream: r[2],
      revision: r[3],
      position: r[0],
      type: r[4],
      data: JSON.parse(r[5]),
      metadata: this.lastMeta!,
    });
    setRawData(event, r[5]);
    return event;
  }

  all(rows: EventRow[]): RecordedEvent[] {
    const out = new Array<RecordedEvent>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.decode(rows[i]);
    return out;
  }
}

/**
 * The embedded event log: one SQLite file in WAL mode with `synchronous=FULL`, so an event is
 * on disk when append returns. Every async port method wraps a synchronous twin that the
 * embedded runtime calls on its hot path.
 *
 * Positions come from an explicit counter (`event_log_state.last_position`) bumped inside the
 * append transaction, so they stay strictly increasing and are never reused, even after
 * deleteStreams removed the newest rows. Appends take the write lock up front (BEGIN
 * IMMEDIATE), so transactions commit in position order and readers always see a gap-free
 * prefix of the log (apart from deleted streams).
 *
 * Streams are found through an index on an integer key derived from the name (see
 * stream-key.ts) and the name itself; appends check revisions under the write lock, so each
 * (stream, revision) is written once.
 *
 * Inside a transaction the caller opened on `db` (the unit of work's group commit), appendSync
 * joins it: it wakes no subscriber then (they find the events at their next poll, after the
 * commit), and after a throw the caller rolls the transaction back.
 */
export class SqliteEventStore implements EventStore {
  private readonly database: Db;
  private readonly readOnly: boolean;
  private readonly pollIntervalMs: number;
  private readonly ids: IdGenerator;
  private keys: StreamKeys;
  /** a read-only handle on a log written before the stream-key index (stream reads refuse) */
  private readonly legacy: boolean;
  private readonly stmts = new Map<string, Statement>();
  /** wake-up callbacks of idle subscriptions; called after each local commit */
  private readonly waiters = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly appendTx: (appends: StreamAppend[]) => AppendResult & { wrote: boolean };
  /** commits write the WAL without waiting for the disk; `syncCommitted` makes them durable */
  private deferredSync = false;
  /** the WAL fsync in flight, and the one that must follow it (commits made after it began) */
  private syncing: Promise<void> | null = null;
  private nextSync: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  private readonly deleteTx: (streams: string[]) => void;
  private appendStmts: AppendStatements | null = null;
  private revisionStmt: Statement | null = null;

  constructor(
    readonly file: string,
    opts: SqliteEventStoreOptions = {},
  ) {
    this.readOnly = opts.readonly === true;
    this.pollIntervalMs = opts.pollIntervalMs ?? 200;
    this.ids = opts.ids ?? randomIds;
    this.keys = opts.streamKeys ?? DEFAULT_STREAM_KEYS;
    this.database = this.readOnly ? new Database(file, { readonly: true, fileMustExist: true }) : new Database(file);
    // a read-only handle on a log not yet re-keyed looks streams up by the keys it was written with
    if (this.readOnly && !opts.streamKeys && streamKeyScheme(this.database) < STREAM_KEY_SCHEME) this.keys = HASHED_STREAM_KEYS;
    this.database.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    // appends probe the stream index at random places: keep it in memory
    this.database.pragma('cache_size = -32768');
    this.database.function(STREAM_KEY_FUNCTION, { deterministic: true }, (stream: unknown) => this.keys.key(String(stream)));
    if (!this.readOnly) {
      try {
        this.database.pragma('journal_mode = WAL');
        this.database.pragma('synchronous = FULL');
        this.createSchema(opts.onUpgrade);
      } catch (err) {
        this.database.close(); // a failed upgrade left the file as it was: do not hold it open
        throw err;
      }
    }
    this.legacy = !this.hasStreamKeys();
    this.appendTx = this.database.transaction((appends: StreamAppend[]) => this.appendInTx(appends)).immediate;
    this.deleteTx = this.database.transaction((streams: string[]) => {
      const del = this.stmt('DELETE FROM events WHERE stream_key = ? AND stream = ?');
      for (const s of streams) del.run(this.keys.key(s), s);
    }).immediate;
  }

  /**
   * From now on a commit on this connection writes the WAL and returns without fsync
   * (`synchronous = NORMAL`); whoever commits calls `syncCommitted()` and acknowledges nothing
   * before it resolves. What is acknowledged is as durable as with `FULL` (the same WAL, synced),
   * but the fsync — milliseconds on a busy disk — runs on libuv's thread pool, so the event
   * loop decides the next group of writes meanwhile instead of waiting for the disk. Only for
   * a writer whose derived stores cannot get ahead of the log on disk unnoticed (the embedded
   * runtime, whose projections are rebuilt after a machine crash).
   */
  deferCommitSync(): void {
    this.assertWritable();
    this.database.pragma('synchronous = NORMAL');
    this.deferredSync = true;
  }

  /** whether commits wait for `syncCommitted` to be durable */
  get commitSyncDeferred(): boolean {
    return this.deferredSync;
  }

  /** the WAL fsync running now, if any (settles when it ends, either way) */
  get syncInFlight(): Promise<void> | null {
    return this.syncing;
  }

  /**
   * Resolves once everything committed on this connection before the call is on disk (at once
   * unless `deferCommitSync`). Callers that commit while an fsync is in flight share the next
   * one (group fsync): waiters are released in commit order.
   */
  syncCommitted(): Promise<void> {
    if (!this.deferredSync) return Promise.resolve();
    if (!this.syncing) return this.startSync();
    // the fsync in flight may have begun before this commit: wait for the one after it
    if (!this.nextSync) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      this.nextSync = { promise, resolve, reject };
    }
    return this.nextSync.promise;
  }

  private startSync(): Promise<void> {
    const settle = (failure: { error: unknown } | null) => {
      this.syncing = null;
      const next = this.nextSync;
      this.nextSync = null;
      if (!next) return;
      // commits made while a failed fsync ran follow, in the WAL, frames that may never reach
      // the disk (a failed fsync can drop them): they are not durable either
      if (failure) next.reject(failure.error);
      else this.startSync().then(next.resolve, next.reject);
    };
    const run = this.syncWal().then(
      () => settle(null),
      (error: unknown) => {
        settle({ error });
        throw error;
      },
    );
    this.syncing = run;
    return run;
  }

  /**
   * The WAL's descriptor, kept open from one fsync to the next: opening and closing it for each
   * one (two more trips to the thread pool, and a FileHandle each) cost more of the event loop
   * than the fsync itself. Only one fsync runs at a time, so it is never closed under one.
   */
  private walFd: { fd: number; dev: number; ino: number } | null = null;

  /** fdatasync of the file now at the WAL's path, off the event loop; nothing when there is none */
  private syncWal(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const fd = this.walDescriptor();
      if (fd === null) resolve();
      else
        fs.fdatasync(fd, (err) => {
          if (!err) return resolve();
          this.closeWalFd(); // the next fsync opens the WAL afresh
          reject(err);
        });
    });
  }

  /**
   * The open descriptor of the file at the WAL's path, reopened when that is another file than
   * the one held (SQLite removed and created it again), as an open per fsync would find it.
   */
  private walDescriptor(): number | null {
    const file = this.walFile();
    let now: fs.Stats;
    try {
      now = fs.statSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.closeWalFd(); // checkpointed and removed: nothing to sync
      return null;
    }
    const held = this.walFd;
    if (held && held.dev === now.dev && held.ino === now.ino) return held.fd;
    this.closeWalFd();
    const fd = fs.openSync(file, 'r');
    const opened = fs.fstatSync(fd);
    this.walFd = { fd, dev: opened.dev, ino: opened.ino };
    return fd;
  }

  private closeWalFd(): void {
    const held = this.walFd;
    this.walFd = null;
    try {
      if (held) fs.closeSync(held.fd);
    } catch {
      /* already unusable: nothing left to release */
    }
  }

  private walFile(): string {
    return `${this.file}-wal`;
  }

  /** the better-sqlite3 handle (for the embedded runtime and operator tools) */
  get db(): Db {
    return this.database;
  }

  private createSchema(onUpgrade?: (message: string) => void): void {
    // a log from before the stream-key index is rebuilt into today's schema first
    if (!this.hasStreamKeys()) {
      onUpgrade?.(`upgrading the event log ${this.file} (${this.headPositionSync()} events) to the stream-key index; this runs once`);
      migrateToStreamKeys(this.database);
    }
    this.database.exec(`
      ${eventsTableSql('events', true)}
      ${EVENTS_STREAM_INDEX_SQL}
      -- one row: the last position ever handed out (never decreases, survives deletes)
      CREATE TABLE IF NOT EXISTS event_log_state (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        last_position INTEGER NOT NULL
      );
      INSERT OR IGNORE INTO event_log_state (id, last_position)
        VALUES (1, (SELECT COALESCE(MAX(position), 0) FROM events));
    `);
    // a log keyed before time slots (see stream-key.ts) is re-keyed; a fresh one only marked
    if (streamKeyScheme(this.database) < STREAM_KEY_SCHEME) {
      const events = this.headPositionSync();
      if (events > 0) onUpgrade?.(`re-keying the stream index of the event log ${this.file} (${events} events); this runs once`);
      rekeyStreams(this.database);
    }
    // events_stream serves stream reads, revision checks and family listings; $all and
    // prefix reads walk the position primary key, so no further index is needed.
  }

  /** true when the events table has the stream_key column (or does not exist yet) */
  private hasStreamKeys(): boolean {
    const columns = this.database.prepare("SELECT name FROM pragma_table_info('events')").pluck().all() as string[];
    return columns.length === 0 || columns.includes('stream_key');
  }

  private assertStreamKeys(): void {
    if (this.legacy)
      throw new Error(`event log ${this.file} predates the stream index; open it once read-write (start the service) to upgrade it`);
  }

  /** prepared statements cached by SQL text (a bounded set of shapes) */
  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.database.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private rawStmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.database.prepare(sql).raw(true);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private assertWritable(): void {
    if (this.readOnly) throw new Error(`event store ${this.file} is open read-only`);
  }

  // ---------- synchronous API (embedded hot path) ----------

  /**
   * Appends to one or more streams in one SQLite transaction: every expected revision is
   * checked first-to-last inside the transaction; any mismatch throws WrongExpectedRevisionError
   * and nothing is written. Durable on return. Called inside a transaction the caller opened,
   * it joins that transaction, and after a throw the caller must roll it back.
   */
  appendSync(appends: StreamAppend[]): AppendResult {
    this.assertWritable();
    assertValidAppends(appends);
    // Inside a transaction the caller opened (the unit of work's group commit) the append runs
    // in it directly: better-sqlite3 would wrap it in a SAVEPOINT, whose journal copied every
    // page the append touched (and spilled to a temp file) only for a partial rollback the
    // caller never asks for. A throw then leaves this call's earlier rows in that transaction,
    // and the caller rolls it back whole (EmbeddedUnitOfWork does).
    const { wrote, position, revisions } = this.database.inTransaction ? this.appendInTx(appends) : this.appendTx(appends);
    if (wrote && !this.database.inTransaction) {
      // durable on return, as documented, even when commits do not wait for the disk
      if (this.deferredSync) fsyncFileSync(this.walFile());
      this.notify();
    }
    return { position, revisions };
  }

  private appendStatements(): AppendStatements {
    return (this.appendStmts ??= {
      reserve: this.database.prepare('UPDATE event_log_state SET last_position = last_position + ? WHERE id = 1 RETURNING last_position').pluck(),
      exists: this.database.prepare('SELECT 1 FROM events WHERE stream_key = ? AND stream = ? LIMIT 1').pluck(),
      insert: INSERT_CHUNKS.map((rows) => this.database.prepare(insertSql(rows))),
    });
  }

  private appendInTx(appends: StreamAppend[]): AppendResult & { wrote: boolean } {
    const s = this.appendStatements();
    let total = 0;
    for (const a of appends) total += a.events.length;
    // The positions are taken first, in one statement (reading the counter and writing it back
    // were two per append). Nothing else reads the counter inside the transaction, and a throw
    // below rolls it back with the rows.
    const end = total === 0 ? 0 : (s.reserve.get(total) as number);
    let position = end - total;
    // Keyed by stream names nothing else uses as keys: a null-prototype object is a hash table
    // from the start, where `{}` took a new hidden class for every new name (a sixth of the
    // append's CPU for a one-event append).
    const revisions: Record<string, number> = Object.create(null);
    // Rows go in as few INSERTs as INSERT_CHUNKS allows: one statement per row cost a quarter of
    // the insert's CPU in binding and stepping alone. The checks below read only the stream they
    // check, which appears once per call, so rows still waiting here never change what they find.
    const params: unknown[] = [];
    // one request's events share one metadata object: serialise it once
    let lastMeta: unknown;
    let lastMetaJson = '';
    for (const a of appends) {
      const key = this.keys.key(a.stream);
      // A new stream only needs to be absent: streams are only ever deleted whole, so one exists
      // exactly when any of its events does.
      const fresh = a.expectedRevision === 'no_stream' && a.events.length > 0;
      if (fresh && s.exists.get(key, a.stream) !== undefined)
        throw new WrongExpectedRevisionError(a.stream, 'no_stream', this.revisionOf(key, a.stream));
      let revision = fresh ? -1 : this.revisionOf(key, a.stream);
      if (!fresh) checkExpectedRevision(a.stream, a.expectedRevision, revision);
      for (const e of a.events) {
        revision++;
        position++;
        if (e.metadata !== lastMeta) {
          lastMeta = e.metadata;
          lastMetaJson = JSON.stringify(e.metadata);
        }
        const data = JSON.stringify(e.data ?? null);
        setRawData(e, data); // the projection of this event stores parts of it again
        if (total === 1) s.insert[INSERT_CHUNKS.length - 1].run(position, this.ids.uuid(), a.stream, revision, e.type, data, lastMetaJson, key);
        else {
          params.push(position, this.ids.uuid(), a.stream, revision, e.type, data, lastMetaJson, key);
          if (params.length === INSERT_CHUNK * ROW_PARAMS) {
            s.insert[0].run(params);
            params.length = 0;
          }
        }
      }
      revisions[a.stream] = revision;
    }
    for (let at = 0, c = 1; at < params.length; ) {
      const size = INSERT_CHUNKS[c] * ROW_PARAMS;
      if (params.length - at < size) c++;
      else {
        s.insert[c].run(at === 0 && size === params.length ? params : params.slice(at, at + size));
        at += size;
      }
    }
    if (total === 0) return { wrote: false, position: this.headPositionSync(), revisions };
    return { wrote: true, position: end, revisions };
  }

  /** events of one stream from a revision (inclusive), in order, at most `maxCount`; [] when it does not exist */
  readStreamSync(stream: string, fromRevision = 0, maxCount?: number): RecordedEvent[] {
    this.assertStreamKeys();
    const sql = `SELECT ${COLUMNS} FROM events WHERE stream_key = ? AND revision >= ? AND stream = ? ORDER BY revision`;
    const rows = (
      maxCount === undefined
        ? this.rawStmt(sql).all(this.keys.key(stream), fromRevision, stream)
        : this.rawStmt(`${sql} LIMIT ?`).all(this.keys.key(stream), fromRevision, stream, Math.max(0, Math.floor(maxCount)))
    ) as EventRow[];
    return new RowDecoder().all(rows);
  }

  /** current revision of a stream, or -1 when it does not exist */
  streamRevisionSync(stream: string): number {
    this.assertStreamKeys();
    return this.revisionOf(this.keys.key(stream), stream);
  }

  private revisionOf(key: number, stream: string): number {
    // walks the key's index entries newest first; colliding streams are skipped by name
    const r = (this.revisionStmt ??= this.stmt(REVISION_SQL).pluck()).get(key, stream) as number | undefined;
    return r ?? -1;
  }

  /**
   * Names of the streams of one family (`node-<org>:`, see stream-key.ts), found through the
   * family's key range of the stream index rather than a scan of the log.
   */
  streamsOfFamilySync(family: string): string[] {
    this.assertStreamKeys();
    if (streamFamily(family) !== family) throw new Error(`not a stream family: ${family}`);
    const { from, to } = this.keys.familyRange(family);
    return this.stmt(
      'SELECT DISTINCT stream FROM events WHERE stream_key >= ? AND stream_key < ? AND substr(stream, 1, length(?)) = ? ORDER BY stream',
    )
      .pluck()
      .all(from, to, family, family) as string[];
  }

  /**
   * Events with position > after, in position order, at most `limit`. With streamPrefixes, only
   * streams starting with one of them (an empty list matches nothing). Prefix reads walk the
   * log by position, so their cost is proportional to the span of the log they cover.
   */
  readAllSync(options: ReadAllOptions): RecordedEvent[] {
    const after = Math.max(0, options.after || 0);
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const prefixes = options.streamPrefixes;
    if (!prefixes) {
      const rows = this.rawStmt(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).all(
        after,
        limit,
      ) as EventRow[];
      return new RowDecoder().all(rows);
    }
    if (prefixes.length === 0) return [];
    // substr/length count characters the same way on both sides, unlike LIKE (case, wildcards)
    const match = prefixes.map(() => 'substr(stream, 1, length(?)) = ?').join(' OR ');
    const args: Array<string | number> = [after];
    for (const prefix of prefixes) args.push(prefix, prefix);
    args.push(limit);
    const rows = this.rawStmt(
      `SELECT ${COLUMNS} FROM events WHERE position > ? AND (${match}) ORDER BY position LIMIT ?`,
    ).all(...args) as EventRow[];
    return new RowDecoder().all(rows);
  }

  /** position of the newest event still in the log (0 when empty) */
  headPositionSync(): number {
    return (this.stmt('SELECT MAX(position) FROM events').pluck().get() as number | null) ?? 0;
  }

  /**
   * Streams every event with position > after in position order, reading `batchSize` rows at a
   * time so millions of events never sit in memory at once. Between batches the connection is
   * free (appends made meanwhile are picked up by later batches); a rebuild normally stops at the
   * head it saw when it started.
   */
  *iterateAll(after = 0, batchSize = 2000, options: { ids?: boolean } = {}): Generator<RecordedEvent> {
    // projections never look at event ids (a replay reads millions): `ids: false` leaves them ''
    const columns = options.ids === false ? COLUMNS.replace(', id,', ", '',") : COLUMNS;
    const stmt = this.rawStmt(`SELECT ${columns} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    const size = Math.max(1, Math.floor(batchSize));
    const decoder = new RowDecoder();
    let cursor = after;
    for (;;) {
      const rows = stmt.all(cursor, size) as EventRow[];
      for (let i = 0; i < rows.length; i++) yield decoder.decode(rows[i]);
      if (rows.length < size) return;
      cursor = rows[rows.length - 1][0];
    }
  }

  /** permanently removes streams; their positions are never handed out again */
  deleteStreamsSync(streams: string[]): void {
    this.assertWritable();
    this.assertStreamKeys();
    if (streams.length === 0) return;
    const inCallerTx = this.database.inTransaction;
    this.deleteTx([...new Set(streams)]);
    if (this.deferredSync && !inCallerTx) fsyncFileSync(this.walFile());
  }

  // ---------- async port ----------

  async append(appends: StreamAppend[]): Promise<AppendResult> {
    return this.appendSync(appends);
  }

  async readStream(stream: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    return this.readStreamSync(stream, fromRevision, maxCount);
  }

  async streamRevision(stream: string): Promise<number> {
    return this.streamRevisionSync(stream);
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.readAllSync(options);
  }

  async headPosition(): Promise<number> {
    return this.headPositionSync();
  }

  async deleteStreams(streams: string[]): Promise<void> {
    this.deleteStreamsSync(streams);
  }

  /**
   * Catch-up then live subscription. The loop re-reads the log after its cursor (the position
   * of the last delivered event), so ordering, no-skip and no-duplicate follow from the log
   * itself: a local commit wakes idle subscribers at once, and a timer (pollIntervalMs) catches
   * commits made by other connections or processes on the same file.
   */
  subscribe(
    after: number,
    handler: (event: RecordedEvent) => Promise<void> | void,
    options: SubscribeOptions = {},
  ): Subscription {
    let cursor = Math.max(0, after || 0);
    let closed = false;
    let wake: (() => void) | null = null;
    const report = (error: unknown, event?: RecordedEvent) => {
      if (options.onError) options.onError(error, event);
      else console.error(`[event-store] subscription ${event ? `handler failed at position ${event.position}` : 'read failed'}:`, error);
    };
    const waiter = () => {
      const w = wake;
      wake = null;
      if (w) w();
    };
    const subscription: Subscription = {
      close: async () => {
        if (closed) return;
        closed = true;
        this.subscriptions.delete(subscription);
        this.waiters.delete(waiter);
        waiter();
      },
    };
    const idle = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, this.pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const loop = async () => {
      while (!closed) {
        let batch: RecordedEvent[];
        try {
          batch = this.readAllSync({ after: cursor, limit: CATCH_UP_BATCH });
        } catch (err) {
          if (closed || !this.database.open) return;
          report(err);
          await idle();
          continue;
        }
        if (batch.length === 0) {
          await idle();
          continue;
        }
        for (const event of batch) {
          if (closed) return;
          try {
            const r = handler(event);
            if (r && typeof (r as Promise<void>).then === 'function') await r;
          } catch (err) {
            await subscription.close();
            report(err, event);
            return;
          }
          cursor = event.position;
        }
        // let timers and I/O run between batches even when the handler is synchronous
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    };
    this.subscriptions.add(subscription);
    this.waiters.add(waiter);
    void Promise.resolve().then(loop);
    return subscription;
  }

  private notify(): void {
    for (const w of this.waiters) w();
  }

  async close(): Promise<void> {
    for (const s of [...this.subscriptions]) await s.close();
    // the fsync in flight, and the one chained after it, end before their descriptor is closed
    while (this.syncing) await this.syncing.catch(() => undefined);
    this.closeWalFd();
    if (this.database.open) this.database.close();
  }
}

function fsyncFileSync(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
