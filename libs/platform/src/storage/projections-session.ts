import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '@strata/domain/time';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';

/**
 * How the projections database is flushed to disk. It is a cache of the event log (which is
 * fsynced on every commit), so by default neither its commits nor its WAL checkpoints fsync
 * (`off`): the flushes of the checkpoint that restarts the WAL held the writer back for
 * 20–50 ms at a time, the p99 of every write route. A crashed process loses nothing that way
 * (the kernel still holds its writes); only an OS crash or power loss can leave the file
 * torn, and the session marker below finds that out at the next start and has the file
 * rebuilt from the log. `normal` keeps SQLite's WAL default (fsync at checkpoints): slower
 * writes, no rebuild after a power loss.
 */
export type ProjectionsSync = 'off' | 'normal';

/**
 * What the marker beside the projections file says: which boot of the machine last opened
 * the file without flushing and closing it cleanly.
 */
export interface ProjectionsSessionMarker {
  state: 'open' | 'closed';
  /** the kernel's boot id at the time (Linux: /proc/sys/kernel/random/boot_id) */
  boot_id: string;
  pid: number;
  at: string;
}

/** The marker's path for a projections file. */
export function sessionMarkerFile(projectionsFile: string): string {
  return `${projectionsFile}.session`;
}

/** This boot of the machine, or null where the platform does not say (then `off` is not used). */
export function currentBootId(): string | null {
  try {
    const id = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id.length > 0 ? id : null;
  } catch {
    return null;
  }
}

export function readSessionMarker(projectionsFile: string): ProjectionsSessionMarker | 'unreadable' | null {
  const file = sessionMarkerFile(projectionsFile);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'unreadable';
  }
  try {
    const m = JSON.parse(text) as ProjectionsSessionMarker;
    if ((m.state === 'open' || m.state === 'closed') && typeof m.boot_id === 'string') return m;
  } catch {
    // torn by the crash it is meant to reveal
  }
  return 'unreadable';
}

/** Writes the marker so that it is on disk when this returns (file, then directory entry). */
export function writeSessionMarker(projectionsFile: string, state: ProjectionsSessionMarker['state'], bootId: string, clock: Clock): void {
  const file = sessionMarkerFile(projectionsFile);
  const tmp = `${file}.${process.pid}.tmp`;
  const marker: ProjectionsSessionMarker = { state, boot_id: bootId, pid: process.pid, at: new Date(clock.now() * 1000).toISOString() };
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(marker) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncPath(path.dirname(file));
}

/** fsync of a file or directory by path; a missing file is fine. */
export function fsyncPath(p: string): void {
  let fd: number;
  try {
    fd = fs.openSync(p, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    // some platforms refuse fsync on a directory; the file itself was synced
    if (!['EINVAL', 'EISDIR', 'EPERM', 'EBADF'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a process runs (EPERM: it does, as another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process's use of a projections file. The process that writes it (the service, or a CLI
 * command on a stopped service) owns the session: it checks the marker before opening the
 * file, discards a file an earlier boot left torn, marks it open, and on a clean stop flushes
 * it and marks it closed. A process that finds another live one owning the file (a read-only
 * CLI command beside the running service) is a guest and leaves the marker alone.
 */
export class ProjectionsSession {
  private constructor(
    readonly file: string,
    /** the synchronous level of this process's connection (and of its checkpoints) */
    readonly synchronous: 'OFF' | 'NORMAL',
    /** why the file found at start-up was discarded (it is then rebuilt from the log), or null */
    readonly discarded: string | null,
    private readonly bootId: string | null,
    private readonly owner: boolean,
    private readonly clock: Clock,
  ) {}

  /** Before the file is opened. `bootId` null: the platform cannot tell boots apart, so writes stay flushed. */
  static begin(file: string, opts: { sync: ProjectionsSync; bootId: string | null; clock: Clock }): ProjectionsSession {
    const { bootId, clock } = opts;
    if (bootId === null) return new ProjectionsSession(file, 'NORMAL', null, null, false, clock);
    const found = projectionsFlushState(file, bootId);
    if (found.state === 'open' && found.pid !== process.pid) return new ProjectionsSession(file, 'NORMAL', null, bootId, false, clock);
    // unflushed writes survive a process crash, not the machine going down: a file an earlier
    // boot left open (or whose marker is torn) may be torn itself
    const discarded = found.state === 'stale' && fs.existsSync(file) ? staleReason(found) : null;
    if (discarded) removeDatabaseFiles(file);
    if (opts.sync === 'normal') {
      // flushed from now on: nothing to detect at the next start
      fs.rmSync(sessionMarkerFile(file), { force: true });
      return new ProjectionsSession(file, 'NORMAL', discarded, bootId, false, clock);
    }
    writeSessionMarker(file, 'open', bootId, clock);
    return new ProjectionsSession(file, 'OFF', discarded, bootId, true, clock);
  }

  /** Flushes the file (as the owner) and closes the connection; the owner then marks it closed. */
  end(db: { pragma(source: string): unknown; close(): unknown; open: boolean }): void {
    if (!this.owner || !db.open) {
      if (db.open) db.close();
      return;
    }
    db.pragma('synchronous = NORMAL');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // a reader holds the WAL: the fsyncs below still put every page on disk
    }
    db.close();
    fsyncPath(this.file);
    fsyncPath(`${this.file}-wal`);
    writeSessionMarker(this.file, 'closed', this.bootId!, this.clock);
  }
}

/** What an operator is told about a projections file's flushing (`strata projections status`). */
export interface ProjectionsFlushState {
  /**
   * `closed`: flushed by a clean stop; `open`: written unflushed by a live process; `crashed`:
   * left open by a process of this boot that stopped (kept: the kernel had its writes);
   * `stale`: left open before the machine restarted, or a torn marker (the next start rebuilds
   * it); `untracked`: no marker (flushed at every checkpoint, or not written yet)
   */
  state: 'closed' | 'open' | 'crashed' | 'stale' | 'untracked';
  pid: number | null;
  at: string | null;
}

export function projectionsFlushState(projectionsFile: string, bootId: string | null = currentBootId()): ProjectionsFlushState {
  const marker = readSessionMarker(projectionsFile);
  if (marker === null || bootId === null) return { state: 'untracked', pid: null, at: null };
  if (marker === 'unreadable') return { state: 'stale', pid: null, at: null };
  const { pid, at } = marker;
  if (marker.state === 'closed') return { state: 'closed', pid, at };
  if (marker.boot_id !== bootId) return { state: 'stale', pid, at };
  return { state: pidAlive(pid) ? 'open' : 'crashed', pid, at };
}

function staleReason(s: ProjectionsFlushState): string {
  return s.pid === null
    ? 'its session marker cannot be read'
    : `it was left open, without its writes flushed, by process ${s.pid} before the machine restarted`;
}

/** One line for the status table. */
export function describeFlushState(s: ProjectionsFlushState): string {
  switch (s.state) {
    case 'closed':
      return `projections file: flushed and closed cleanly (pid ${s.pid}, ${s.at})`;
    case 'open':
      return `projections file: open, writes unflushed (pid ${s.pid}); a power loss makes the next start rebuild it`;
    case 'crashed':
      return `projections file: left open by pid ${s.pid}, which stopped; kept, the kernel had its writes`;
    case 'stale':
      return 'projections file: left unflushed before the machine restarted; the next start rebuilds it from the log';
    default:
      return 'projections file: flushed at every checkpoint (no session marker)';
  }
}
