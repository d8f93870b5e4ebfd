import { DomainError, Errors } from '../errors';
import { BriefItem, BriefTrigger, Citation, Correction } from './brief-records';
import { StoredBriefVersion, patchedVersion, withCorrection } from './brief-versions';
import { ProjectRole } from './project-role';

export const BRIEF_ITEM_ACTIONS = ['pin', 'unpin', 'correct'] as const;
export type BriefItemAction = (typeof BRIEF_ITEM_ACTIONS)[number];

/** At most this many pinned items per brief (§12.5). */
export const MAX_PINS = 50;

/** The role each PATCH action needs (§12.6). */
export const ACTION_ROLE: Readonly<Record<BriefItemAction, ProjectRole>> = { pin: 'editor', unpin: 'editor', correct: 'agent' };

export interface CorrectionInput {
  text: string;
  /** anchored by the handler against Chunks(P) */
  citations: Citation[];
  reason: string | null;
}

export type ItemPatch = { action: 'pin' } | { action: 'unpin' } | ({ action: 'correct' } & CorrectionInput);

export interface PatchOutcome {
  changed: boolean;
  version: StoredBriefVersion;
  item: BriefItem;
}

const sameCitations = (a: readonly Citation[], b: readonly Citation[]) =>
  a.length === b.length && a.every((c, i) => c.chunk_uid === b[i].chunk_uid && c.char_start === b[i].char_start && c.char_end === b[i].char_end && c.quote === b[i].quote);

/**
 * Pin, unpin or correct an item of the current version (§12.6). A no-op gives `changed:false`
 * and the current version (nothing to append); otherwise the next version.
 */
export function decideItemPatch(
  current: StoredBriefVersion,
  itemId: string,
  patch: ItemPatch,
  by: string,
  now: number,
  expectedVersion: number | undefined,
): PatchOutcome {
  if (expectedVersion !== undefined && expectedVersion !== current.version) throw Errors.versionConflict(current.version, expectedVersion);
  const item = current.items.find((i) => i.id === itemId);
  if (!item) throw new DomainError(404, 'not_found', `item ${itemId} is not in the current version`, { field: 'item_id', uid: itemId });
  const unchanged = (): PatchOutcome => ({ changed: false, version: current, item });
  let items: BriefItem[];
  let trigger: BriefTrigger;
  switch (patch.action) {
    case 'pin': {
      if (item.pinned) return unchanged();
      if (current.items.filter((i) => i.pinned).length >= MAX_PINS) throw Errors.invalidField('action', `a brief holds at most ${MAX_PINS} pinned items`);
      items = current.items.map((i) => (i.id === itemId ? { ...i, pinned: true, pinned_by: by, pinned_at: now } : i));
      trigger = 'pin';
      break;
    }
    case 'unpin': {
      if (!item.pinned) return unchanged();
      const produced = current.produced_item_ids.includes(itemId);
      items = produced ? current.items.map((i) => (i.id === itemId ? { ...i, pinned: false, pinned_by: null, pinned_at: null } : i)) : current.items.filter((i) => i.id !== itemId);
      trigger = 'unpin';
      break;
    }
    case 'correct': {
      if (item.correction && item.correction.text === patch.text && sameCitations(item.correction.citations, patch.citations)) return unchanged();
      const correction: Correction = { text: patch.text, citations: patch.citations, by, at: now, reason: patch.reason };
      items = current.items.map((i) => (i.id === itemId ? withCorrection({ ...i, correction, stale: false }, null) : i));
      trigger = 'correct';
      break;
    }
  }
  const version = patchedVersion(current, items, { version: current.version + 1, now, trigger, requested_by: by });
  const after = version.items.find((i) => i.id === itemId) ?? { ...item, pinned: false, pinned_by: null, pinned_at: null };
  return { changed: true, version, item: after };
}
