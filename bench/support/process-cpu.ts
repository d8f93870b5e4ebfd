import * as fs from 'node:fs';

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux everywhere we run). */
const TICKS_PER_S = 100;

/**
 * CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat. On a shared
 * machine a service's CPU per request moves far less with other work than its throughput does,
 * so overhead targets are also stated in it. Null where /proc is missing.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces: the fields are counted from after its closing paren
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS_PER_S;
  } catch {
    return null;
  }
}
