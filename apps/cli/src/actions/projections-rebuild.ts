import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { buildBeside, swapInto } from '@strata/platform/projections/beside-build';
import {
  HandoverRequest,
  HandoverResult,
  NEXT_PROJECTIONS_FILE,
  REBUILD_LOCK_FILE,
  REQUEST_FILE,
  RESULT_FILE,
  ServicePresence,
  lockOwner,
  readJson,
  runningService,
  tryLock,
  writeJsonAtomic,
} from '@strata/platform/projections/handover-files';
import { ProjectionSetOptions, openProjectionSet } from '@strata/platform/projections/projection-set';
import {
  VECTORS_NEXT_DIR,
  VECTORS_PROJECTION,
  VECTORS_REBUILD_GRAPH_FILE,
  VECTORS_REQUEST_FILE,
  VECTORS_RESULT_FILE,
  dropPreviousVectors,
  swapInVectorDirs,
} from '@strata/vector-index/embedded/vector-handover-files';
import { rebuildVectorIndex } from '@strata/platform/vectors/vector-rebuild';
import { formatCount, formatDuration } from '../progress/progress-format';
import { ProgressReporter } from '../progress/progress-reporter';
import { CliError } from '../support/cli-error';
import { EmbeddedPaths, GlobalOptions, cliConfig, embeddedPaths } from '../support/cli-config';
import { writeOut } from '../support/output';
import { resolveProjectionNames, resolveServerProjectionNames } from './projection-names';
import { requestServerRebuild } from './server-rebuild-request';
import type { Clock } from '@strata/domain/time';

export interface RebuildOptions {
  handoverTimeout: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The request/result pair of one hand-over channel (the SQLite projections', the vector index's). */
interface HandoverChannel {
  what: string;
  requestFile: string;
  resultFile: string;
  /** what the service takes the result from, in the data dir */
  file: string;
}

const PROJECTIONS_CHANNEL: HandoverChannel = { what: 'projections', requestFile: REQUEST_FILE, resultFile: RESULT_FILE, file: NEXT_PROJECTIONS_FILE };
const VECTORS_CHANNEL: HandoverChannel = { what: 'vector index', requestFile: VECTORS_REQUEST_FILE, resultFile: VECTORS_RESULT_FILE, file: VECTORS_NEXT_DIR };

/**
 * Hands the rebuilt result to the running service and waits for its answer. Returns null when
 * the service went away before taking the request (the caller then swaps itself).
 */
async function handOver(dataDir: string, service: ServicePresence, channel: HandoverChannel, names: string[], timeoutMs: number, clock: Clock): Promise<HandoverResult | null> {
  const nowMs = () => clock.now() * 1000;
  const requestFile = path.join(dataDir, channel.requestFile);
  const resultFile = path.join(dataDir, channel.resultFile);
  fs.rmSync(resultFile, { force: true });
  const req: HandoverRequest = { id: randomUUID(), file: channel.file, names, requested_at: new Date(nowMs()).toISOString() };
  writeJsonAtomic(requestFile, req);
  process.stderr.write(`handing the rebuilt ${channel.what} over to the running service (pid ${service.pid})…\n`);
  // the timeout covers taking the request; once taken, the swap is awaited while the service lives
  const deadline = nowMs() + timeoutMs;
  for (;;) {
    // the service answers in a file: look for it now and then
    await sleep(100);
    const result = readJson<HandoverResult>(resultFile);
    if (result?.id === req.id) {
      fs.rmSync(resultFile, { force: true });
      return result;
    }
    const taken = !fs.existsSync(requestFile);
    if (!runningService(dataDir, nowMs())) {
      if (!taken) {
        fs.rmSync(requestFile, { force: true });
        return null;
      }
      throw new CliError(`the service (pid ${service.pid}) stopped while swapping the ${channel.what} in; start it again: it catches up from the log`);
    }
    if (!taken && nowMs() > deadline) {
      fs.rmSync(requestFile, { force: true });
      throw new CliError(`the service (pid ${service.pid}) did not take the rebuilt ${channel.what} within ${timeoutMs / 1000} s (is it older than this CLI?)`);
    }
  }
}

/** `t0`: performance.now() at the start (monotonic: the duration is only reported) */
function rateSummary(what: string, events: number, t0: number): string {
  const seconds = (performance.now() - t0) / 1000;
  const rate = seconds > 0 ? events / seconds : events;
  return `rebuilt ${what} from ${formatCount(events)} events in ${formatDuration(seconds)} (${formatCount(rate)} events/s)`;
}

async function rebuildSqlite(paths: EmbeddedPaths, log: SqliteEventStore, names: string[], timeoutMs: number, clock: Clock, setup: ProjectionSetOptions): Promise<string> {
  const nextFile = path.join(paths.dataDir, NEXT_PROJECTIONS_FILE);
  try {
    const t0 = performance.now();
    const progress = new ProgressReporter(`rebuilding ${names.join(', ')}`);
    const built = await buildBeside({
      dataDir: paths.dataDir,
      names,
      liveFile: paths.projections,
      log,
      onProgress: (p) => progress.update(p.done, p.total),
      setup,
    });
    progress.finish(built.progress.done, built.progress.total);
    const summary = rateSummary(built.rebuilt.join(', '), built.progress.done, t0);

    const service = runningService(paths.dataDir, clock.now() * 1000);
    if (service) {
      built.set.close();
      const result = await handOver(paths.dataDir, service, PROJECTIONS_CHANNEL, built.rebuilt, timeoutMs, clock);
      if (result && !result.ok) throw new CliError(`the service could not swap the rebuilt projections in: ${result.error ?? 'unknown error'}`);
      if (result) return `${summary}; swapped in by the running service (pid ${service.pid}) at position ${result.position}`;
      // the service stopped before taking over: nobody else writes the projections now
      const set = openProjectionSet(nextFile, log, setup);
      try {
        const position = await swapInto(set, log, paths.projections);
        return `${summary}; swapped in at position ${position}`;
      } finally {
        set.close();
      }
    }
    try {
      const position = await swapInto(built.set, log, paths.projections);
      return `${summary}; swapped in at position ${position}`;
    } finally {
      built.set.close();
    }
  } finally {
    removeDatabaseFiles(nextFile);
  }
}

/**
 * The vector index is built into `vectors.next/` (with a scratch graph replayed alongside),
 * then handed to the running service, or put in place of `vectors/` when none runs: a
 * service started later catches up from the rebuilt index's checkpoint.
 */
async function rebuildVectors(cfg: StrataConfig, paths: EmbeddedPaths, log: SqliteEventStore, timeoutMs: number, clock: Clock): Promise<string> {
  const next = path.join(paths.dataDir, VECTORS_NEXT_DIR);
  try {
    const t0 = performance.now();
    const progress = new ProgressReporter(`rebuilding ${VECTORS_PROJECTION}`);
    const built = await rebuildVectorIndex({
      embedding: { config: cfg, clock },
      log,
      dir: next,
      graphFile: path.join(paths.dataDir, VECTORS_REBUILD_GRAPH_FILE),
      onProgress: (p) => progress.update(p.done, p.total),
    });
    progress.finish(built.progress.done, built.progress.total);
    const summary = `${rateSummary(VECTORS_PROJECTION, built.progress.done, t0)}: ${formatCount(built.vectors)} vectors in ${formatCount(built.organizations)} organization${built.organizations === 1 ? '' : 's'}`;
    const service = runningService(paths.dataDir, clock.now() * 1000);
    if (service) {
      const result = await handOver(paths.dataDir, service, VECTORS_CHANNEL, [VECTORS_PROJECTION], timeoutMs, clock);
      if (result && !result.ok) throw new CliError(`the service could not swap the rebuilt vector index in: ${result.error ?? 'unknown error'}`);
      if (result) return `${summary}; swapped in by the running service (pid ${service.pid}) at position ${result.position}`;
    }
    swapInVectorDirs(paths.dataDir);
    dropPreviousVectors(paths.dataDir);
    return `${summary}; swapped in at position ${built.position}`;
  } finally {
    fs.rmSync(next, { recursive: true, force: true });
  }
}

async function rebuildEmbedded(cfg: StrataConfig, args: string[], opts: RebuildOptions, clock: Clock): Promise<string> {
  const paths = embeddedPaths(cfg);
  const { names, vectors } = resolveProjectionNames(args);
  const timeoutMs = Number(opts.handoverTimeout) * 1000;
  if (!(timeoutMs > 0)) throw new CliError(`--handover-timeout must be a positive number of seconds, got '${opts.handoverTimeout}'`);
  const lockFile = path.join(paths.dataDir, REBUILD_LOCK_FILE);
  const release = tryLock(lockFile);
  if (!release) throw new CliError(`another rebuild (pid ${lockOwner(lockFile) ?? '?'}) is running on ${paths.dataDir}`);
  const log = new SqliteEventStore(paths.events, { readonly: true });
  try {
    const lines: string[] = [];
    if (names.length) lines.push(await rebuildSqlite(paths, log, names, timeoutMs, clock, { textPostings: cfg.textPostings }));
    if (vectors) lines.push(await rebuildVectors(cfg, paths, log, timeoutMs, clock));
    return lines.join('\n');
  } finally {
    await log.close();
    release();
  }
}

/** Servers mode: the projection worker owns the read models; the rebuild is its to run. */
async function rebuildServers(cfg: StrataConfig, args: string[], clock: Clock): Promise<string> {
  resolveServerProjectionNames(args); // a typo fails before connecting
  const mongo = await new MongoClient(cfg.mongoUrl!, { appName: 'strata-cli', serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const names = await requestServerRebuild(new MongoCheckpointStore(mongo.db(cfg.mongoDb), clock), args);
    return `asked the projection worker to rebuild ${names.join(', ')} (it replays them from the log; watch \`strata projections status\`)`;
  } finally {
    await mongo.close();
  }
}

/** `strata projections rebuild [name…]` */
export async function projectionsRebuild(args: string[], opts: RebuildOptions, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  const line = cfg.store === 'servers' ? await rebuildServers(cfg, args, clock) : await rebuildEmbedded(cfg, args, opts, clock);
  await writeOut(line + '\n');
}
