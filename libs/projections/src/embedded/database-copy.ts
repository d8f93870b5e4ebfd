import * as fs from 'node:fs';
import type { Database } from 'better-sqlite3';

/** Pages per backup step when the copy may take one long step (nobody else needs the loop). */
export const ALL_PAGES = 0x7fffffff;

/**
 * Copies a whole SQLite database into `targetFile` with the online backup API. The target
 * may be open elsewhere (the live projections of a running service): its connections keep
 * their handles and prepared statements, see the old content until the copy commits, then
 * the new content at once. With `pagesPerStep` below the page count the copy advances one
 * step per event-loop turn, so the process keeps answering meanwhile; one step over all pages
 * is a consistent snapshot even while another connection writes the source.
 */
export async function copyDatabase(source: Database, targetFile: string, pagesPerStep = ALL_PAGES): Promise<void> {
  await source.backup(targetFile, { progress: () => pagesPerStep });
}

/** Removes a database file and its WAL companions (missing files are fine). */
export function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}
