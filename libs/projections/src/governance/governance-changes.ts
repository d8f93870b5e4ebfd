import type { Database } from 'better-sqlite3';

/**
 * A generation per governance database that moves whenever what the policy gate reads may have
 * changed: the projection applied a governance event, dropped its rows, or the transaction it
 * wrote in was rolled back (or the file was swapped for a rebuilt one). Readers cache per
 * generation instead of reading settings and policies on every governed write. A rollback moves
 * it too because a read inside the unit of work sees rows that the rollback then takes away.
 * Numbers come from one counter for every database, so a generation never repeats across them.
 */
const generations = new WeakMap<Database, number>();
let counter = 0;

export function governanceChanged(db: Database): void {
  generations.set(db, ++counter);
}

export function governanceGeneration(db: Database): number {
  let g = generations.get(db);
  if (g === undefined) generations.set(db, (g = ++counter));
  return g;
}
