import { DomainEvent, liveNodeDelta } from '@strata/domain/events';

/** What an event means for a cached live-node count. */
export type CountEffect = { kind: 'none' } | { kind: 'delta'; delta: number } | { kind: 'reset_to_zero' } | { kind: 'recount' };

export function countEffect(e: DomainEvent): CountEffect {
  if (e.type === 'GraphCleared') return { kind: 'reset_to_zero' };
  if (e.type === 'GraphPurged') return { kind: 'recount' };
  const delta = liveNodeDelta(e);
  return delta === 0 ? { kind: 'none' } : { kind: 'delta', delta };
}

/**
 * A count read from the graph read model at checkpoint `position`, brought forward by the
 * changes seen in the log after it (`recent`: position order, one organization).
 */
export function countAfter(counted: number, position: number, recent: readonly { position: number; delta: number }[]): number {
  let n = counted;
  for (const r of recent) if (r.position > position) n += r.delta;
  return Math.max(0, n);
}
