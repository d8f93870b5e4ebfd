/** Edge types through which a node depends on a premise (REFERENCE §5.6). */
export const DEPENDENCY_EDGE_TYPES: readonly string[] = Object.freeze(['DerivedFrom', 'ReliesOn', 'Assumes', 'HasPremise', 'HasChainStep']);

export type StaleReason = 'premise_updated' | 'premise_tombstoned' | 'premise_superseded';

/** What is known about one premise P of a derived node D. */
export interface PremiseFacts {
  uid: string;
  label: string;
  node_type: string;
  /** type of the D → P edge */
  edge_type: string;
  /** changed_at of P's `update` version records */
  update_times: number[];
  tombstone_at: number | null;
  /** created_at of P's live incoming Supersedes edges */
  superseded_times: number[];
}

export interface StalePremise {
  uid: string;
  label: string;
  node_type: string;
  edge_type: string;
  reason: StaleReason;
  changed_at: number;
}

/**
 * The premises that changed after D was last checked (the `changed_at` of D's latest
 * version). A premise reports its earliest qualifying change; `stale_since` is the earliest
 * over all premises, null when D is not stale.
 */
export function stalePremises(lastChecked: number, premises: PremiseFacts[]): { premises: StalePremise[]; stale_since: number | null } {
  const out: StalePremise[] = [];
  for (const p of premises) {
    const changes: { reason: StaleReason; at: number }[] = [];
    const upd = p.update_times.filter((t) => t > lastChecked);
    if (upd.length) changes.push({ reason: 'premise_updated', at: Math.min(...upd) });
    if (p.tombstone_at !== null && p.tombstone_at > lastChecked) changes.push({ reason: 'premise_tombstoned', at: p.tombstone_at });
    const sup = p.superseded_times.filter((t) => t > lastChecked);
    if (sup.length) changes.push({ reason: 'premise_superseded', at: Math.min(...sup) });
    if (!changes.length) continue;
    changes.sort((a, b) => a.at - b.at);
    out.push({ uid: p.uid, label: p.label, node_type: p.node_type, edge_type: p.edge_type, reason: changes[0].reason, changed_at: changes[0].at });
  }
  out.sort((a, b) => a.changed_at - b.changed_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return { premises: out, stale_since: out.length ? out[0].changed_at : null };
}
