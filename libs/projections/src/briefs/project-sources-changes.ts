import type { Database } from 'better-sqlite3';

/**
 * How often each Project's admitted sources have changed in this process, per projections
 * database, and which members each change named: the projection counts, readers key what they
 * derive (identities, fingerprint, ranked candidates) by the count and bring it up to date with
 * the members named since. Kept in memory rather than in a table: a rebuild of the log must
 * give the same rows, and a count of changes that later purges erased would not be. A reset
 * (rebuild) starts a new epoch, so nothing read before it is taken for current.
 */
interface Project {
  count: number;
  /** the latest changes, oldest first: the members each named (null: any member may have changed) */
  log: { at: number; uids: readonly string[] | null }[];
  /** members named by the changes in `log` */
  logged: number;
}

interface Counts {
  epoch: number;
  projects: Map<string, Project>;
}

/** Changes remembered per Project; an older view reads its Project afresh */
const LOG_CHANGES = 512;
/** Members remembered per Project across those changes (past it, reading afresh is as cheap) */
const LOG_MEMBERS = 4_000;

const byDb = new WeakMap<Database, Counts>();

function of(db: Database): Counts {
  let c = byDb.get(db);
  if (!c) byDb.set(db, (c = { epoch: 0, projects: new Map() }));
  return c;
}

const key = (org: string, project: string) => `${org}\u0000${project}`;

/** One change to the Project's sources: the members it touched, or null when it may have touched any. */
export function sourcesChanged(db: Database, org: string, project: string, uids: readonly string[] | null = null): void {
  const c = of(db);
  const k = key(org, project);
  let p = c.projects.get(k);
  if (!p) c.projects.set(k, (p = { count: 0, log: [], logged: 0 }));
  p.count++;
  p.log.push({ at: p.count, uids });
  p.logged += uids?.length ?? 0;
  while (p.log.length > LOG_CHANGES || (p.logged > LOG_MEMBERS && p.log.length > 1)) p.logged -= p.log.shift()!.uids?.length ?? 0;
}

export function sourcesReset(db: Database): void {
  const c = of(db);
  c.epoch++;
  c.projects.clear();
}

/** A stamp that moves whenever the Project's admitted sources (or their ranking facts) change. */
export function sourcesStamp(db: Database, org: string, project: string): string {
  const c = of(db);
  return `${c.epoch}:${c.projects.get(key(org, project))?.count ?? 0}`;
}

/**
 * The members named by the changes after `stamp` (empty when none), or null when they are not
 * all remembered (another epoch, changes forgotten, or a change that named none).
 */
export function sourcesChangedSince(db: Database, org: string, project: string, stamp: string): Set<string> | null {
  const c = of(db);
  const [epoch, count] = stamp.split(':').map(Number);
  if (epoch !== c.epoch) return null;
  const p = c.projects.get(key(org, project));
  const now = p?.count ?? 0;
  if (count === now) return new Set();
  if (!p || count > now || !p.log.length || p.log[0].at > count + 1) return null;
  const out = new Set<string>();
  for (let i = p.log.length - 1; i >= 0 && p.log[i].at > count; i--) {
    const uids = p.log[i].uids;
    if (uids === null) return null;
    for (const u of uids) out.add(u);
  }
  return out;
}
