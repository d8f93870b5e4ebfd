import type { DomainEvent } from './domain-event';

/**
 * How one event moves its organization's count of live nodes — the number the plan's node
 * limit and `GET /v1/usage` are about: +1 when a node becomes live (created live, restored),
 * −1 when it is tombstoned, 0 otherwise. An imported node created already tombstoned adds
 * nothing. Purge and clear are not deltas (they reset or recount).
 */
export function liveNodeDelta(e: DomainEvent): number {
  switch (e.type) {
    case 'NodeCreated':
      return e.data.node.tombstone_at === null || e.data.node.tombstone_at === undefined ? 1 : 0;
    case 'NodeRestored':
      return 1;
    case 'NodeTombstoned':
      return -1;
    default:
      return 0;
  }
}
