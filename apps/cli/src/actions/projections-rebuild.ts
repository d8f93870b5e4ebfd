import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { StrataConfig } from '../../../api/src/platform/config/strata-config';
import { buildBeside, swapInto } from '../../../api/src/operations/projections/beside-build';
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
} from '../../../api/src/operations/projections/handover-files';
import { openProjectionSet } from '../../../api/src/operations/projections/projection-set';
import { formatCount, formatDuration } from '../progress/progress-format';
import { ProgressReporter } from '../progress/progress-reporter';
import { CliError } from '../support/cli-error';
import { GlobalOptions, cliConfig, embeddedPaths } from '../support/cli-config';
import { writeOut } from '../support/output';
import { resolveProjectionNames } from './projection-names';

export interface RebuildOptions {
  handoverTimeout: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Hands the rebuilt file to the running service and waits for its answer. Returns null when
 * the service went away before taking the request (the caller then swaps itself).
 */
async function handOver(dataDir: string, service: ServicePresence, names: string[], timeoutMs: number): Promise<HandoverResult | null> {
  const requestFile = path.join(dataDir, REQUEST_FILE);
  const resultFile = path.join(dataDir, RESULT_FILE);
  fs.rmSync(resultFile, { force: true });
  const req: HandoverRequest = { id: randomUUID(), file: NEXT_PROJECTIONS_FILE, names, requested_at: new Date().toISOString() };
  writeJsonAtomic(requestFile, req);
  process.stderr.write(`handing the rebuilt projections over to the running service (pid ${service.pid})…\n`);
  // the timeout covers taking the request; once taken, the swap is awaited while the service lives
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await sleep(100);
    const result = readJson<HandoverResult>(resultFile);
    if (result?.id === req.id) {
      fs.rmSync(resultFile, { force: true });
      return result;
    }
    const taken = !fs.existsSync(requestFile);
    if (!runningService(dataDir)) {
      if (!taken) {
        fs.rmSync(requestFile, { force: true });
        return null;
      }
      throw new CliError(`the service (pid ${service.pid}) stopped while swapping the projections in; start it again: it catches up from the log`);
    }
    if (!taken && Date.now() > deadline) {
      fs.rmSync(requestFile, { force: true });
      throw new CliError(`the service (pid ${service.pid}) did not take the rebuilt projections within ${timeoutMs / 1000} s (is it older than this CLI?)`);
    }
  }
}

async function rebuildEmbedded(cfg: StrataConfig, args: string[], opts: RebuildOptions): Promise<string> {
  const paths = embeddedPaths(cfg);
  const { names } = resolveProjectionNames(args);
  const timeoutMs = Number(opts.handoverTimeout) * 1000;
  if (!(timeoutMs > 0)) throw new CliError(`--handover-timeout must be a positive number of seconds, got '${opts.handoverTimeout}'`);
  const lockFile = path.join(paths.dataDir, REBUILD_LOCK_FILE);
  const release = tryLock(lockFile);
  if (!release) throw new CliError(`another rebuild (pid ${lockOwner(lockFile) ?? '?'}) is running on ${paths.dataDir}`);
  const log = new SqliteEventStore(paths.events, { readonly: true });
  const nextFile = path.join(paths.dataDir, NEXT_PROJECTIONS_FILE);
  try {
    const t0 = Date.now();
    const progress = new ProgressReporter(`rebuilding ${names.join(', ')}`);
    const built = await buildBeside({
      dataDir: paths.dataDir,
      names,
      liveFile: paths.projections,
      log,
      onProgress: (p) => progress.update(p.done, p.total),
    });
    progress.finish(built.progress.done, built.progress.total);
    const seconds = (Date.now() - t0) / 1000;
    const rate = seconds > 0 ? built.progress.done / seconds : built.progress.done;
    const summary = `rebuilt ${built.rebuilt.join(', ')} from ${formatCount(built.progress.done)} events in ${formatDuration(seconds)} (${formatCount(rate)} events/s)`;

    const service = runningService(paths.dataDir);
    if (service) {
      built.set.close();
      const result = await handOver(paths.dataDir, service, built.rebuilt, timeoutMs);
      if (result && !result.ok) throw new CliError(`the service could not swap the rebuilt projections in: ${result.error ?? 'unknown error'}`);
      if (result) return `${summary}; swapped in by the running service (pid ${service.pid}) at position ${result.position}`;
      // the service stopped before taking over: nobody else writes the projections now
      const set = openProjectionSet(nextFile, log);
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
    await log.close();
    release();
  }
}

/**
 * Servers mode: the worker owns the read models. Marking a checkpoint with version -1 makes
 * the worker holding the lease drop that projection and replay it from the log.
 */
async function rebuildServers(cfg: StrataConfig, args: string[]): Promise<string> {
  const mongo = await new MongoClient(cfg.mongoUrl!, { appName: 'strata-cli', serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const store = new MongoCheckpointStore(mongo.db(cfg.mongoDb));
    const known = (await store.all()).map((d) => d._id);
    const names = args.length ? args : known;
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new CliError(`unknown projection ${unknown.join(', ')}; projections: ${known.join(', ') || '(none has run yet)'}`);
    for (const n of names) await store.reset(n, -1);
    return `asked the projection worker to rebuild ${names.join(', ')} (it replays them from the log; watch \`strata projections status\`)`;
  } finally {
    await mongo.close();
  }
}


/** `strata projections rebuild [name…]` */
export async function projectionsRebuild(args: string[], opts: RebuildOptions, globals: GlobalOptions): Promise<void> {
  const cfg = cliConfig(globals);
  const line = cfg.store === 'servers' ? await rebuildServers(cfg, args) : await rebuildEmbedded(cfg, args, opts);
  await writeOut(line + '\n');
}
