import type { Database } from 'better-sqlite3';

/**
 * How often each Project's admitted sources have changed in this process, per projections
 * database: the projection counts, readers key what they derive (identities, fingerprint,
 * ranked candidates) by it. Kept in memory rather than in a table: a rebuild of the log must
 * give the same rows, and a count of changes that later purges erased would not be. A reset
 * (rebuild) starts a new epoch, so nothing read before it is taken for current.
 */
interface Counts {
  epoch: number;
  counts: Map<string, number>;
}

const byDb = new WeakMap<Database, Counts>();

function of(db: Database): Counts {
  let c = byDb.get(db);
  if (!c) byDb.set(db, (c = { epoch: 0, counts: new Map() }));
  return c;
}

const key = (org: string, project: string) => `${org}\u0000${project}`;

export function sourcesChanged(db: Database, org: string, project: string): void {
  const c = of(db);
  const k = key(org, project);
  c.counts.set(k, (c.counts.get(k) ?? 0) + 1);
}

export function sourcesReset(db: Database): void {
  const c = of(db);
  c.epoch++;
  c.counts.clear();
}

/** A stamp that moves whenever the Project's admitted sources (or their ranking facts) change. */
export function sourcesStamp(db: Database, org: string, project: string): string {
  const c = of(db);
  return `${c.epoch}:${c.counts.get(key(org, project)) ?? 0}`;
}
