/**
 * How one event moves its organization's count of live nodes — the number the plan's node
 * limit and `GET /v1/usage` are about: +1 when a node becomes live (created live, restored),
 * −1 when it is tombstoned, 0 otherwise. An imported node created already tombstoned adds
 * nothing. Purge and clear are not deltas (they reset or recount).
 */
export function liveNodeDelta(type: string, data?: unknown): number {
  switch (type) {
    case 'NodeCreated': {
      const node = (data as { node?: { tombstone_at?: unknown } } | undefined)?.node;
      return node && node.tombstone_at !== null && node.tombstone_at !== undefined ? 0 : 1;
    }
    case 'NodeRestored':
      return 1;
    case 'NodeTombstoned':
      return -1;
    default:
      return 0;
  }
}
