import { BriefItem, BriefVersion, StoredBriefVersion } from '@strata/domain/briefs';
import { ReadScope } from '@strata/platform/scope/read-scope';

/** Every uid an item touches: its basis and what its citations name. */
function touched(i: BriefItem): string[] {
  const out = [...i.basis_uids];
  for (const c of i.citations) {
    out.push(c.chunk_uid, c.document_uid);
    if (c.node_uid !== null) out.push(c.node_uid);
  }
  return out;
}

/** Whether the caller may see the item: every node it rests on or cites is readable to it. */
export function itemVisible(i: BriefItem, scope: ReadScope): boolean {
  return !scope.restricted || touched(i).every((u) => scope.allows(u));
}

/**
 * A version as this caller may read it (REFERENCE §12.3 withholding): items touching a node it
 * cannot see are left out and counted, and so are the changes naming them (a removed item is
 * judged as it was in `previous`), so `material_change_count` counts only the changes shown; the summary is null when any admitted source is hidden from
 * it. The stored extras (`produced_item_ids`) are never shown.
 */
export function presentVersion(v: StoredBriefVersion, scope: ReadScope, sourcesHidden: boolean, previous: BriefVersion | null = null): { version: BriefVersion; withheld: number } {
  const { produced_item_ids, ...rest } = v;
  void produced_item_ids;
  if (!scope.restricted) return { version: rest, withheld: 0 };
  const seen = (i: BriefItem) => itemVisible(i, scope);
  const items = rest.items.filter(seen);
  // a change is shown only when every form of its item the caller could compare is visible to it
  const hidden = new Set([...rest.items, ...(previous?.items ?? [])].filter((i) => !seen(i)).map((i) => i.id));
  const known = new Set([...rest.items, ...(previous?.items ?? [])].map((i) => i.id));
  const changes = rest.changes.filter((c) => known.has(c.item_id) && !hidden.has(c.item_id));
  const material_change_count = changes.filter((c) => c.material).length;
  return { version: { ...rest, items, changes, material_change_count, summary: sourcesHidden ? null : rest.summary }, withheld: rest.items.length - items.length };
}
