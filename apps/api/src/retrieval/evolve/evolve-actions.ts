export const EVOLVE_ACTIONS = [
  'update',
  'tombstone',
  'tombstone_cascade',
  'restore',
  'decay',
  'history',
  'snapshot',
  'tombstone_edge',
  'restore_edge',
] as const;
export type EvolveAction = (typeof EVOLVE_ACTIONS)[number];

/** Actions that only read; every other action needs a credential that may write. */
export const EVOLVE_READS: ReadonlySet<EvolveAction> = new Set(['history', 'snapshot']);

/** Versioned writes on one node or edge, decided by `EvolveHandler`. */
export type EvolveWriteAction = 'update' | 'tombstone' | 'tombstone_cascade' | 'restore' | 'tombstone_edge' | 'restore_edge';
