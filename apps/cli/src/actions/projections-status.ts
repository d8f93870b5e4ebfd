import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { Checkpoint } from '@strata/projections/embedded/checkpoint-store';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { NEXT_PROJECTIONS_FILE, REBUILD_LOCK_FILE, lockOwner, runningService } from '@strata/platform/projections/handover-files';
import { pendingRebuilds } from '@strata/platform/projections/pending-rebuilds';
import { PROJECTIONS_FILE } from '@strata/platform/storage/embedded-storage';
import { ProjectionsFlushState, describeFlushState, projectionsFlushState } from '@strata/platform/storage/projections-session';
import { projectionCatalogue } from '@strata/platform/projections/projection-set';
import { MANIFEST_FILE, VECTORS_DIR, VECTORS_NEXT_DIR, VECTORS_PROJECTION } from '@strata/vector-index/embedded/vector-handover-files';
import { STATE_FILE, VECTOR_PROJECTION_VERSION } from '@strata/platform/vectors/vector-projection';
import { CliError } from '../support/cli-error';
import { serverStatusRows } from './server-status-rows';
import { GlobalOptions, cliConfig, embeddedPaths } from '../support/cli-config';
import { writeOut } from '../support/output';
import type { Clock } from '@strata/domain/time';

/** `strata projections status`: one line per projection. */
export interface StatusRow {
  name: string;
  /** version in the code that runs now */
  version: number | null;
  /** version the stored data was built by; null when never built */
  stored_version: number | null;
  checkpoint: number;
  head: number;
  lag: number;
  last_error: string | null;
  /** what an operator should know: rebuild pending, not built, … */
  note: string | null;
}

const VECTORS_MANIFEST = path.join(VECTORS_DIR, MANIFEST_FILE);

function readCheckpoints(file: string): { checkpoints: Checkpoint[]; pending: string[] } {
  if (!fs.existsSync(file)) return { checkpoints: [], pending: [] };
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get();
    const checkpoints = hasTable ? (db.prepare('SELECT name, version, position, last_error FROM checkpoints ORDER BY name').all() as Checkpoint[]) : [];
    return { checkpoints, pending: pendingRebuilds(db) };
  } finally {
    db.close();
  }
}

/** The embedded vector index keeps its checkpoint in its manifest (retrieval area). */
function vectorCheckpoint(dataDir: string): number | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dataDir, VECTORS_MANIFEST), 'utf8')) as { checkpoint?: number | null };
    return typeof m.checkpoint === 'number' ? m.checkpoint : null;
  } catch {
    return null;
  }
}

/** The projection version the saved index was built by (state files from before the field: 1); null when never saved. */
function vectorBuiltVersion(dataDir: string): number | null {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dataDir, VECTORS_DIR, STATE_FILE), 'utf8')) as { projection_version?: number };
    return typeof s.projection_version === 'number' ? s.projection_version : 1;
  } catch {
    return null;
  }
}

export function embeddedStatus(cfg: StrataConfig): StatusRow[] {
  const paths = embeddedPaths(cfg);
  const log = new SqliteEventStore(paths.events, { readonly: true });
  let head: number;
  try {
    head = log.headPositionSync();
  } finally {
    void log.close();
  }
  const { checkpoints, pending } = readCheckpoints(paths.projections);
  const stored = new Map(checkpoints.map((c) => [c.name, c]));
  const rows: StatusRow[] = projectionCatalogue().map((p) => {
    const cp = stored.get(p.name);
    const position = cp?.position ?? 0;
    let note: string | null = null;
    if (!cp) note = 'not built yet: the service builds it at start-up';
    else if (pending.includes(p.name)) note = 'rebuild pending: the service rebuilds it beside the live copy';
    else if (cp.version !== p.version) note = `built by version ${cp.version}: the service rebuilds it at start-up`;
    else if (position > head) note = "past the log's head (a log older than its projections): the service rebuilds it at start-up";
    return { name: p.name, version: p.version, stored_version: cp?.version ?? null, checkpoint: position, head, lag: Math.max(0, head - position), last_error: cp?.last_error ?? null, note };
  });
  const vectors = vectorCheckpoint(paths.dataDir);
  const built = vectorBuiltVersion(paths.dataDir);
  let note = 'checkpoint as last saved by the service (every 60 s and at shutdown)';
  if (vectors === null) note = 'not saved yet: the service builds it from the log';
  else if (built !== null && built !== VECTOR_PROJECTION_VERSION) note = `built by version ${built}: the service rebuilds it beside at start-up`;
  else if (vectors > head) note = "past the log's head (a log older than its index): the service rebuilds it beside at start-up";
  rows.push({
    name: VECTORS_PROJECTION,
    version: VECTOR_PROJECTION_VERSION,
    stored_version: built,
    checkpoint: vectors ?? 0,
    head,
    lag: Math.max(0, head - (vectors ?? 0)),
    last_error: null,
    // the service indexes every commit at once but saves the index (and this checkpoint) now and then
    note,
  });
  return rows;
}

async function serverStatus(cfg: StrataConfig, clock: Clock): Promise<StatusRow[]> {
  const mongo = await new MongoClient(cfg.mongoUrl!, { appName: 'strata-cli', serverSelectionTimeoutMS: 5000 }).connect();
  const log = new KurrentDbEventStore(cfg.kurrentdbUrl!);
  try {
    const head = await log.headPosition();
    return serverStatusRows(SERVER_PROJECTION_NAMES, await new MongoCheckpointStore(mongo.db(cfg.mongoDb), clock).all(), head);
  } finally {
    await log.close();
    await mongo.close();
  }
}

function table(rows: StatusRow[], extra: string[]): string {
  const head = ['PROJECTION', 'VERSION', 'STORED', 'CHECKPOINT', 'HEAD', 'LAG', 'LAST ERROR / NOTE'];
  const cells = rows.map((r) => [
    r.name,
    r.version === null ? '-' : String(r.version),
    r.stored_version === null ? '-' : String(r.stored_version),
    String(r.checkpoint),
    String(r.head),
    String(r.lag),
    r.last_error ? `error: ${r.last_error}` : (r.note ?? ''),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(head), ...cells.map(line), ...extra].join('\n') + '\n';
}

/** What runs on the embedded data dir, as `--json` reports it on every row (the table says it below the rows). */
export interface DataDirActivity {
  /** a Strata service on this data dir (it announces itself in service.json) */
  service: { running: boolean; pid: number | null; url: string | null };
  /** a `strata projections rebuild` holding the rebuild lock */
  rebuild: { running: boolean; pid: number | null };
  /** whether projections.db was flushed by a clean stop (docs/operations.md, "Flushing, and power loss") */
  projections_file: ProjectionsFlushState;
}

function dataDirActivity(dataDir: string, clock: Clock): DataDirActivity {
  const service = runningService(dataDir, clock.now() * 1000);
  const rebuilding = lockOwner(path.join(dataDir, REBUILD_LOCK_FILE));
  return {
    service: { running: service !== null, pid: service?.pid ?? null, url: service?.url ?? null },
    rebuild: { running: rebuilding !== null, pid: rebuilding },
    projections_file: projectionsFlushState(path.join(dataDir, PROJECTIONS_FILE)),
  };
}

/** `strata projections status` */
export async function projectionsStatus(opts: { json?: boolean }, globals: GlobalOptions, clock: Clock): Promise<void> {
  const cfg = cliConfig(globals);
  let rows: StatusRow[];
  const extra: string[] = [];
  // servers mode: API replicas and workers run elsewhere; the CLI cannot tell (null in --json)
  let activity: DataDirActivity | { service: null; rebuild: null; projections_file: null } = { service: null, rebuild: null, projections_file: null };
  if (cfg.store === 'servers') {
    try {
      rows = await serverStatus(cfg, clock);
    } catch (err) {
      throw new CliError(`could not read the servers' checkpoints: ${(err as Error).message}`);
    }
  } else {
    rows = embeddedStatus(cfg);
    const a = dataDirActivity(cfg.dataDir, clock);
    activity = a;
    extra.push(a.service.running ? `service: running (pid ${a.service.pid}${a.service.url ? `, ${a.service.url}` : ''})` : 'service: not running');
    if (a.rebuild.running) extra.push(`rebuild in progress (pid ${a.rebuild.pid}) into ${NEXT_PROJECTIONS_FILE} or ${VECTORS_NEXT_DIR}/`);
    extra.push(describeFlushState(a.projections_file));
  }
  await writeOut(opts.json ? JSON.stringify(rows.map((r) => ({ ...r, ...activity })), null, 2) + '\n' : table(rows, extra));
}
