import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '../storage/projections-session';

/**
 * Files through which `strata projections rebuild` and a running service on the same data
 * dir hand a rebuilt projections database over. The CLI builds `projections.next.db`, then
 * writes a request; the service catches the file up, swaps it in at an idle point of its
 * write queue, and writes the result.
 */
export const NEXT_PROJECTIONS_FILE = 'projections.next.db';
export const SERVICE_FILE = 'service.json';
export const REQUEST_FILE = 'projections.handover-request.json';
export const RESULT_FILE = 'projections.handover-result.json';
export const REBUILD_LOCK_FILE = 'projections.rebuild.lock';

/** The service rewrites its presence file this often; older than STALE_AFTER_MS means gone. */
export const HEARTBEAT_MS = 2_000;
const STALE_AFTER_MS = 15_000;

export interface ServicePresence {
  pid: number;
  started_at: string;
  url: string | null;
}

export interface HandoverRequest {
  id: string;
  /** the file built, in the data dir (always NEXT_PROJECTIONS_FILE; the service takes no other) */
  file: string;
  /** projections rebuilt in it (informational) */
  names: string[];
  requested_at: string;
}

export interface HandoverResult {
  id: string;
  ok: boolean;
  /** log position the swapped-in projections were at */
  position?: number;
  error?: string;
  finished_at: string;
}

/** Writes JSON so readers never see half a file. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value) + '\n');
  fs.renameSync(tmp, file);
}

export function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}


/**
 * The service serving this data dir, if one is alive (its presence file is fresh and its pid
 * runs); `nowMs` is the caller's clock, in milliseconds.
 */
export function runningService(dataDir: string, nowMs: number): ServicePresence | null {
  const file = path.join(dataDir, SERVICE_FILE);
  let mtime: number;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
  const p = readJson<ServicePresence>(file);
  if (!p || typeof p.pid !== 'number') return null;
  if (nowMs - mtime > STALE_AFTER_MS || !pidAlive(p.pid)) return null;
  return p;
}

/**
 * An exclusive lock file holding the owner's pid; a lock whose owner died is taken over.
 * Returns a release function, or null when a live process holds the lock.
 */
export function tryLock(file: string): (() => void) | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && pidAlive(owner)) return null;
      fs.rmSync(file, { force: true });
    }
  }
  return null;
}

/** The pid in a lock file, when a live process holds it. */
export function lockOwner(file: string): number | null {
  try {
    const owner = Number(fs.readFileSync(file, 'utf8'));
    return Number.isInteger(owner) && owner > 0 && pidAlive(owner) ? owner : null;
  } catch {
    return null;
  }
}
