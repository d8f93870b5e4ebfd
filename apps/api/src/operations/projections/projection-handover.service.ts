import { StrataMetrics } from '@strata/observability';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CLOCK, Clock } from '@strata/domain/time';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { replayLog } from '@strata/projections/embedded/log-replay';
import { EVENTS_FILE, EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { EmbeddedUnitOfWork } from '@strata/platform/unit-of-work/embedded-unit-of-work';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { buildBeside, swapInto } from '@strata/platform/projections/beside-build';
import {
  HEARTBEAT_MS,
  HandoverRequest,
  HandoverResult,
  NEXT_PROJECTIONS_FILE,
  REQUEST_FILE,
  RESULT_FILE,
  SERVICE_FILE,
  ServicePresence,
  readJson,
  writeJsonAtomic,
} from '@strata/platform/projections/handover-files';
import { adoptOutdatedProjections } from '@strata/platform/projections/pending-rebuilds';
import { ProjectionSet, ProjectionSetOptions, openProjectionSet } from '@strata/platform/projections/projection-set';

const POLL_MS = 250;
/** pages copied per event-loop turn during a swap: reads keep being answered between steps */
const SWAP_PAGES_PER_STEP = 2048;

/**
 * The service side of projection rebuilds on the embedded default (a serving process only;
 * the CLI's application context leaves it off):
 * - announces the service in `service.json` (pid, heartbeat) so `strata projections rebuild`
 *   hands its result over instead of swapping files under a running service;
 * - takes such a hand-over: catches the rebuilt file up with the log while writes go on, then
 *   at an idle point of the write queue applies the last events and swaps it in;
 * - at start-up, keeps serving projections whose code version was bumped while a copy is
 *   rebuilt beside them, then swaps it in the same way.
 */
@Injectable()
export class ProjectionHandover implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('Projections');
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  private busy = false;
  private closed = false;
  private pending: string[] = [];
  /** events replayed of those expected, while a rebuild beside runs (for /metrics) */
  private progress: { done: number; total: number } | null = null;

  constructor(
    @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage | null,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(CLOCK) private readonly clock: Clock,
    metrics: StrataMetrics,
  ) {
    metrics.gauge('strata_projection_rebuild_pending', 'Projections this service serves while a copy is rebuilt beside them (1 each)', ['projection'], () =>
      this.pending.map((projection) => ({ labels: { projection }, value: 1 })),
    );
    metrics.gauge('strata_projection_rebuild_progress_ratio', 'Share of the log replayed by the rebuild beside, per projection being rebuilt', ['projection'], () => {
      const p = this.progress;
      return p ? this.pending.map((projection) => ({ labels: { projection }, value: p.total > 0 ? Math.min(1, p.done / p.total) : 0 })) : [];
    });
  }

  private get serving(): boolean {
    return !!this.storage && this.uow instanceof EmbeddedUnitOfWork && !!this.adapterHost.httpAdapter;
  }

  onApplicationBootstrap(): void {
    if (!this.serving) return;
    const storage = this.storage!;
    this.pending = adoptOutdatedProjections(storage.runner);
    if (this.pending.length) this.log.warn(`projections ${this.pending.join(', ')} changed version: serving them while a copy is rebuilt beside`);
    storage.onCaughtUp(() => this.start());
  }

  /** The projection code as the live projections run it (a rebuilt text index keeps postings if the live one does). */
  private setup(): ProjectionSetOptions {
    return { textPostings: this.storage!.text.postingsEnabled };
  }

  private file(name: string): string {
    return path.join(this.storage!.dataDir, name);
  }

  private start(): void {
    if (this.closed) return;
    this.announce();
    this.timer = setInterval(() => this.tick(), POLL_MS);
    this.timer.unref();
    if (this.pending.length) void this.run(() => this.rebuildPending());
  }

  private announce(): void {
    const address = this.adapterHost.httpAdapter?.getHttpServer?.()?.address?.();
    const url = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : null;
    const presence: ServicePresence = { pid: process.pid, started_at: this.isoNow(), url };
    writeJsonAtomic(this.file(SERVICE_FILE), presence);
  }

  private isoNow(): string {
    return new Date(this.clock.now() * 1000).toISOString();
  }

  /**
   * One poll of the timer: refreshes the presence heartbeat now and then, and takes a
   * hand-over request if one is waiting. Public so a test can poll without waiting for the timer.
   */
  tick(): void {
    try {
      if (++this.ticks % Math.round(HEARTBEAT_MS / POLL_MS) === 0) {
        const now = this.clock.now();
        fs.utimesSync(this.file(SERVICE_FILE), now, now);
      }
      if (!this.busy && fs.existsSync(this.file(REQUEST_FILE))) void this.run(() => this.takeRequest());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.announce();
      this.log.error(`hand-over watch failed: ${(err as Error).message}`);
    }
  }

  /** One rebuild or hand-over at a time. */
  private async run(job: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await job();
    } finally {
      this.busy = false;
    }
  }

  private async takeRequest(): Promise<void> {
    const requestFile = this.file(REQUEST_FILE);
    const req = readJson<HandoverRequest>(requestFile);
    fs.rmSync(requestFile, { force: true });
    if (!req || typeof req.id !== 'string') return;
    const result: HandoverResult = { id: req.id, ok: false, finished_at: '' };
    // only ever the agreed file: a request cannot point the swap (and its clean-up) elsewhere
    const file = this.file(NEXT_PROJECTIONS_FILE);
    const log = this.openLog();
    let set: ProjectionSet | null = null;
    try {
      if (!fs.existsSync(file)) throw new Error(`${path.basename(file)} does not exist`);
      set = openProjectionSet(file, log, this.setup());
      this.log.log(`taking over rebuilt projections (${(req.names ?? []).join(', ')}) from ${path.basename(file)}`);
      result.position = await this.swap(set, log);
      result.ok = true;
    } catch (err) {
      result.error = (err as Error).message;
      this.log.error(`projection hand-over failed: ${result.error}`);
    } finally {
      set?.close();
      await log.close();
      removeDatabaseFiles(file);
      result.finished_at = this.isoNow();
      writeJsonAtomic(this.file(RESULT_FILE), result);
    }
  }

  private async rebuildPending(): Promise<void> {
    const names = this.pending;
    const log = this.openLog();
    // monotonic: the elapsed time and the progress interval are only for the log
    const t0 = performance.now();
    let last = -Infinity;
    let set: ProjectionSet | null = null;
    try {
      const built = await buildBeside({
        dataDir: this.storage!.dataDir,
        names,
        liveFile: this.storage!.projections.name,
        setup: this.setup(),
        log,
        yieldBetweenBatches: true,
        onProgress: (p) => {
          this.progress = { done: p.done, total: p.total };
          if (performance.now() - last < 5000) return;
          last = performance.now();
          this.log.log(`rebuilding ${names.join(', ')} beside: ${p.done}/${p.total} events`);
        },
      });
      set = built.set;
      const position = await this.swap(set, log);
      this.pending = [];
      this.log.log(`rebuilt ${built.rebuilt.join(', ')} from the log and swapped them in at position ${position} (${Math.round(performance.now() - t0)} ms)`);
    } catch (err) {
      this.log.error(`rebuild of ${names.join(', ')} failed, still serving the previous version: ${(err as Error).message}`);
    } finally {
      this.progress = null;
      set?.close();
      await log.close();
      removeDatabaseFiles(this.file(NEXT_PROJECTIONS_FILE));
    }
  }

  /**
   * Catches the new file up while writes go on, then swaps it in between two write batches:
   * the few events committed meanwhile are applied first, so no acknowledged write is lost.
   */
  private async swap(set: ProjectionSet, log: SqliteEventStore): Promise<number> {
    const storage = this.storage!;
    await replayLog(set.runner, log, { yieldBetweenBatches: true });
    return (this.uow as EmbeddedUnitOfWork).exclusive(async () => {
      const position = await swapInto(set, log, storage.projections.name, SWAP_PAGES_PER_STEP);
      storage.runner.resetPosition();
      return position;
    });
  }

  /** A connection of its own: the write queue's connection may hold an open batch. */
  private openLog(): SqliteEventStore {
    return new SqliteEventStore(this.file(EVENTS_FILE), { readonly: true });
  }

  onApplicationShutdown(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (!this.serving) return;
    const presence = readJson<ServicePresence>(this.file(SERVICE_FILE));
    if (presence?.pid === process.pid) fs.rmSync(this.file(SERVICE_FILE), { force: true });
  }
}
