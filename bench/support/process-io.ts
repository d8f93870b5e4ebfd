import * as fs from 'node:fs';

/**
 * Bytes a process has handed to write calls so far (`wchar` of /proc/<pid>/io): for the
 * service, its SQLite WAL frames and checkpoint copies (its HTTP answers are a small part).
 * Counted at the call, whatever the page cache later does with them; null where /proc is missing.
 */
export function processWrittenBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /^wchar:\s*(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
