import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { READ_ONLY_INDEXED_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { beginBulkLoad } from '@strata/projections/embedded/bulk-load';
import { dumpRows, dumpSources, DumpSource } from '@strata/projections/embedded/canonical-dump';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { replayLog } from '@strata/projections/embedded/log-replay';
import { TableDiff, describeDiff, diffSortedRows } from '@strata/projections/embedded/table-diff';
import { Checkpoint } from '@strata/projections/embedded/checkpoint-store';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { ProjectionSetOptions, openProjectionSet } from '@strata/platform/projections/projection-set';
import { tablesToVerify } from '@strata/platform/projections/projection-tables';
import { VECTORS_DIR, VECTORS_PROJECTION } from '@strata/vector-index/embedded/vector-handover-files';
import { STATE_FILE, VECTOR_PROJECTION_VERSION } from '@strata/platform/vectors/vector-projection';
import { readVectorIndexSnapshot } from '@strata/vector-index/embedded/vector-index-snapshot';
import { rebuildVectorIndex } from '@strata/platform/vectors/vector-rebuild';
import { diffVectorSnapshots } from '@strata/vector-index/embedded/vector-snapshot-diff';
import { formatCount } from '../progress/progress-format';
import { ProgressReporter } from '../progress/progress-reporter';
import { CliError } from '../support/cli-error';
import { EmbeddedPaths, GlobalOptions, cliConfig, embeddedPaths } from '../support/cli-config';
import { writeOut } from '../support/output';
import { resolveProjectionNames } from './projection-names';
import type { Clock } from '@strata/domain/time';

export interface VerifyOptions {
  limit: string;
}

export interface VerifyReport {
  ok: boolean;
  lines: string[];
}

function liveCheckpoints(db: Database.Database): Map<string, Checkpoint> {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
  if (!has) return new Map();
  const rows = db.prepare('SELECT name, version, position, last_error FROM checkpoints').all() as Checkpoint[];
  return new Map(rows.map((r) => [r.name, r]));
}

function compareTable(live: Database.Database, scratch: Database.Database, l: DumpSource, s: DumpSource | undefined, limit: number): TableDiff {
  if (!s) return { table: l.table, expectedRows: 0, actualRows: 0, differing: 1, first: [] };
  if (l.columns.join() !== s.columns.join())
    throw new CliError(`table ${l.table} has columns (${l.columns.join(', ')}) live but (${s.columns.join(', ')}) in the rebuilt copy: the projection's schema changed; run \`strata projections rebuild\``);
  return diffSortedRows(l.table, l.columns, l.key, dumpRows(scratch, s), dumpRows(live, l), limit);
}

/**
 * Rebuilds the projections into a scratch database up to the positions the live ones are
 * at (both pinned in read transactions, so a running service may keep writing), then
 * compares them table by table in canonical order.
 */
async function verifySqlite(paths: EmbeddedPaths, names: string[], all: string[], limit: number, setup: ProjectionSetOptions): Promise<VerifyReport> {
  if (!fs.existsSync(paths.projections)) throw new CliError(`no projections at ${paths.projections}: start the service or run \`strata projections rebuild\``);
  const lines: string[] = [];
  let ok = true;
  const live = new Database(paths.projections, { readonly: true, fileMustExist: true });
  const log = new SqliteEventStore(paths.events, { readonly: true });
  const scratchFile = path.join(paths.dataDir, `projections.verify-${process.pid}.db`);
  try {
    live.exec('BEGIN');
    const checkpoints = liveCheckpoints(live); // the first read pins the live snapshot
    log.db.exec('BEGIN');
    const head = log.headPositionSync(); // and this one the log's, no older than the projections
    const bounds = new Map<string, number>();
    const built: string[] = [];
    for (const n of names) {
      const cp = checkpoints.get(n);
      if (!cp) {
        ok = false;
        lines.push(`${n}: never built in the live projections (no checkpoint)`);
        continue;
      }
      bounds.set(n, Math.min(cp.position, head));
      built.push(n);
    }
    removeDatabaseFiles(scratchFile);
    const scratch = openProjectionSet(scratchFile, log, setup, built);
    try {
      // a throw-away copy compared by full scans: its read indexes are never built
      beginBulkLoad(scratch.db, READ_ONLY_INDEXED_TABLES);
      const progress = new ProgressReporter(`rebuilding ${built.join(', ')} into a scratch copy`);
      const done = await replayLog(scratch.runner, log, {
        until: Math.max(0, ...bounds.values()),
        bounds,
        onProgress: (p) => progress.update(p.done, p.total),
      });
      progress.finish(done.done, done.total);
      for (const n of built) {
        const cp = checkpoints.get(n)!;
        const code = scratch.runner.projections.find((p) => p.name === n)!.version;
        if (cp.version !== code) {
          ok = false;
          lines.push(`${n}: built by version ${cp.version}, the code is at version ${code}: run \`strata projections rebuild ${n}\``);
        }
      }
      // tables may be made at run time (the text index has some per organization): both sides count
      const liveTables = dumpSources(live).map((s) => s.table);
      const scratchTables = dumpSources(scratch.db).map((s) => s.table);
      const tables = tablesToVerify(built, all, [...new Set([...liveTables, ...scratchTables])].sort());
      const liveSources = dumpSources(live, tables);
      const scratchSources = new Map(dumpSources(scratch.db, tables).map((s) => [s.table, s]));
      let rows = 0;
      for (const l of liveSources) {
        const d = compareTable(live, scratch.db, l, scratchSources.get(l.table), limit);
        rows += d.actualRows;
        if (d.differing) {
          ok = false;
          lines.push(...(scratchSources.has(l.table) ? describeDiff(d) : [`${l.table}: live table not created by the projection code`]));
        }
      }
      const liveNames = new Set(liveSources.map((l) => l.table));
      for (const s of scratchSources.values()) {
        if (liveNames.has(s.table)) continue;
        ok = false;
        lines.push(`${s.table}: missing from the live projections (the rebuild creates it)`);
      }
      if (ok) lines.push(`${built.join(', ')}: identical to a fresh rebuild (${liveSources.length} tables, ${formatCount(rows)} rows, up to position ${Math.max(0, ...bounds.values())})`);
      else lines.unshift(`${built.join(', ') || names.join(', ')}: differ from a fresh rebuild of the log:`);
    } finally {
      scratch.close();
    }
  } finally {
    if (live.inTransaction) live.exec('ROLLBACK');
    live.close();
    if (log.db.inTransaction) log.db.exec('ROLLBACK');
    await log.close();
    removeDatabaseFiles(scratchFile);
  }
  return { ok, lines };
}


/**
 * Rebuilds the vector index into a scratch directory up to the checkpoint of the live index
 * as last saved (a running service saves it every minute and at shutdown; its files are read,
 * not its memory) and compares the two vector by vector.
 */
async function verifyVectors(cfg: StrataConfig, paths: EmbeddedPaths, limit: number, clock: Clock): Promise<VerifyReport> {
  const live = readVectorIndexSnapshot(path.join(paths.dataDir, VECTORS_DIR));
  if (live.checkpoint === null && !live.spaces.size)
    return { ok: true, lines: [`${VECTORS_PROJECTION}: not saved by the service yet (it saves every 60 s and at shutdown): nothing to compare`] };
  // a different projection version computes different vectors: comparing would list them all
  const built = savedState(path.join(paths.dataDir, VECTORS_DIR)).projection_version ?? 1;
  if (built !== VECTOR_PROJECTION_VERSION)
    return { ok: false, lines: [`${VECTORS_PROJECTION}: built by version ${built}, the code is at version ${VECTOR_PROJECTION_VERSION}: run \`strata projections rebuild ${VECTORS_PROJECTION}\``] };
  const position = live.checkpoint ?? 0;
  const log = new SqliteEventStore(paths.events, { readonly: true });
  const scratch = path.join(paths.dataDir, `${VECTORS_DIR}.verify-${process.pid}`);
  try {
    const head = log.headPositionSync();
    if (position > head) return { ok: false, lines: [`${VECTORS_PROJECTION}: the live index is at position ${position}, past the head of the log (${head})`] };
    const progress = new ProgressReporter(`rebuilding ${VECTORS_PROJECTION} into a scratch copy`);
    const scratchBuild = await rebuildVectorIndex({
      embedding: { config: cfg, clock },
      log,
      dir: scratch,
      graphFile: `${scratch}.graph.db`,
      until: position,
      onProgress: (p) => progress.update(p.done, p.total),
    });
    const rebuilt = readVectorIndexSnapshot(scratch);
    progress.finish(scratchBuild.progress.done, scratchBuild.progress.total);
    const d = diffVectorSnapshots(live, rebuilt, limit);
    const orgs = [...live.spaces.values()].filter((s) => s.vectors.size).length;
    if (!d.differing)
      return { ok: true, lines: [`${VECTORS_PROJECTION}: identical to a fresh rebuild (${formatCount(d.liveVectors)} vectors in ${formatCount(orgs)} organization${orgs === 1 ? '' : 's'}, up to position ${position})`] };
    const lines = [`${VECTORS_PROJECTION}: differ from a fresh rebuild of the log (${formatCount(d.differing)} differences, up to position ${position}):`, ...d.first];
    if (d.differing > d.first.length) lines.push(`${VECTORS_PROJECTION}: … ${formatCount(d.differing - d.first.length)} more differing vectors`);
    const backfilling = backfillsPending(path.join(paths.dataDir, VECTORS_DIR));
    if (backfilling.length)
      lines.push(`${VECTORS_PROJECTION}: note: re-embedding after a configuration change was still running in ${backfilling.map((o) => `"${o}"`).join(', ')} when the index was saved`);
    return { ok: false, lines };
  } finally {
    await log.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    removeDatabaseFiles(`${scratch}.graph.db`);
  }
}

/** The vector projection's saved state (empty when unreadable). */
function savedState(dir: string): { projection_version?: number; orgs?: Record<string, { backfill?: boolean }> } {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8'));
  } catch {
    return {};
  }
}

/** Organizations the saved projection state marks for a backfill. */
function backfillsPending(dir: string): string[] {
  return Object.entries(savedState(dir).orgs ?? {})
    .filter(([, s]) => s.backfill)
    .map(([o]) => o);
}

async function verifyEmbedded(cfg: StrataConfig, args: string[], limit: number, clock: Clock): Promise<VerifyReport> {
  const paths = embeddedPaths(cfg);
  const { names, all, vectors } = resolveProjectionNames(args);
  const reports: VerifyReport[] = [];
  if (names.length) reports.push(await verifySqlite(paths, names, all, limit, { textPostings: cfg.textPostings }));
  if (vectors) reports.push(await verifyVectors(cfg, paths, limit, clock));
  return { ok: reports.every((r) => r.ok), lines: reports.flatMap((r) => r.lines) };
}

/** `strata projections verify [name…]`: exit code 1 when the projections differ. */
export async function projectionsVerify(args: string[], opts: VerifyOptions, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  if (cfg.store === 'servers') throw new CliError('verify compares the embedded projections; in servers mode use `strata projections rebuild` on the worker');
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError(`--limit must be a positive integer, got '${opts.limit}'`);
  const report = await verifyEmbedded(cfg, args, limit, clock);
  await writeOut(report.lines.join('\n') + '\n');
  if (!report.ok) process.exitCode = 1;
}
