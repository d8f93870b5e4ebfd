import type { Database } from 'better-sqlite3';
import { EmbeddedProjectionRunner } from '@strata/projections/embedded/embedded-projection-runner';

/**
 * Projections whose code version moved past their stored version are kept serving (they are
 * still far better than a 503) while a copy is rebuilt beside them; this table, inside the
 * projections database, remembers which ones. The swap replaces the whole database, so the
 * rows disappear exactly when the rebuilt projections arrive, and a crash before that makes
 * the next start-up rebuild them again.
 */
const DDL = `CREATE TABLE IF NOT EXISTS rebuild_pending (
  name TEXT PRIMARY KEY, stored_version INTEGER NOT NULL, code_version INTEGER NOT NULL
)`;

export function pendingRebuilds(db: Database): string[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rebuild_pending'").get();
  if (!exists) return [];
  return (db.prepare('SELECT name FROM rebuild_pending ORDER BY name').all() as { name: string }[]).map((r) => r.name);
}

export function clearPendingRebuilds(db: Database, names: readonly string[]): void {
  if (!pendingRebuilds(db).length) return;
  const del = db.prepare('DELETE FROM rebuild_pending WHERE name = ?');
  db.transaction(() => names.forEach((n) => del.run(n)))();
}

/** Projections with a checkpoint written by another code version. */
export function outdatedProjections(runner: EmbeddedProjectionRunner): { name: string; stored: number; code: number }[] {
  const out: { name: string; stored: number; code: number }[] = [];
  for (const p of runner.projections) {
    const cp = runner.checkpoints.get(p.name);
    if (cp && cp.version !== p.version) out.push({ name: p.name, stored: cp.version, code: p.version });
  }
  return out;
}

/**
 * Before start-up catch-up: outdated projections are marked pending and their checkpoints
 * take the code version, so the runner keeps them (instead of emptying them in place) and
 * applies new events to them until the rebuilt copy is swapped in. Returns every pending name.
 */
export function adoptOutdatedProjections(runner: EmbeddedProjectionRunner): string[] {
  const outdated = outdatedProjections(runner);
  if (outdated.length) {
    const db = runner.db;
    db.transaction(() => {
      db.exec(DDL);
      const mark = db.prepare('INSERT OR IGNORE INTO rebuild_pending(name, stored_version, code_version) VALUES (?,?,?)');
      for (const o of outdated) {
        mark.run(o.name, o.stored, o.code);
        runner.checkpoints.set(o.name, o.code, runner.checkpoints.get(o.name)!.position);
      }
    })();
  }
  return pendingRebuilds(runner.db);
}
