import { BRIEF_ITEM_KINDS, BriefGenerator, BriefItem, BriefTrigger, BriefVersion, Change, Citation, Correction } from './brief-records';
import { GENERATED_CAP, GeneratedItem } from './structural-generator';
import { ProjectSources, citationAdmitted } from './project-sources';

/** What the log remembers about an item id across versions (corrections outlive absences). */
export interface ItemMemory {
  first_version: number;
  correction: Correction | null;
}

/** A version plus what the read model keeps beside it: which ids the last regeneration produced. */
export interface StoredBriefVersion extends BriefVersion {
  produced_item_ids: string[];
}

export interface RegenerationInput {
  project_uid: string;
  version: number;
  now: number;
  trigger: BriefTrigger;
  requested_by: string;
  generated_by: BriefGenerator;
  model: string | null;
  source_fingerprint: string;
  sources: ProjectSources;
  summary: string | null;
  /** every candidate of each kind, in generator order, uncapped */
  generated: GeneratedItem[];
}

const citeKey = (c: Citation) => `${c.chunk_uid}\u0000${c.char_start}\u0000${c.char_end}`;
const citeSet = (cs: readonly Citation[]) => [...new Set(cs.map(citeKey))].sort().join('\u0001');
const correctionKey = (c: Correction | null) => (c === null ? '' : JSON.stringify([c.text, c.citations.map((x) => [x.chunk_uid, x.char_start, x.char_end, x.quote])]));

/**
 * Compares items with the previous version by id (§12.5): added and removed; a new or replaced
 * correction (which also accounts for its text and citations); otherwise text and citation
 * changes; pin state apart, never material.
 */
export function diffItems(prev: readonly BriefItem[], next: readonly BriefItem[]): Change[] {
  const before = new Map(prev.map((i) => [i.id, i]));
  const ids = new Set(next.map((i) => i.id));
  const out: Change[] = [];
  const ch = (type: Change['type'], i: BriefItem, material: boolean, b: BriefItem | null, a: BriefItem | null) =>
    out.push({ type, item_id: i.id, kind: i.kind, material, before: b ? { text: b.text } : null, after: a ? { text: a.text } : null });
  for (const i of next) {
    const p = before.get(i.id);
    if (!p) {
      ch('added', i, true, null, i);
      continue;
    }
    if (i.correction !== null && correctionKey(p.correction) !== correctionKey(i.correction)) ch('corrected', i, true, p, i);
    else {
      if (p.text !== i.text) ch('text_changed', i, true, p, i);
      if (citeSet(p.citations) !== citeSet(i.citations)) ch('citations_changed', i, true, p, i);
    }
    if (p.pinned !== i.pinned) ch(i.pinned ? 'pinned' : 'unpinned', i, false, p, i);
  }
  for (const p of prev) if (!ids.has(p.id)) ch('removed', p, true, p, null);
  return out;
}

/** Applies the item's correction, if any: its text and its still-admitted citations (dropping any marks it stale). */
function withCorrection(item: BriefItem, sources: ProjectSources | null): BriefItem {
  const c = item.correction;
  if (c === null) return { ...item, text: item.generated_text };
  const kept = sources ? c.citations.filter((x) => citationAdmitted(sources, x)) : c.citations;
  return { ...item, text: c.text, citations: kept, stale: item.stale || kept.length < c.citations.length };
}

/** Ranks are 1-based within a kind, in the order given (pins first). */
function ranked(items: BriefItem[]): BriefItem[] {
  const n = new Map<string, number>();
  return items.map((i) => {
    const r = (n.get(i.kind) ?? 0) + 1;
    n.set(i.kind, r);
    return { ...i, rank: r };
  });
}

function sealed(
  base: Omit<StoredBriefVersion, 'items' | 'changes' | 'material_change_count' | 'previous_version'>,
  items: BriefItem[],
  prev: BriefVersion | null,
): StoredBriefVersion {
  const changes = diffItems(prev?.items ?? [], items);
  return { ...base, items, changes, material_change_count: changes.filter((c) => c.material).length, previous_version: prev?.version ?? null };
}

/**
 * A regeneration's version (§12.5): per kind the pinned items first, in pin order (fresh when
 * the generator still produces them; else carried, stale without their non-admitted citations
 * when a subject left Nodes(P)), then up to 20 generated items; every correction applied.
 */
export function composeVersion(input: RegenerationInput, prev: StoredBriefVersion | null, memory: ReadonlyMap<string, ItemMemory>): StoredBriefVersion {
  const s = input.sources;
  const pinned = (prev?.items ?? []).filter((i) => i.pinned);
  const pinnedIds = new Set(pinned.map((i) => i.id));
  const generated = new Map(input.generated.map((g) => [g.id, g]));
  const fresh = (g: GeneratedItem, pin: BriefItem | null): BriefItem =>
    withCorrection(
      {
        id: g.id,
        kind: g.kind,
        rank: 0,
        text: g.generated_text,
        generated_text: g.generated_text,
        subject_uids: g.subject_uids,
        basis_uids: g.basis_uids,
        citations: g.citations,
        confidence: g.confidence,
        origin: g.origin,
        pinned: pin !== null,
        pinned_by: pin?.pinned_by ?? null,
        pinned_at: pin?.pinned_at ?? null,
        correction: memory.get(g.id)?.correction ?? null,
        stale: false,
        first_version: memory.get(g.id)?.first_version ?? input.version,
      },
      s,
    );
  const items: BriefItem[] = [];
  const produced: string[] = [];
  for (const kind of BRIEF_ITEM_KINDS) {
    for (const p of pinned.filter((i) => i.kind === kind)) {
      const g = generated.get(p.id);
      if (g) {
        items.push(fresh(g, p));
        continue;
      }
      const admitted = p.subject_uids.every((u) => s.nodes.has(u));
      const carried: BriefItem = {
        ...p,
        citations: admitted ? p.citations : p.citations.filter((c) => citationAdmitted(s, c)),
        stale: !admitted,
        correction: memory.get(p.id)?.correction ?? p.correction,
      };
      items.push(withCorrection(carried, s));
    }
    const ofKind = input.generated.filter((g) => g.kind === kind);
    const rest = new Set(ofKind.filter((g) => !pinnedIds.has(g.id)).slice(0, GENERATED_CAP));
    for (const g of rest) items.push(fresh(g, null));
    for (const g of ofKind) if (pinnedIds.has(g.id) || rest.has(g)) produced.push(g.id);
  }
  return sealed(
    {
      project_uid: input.project_uid,
      version: input.version,
      created_at: input.now,
      trigger: input.trigger,
      requested_by: input.requested_by,
      generated_by: input.generated_by,
      model: input.model,
      source_fingerprint: input.source_fingerprint,
      source_counts: { documents: s.documents.size, chunks: s.chunks.size, nodes: s.nodes.size, edges: s.edges.length },
      summary: input.summary,
      produced_item_ids: produced,
    },
    ranked(items),
    prev,
  );
}

/**
 * A PATCH's version: the current one with its items changed, keeping its fingerprint, generator
 * and model. `drop` leaves an item out (an unpinned item the last regeneration did not produce).
 */
export function patchedVersion(
  current: StoredBriefVersion,
  items: BriefItem[],
  meta: { version: number; now: number; trigger: BriefTrigger; requested_by: string },
): StoredBriefVersion {
  const order = (i: BriefItem) => BRIEF_ITEM_KINDS.indexOf(i.kind);
  // unpinned items follow the generator's order (the last regeneration's), pins keep theirs
  const produced = new Map(current.produced_item_ids.map((id, n) => [id, n]));
  const genOrder = (i: BriefItem) => produced.get(i.id) ?? Number.MAX_SAFE_INTEGER;
  const sorted = [...items].sort(
    (a, b) => order(a) - order(b) || (a.pinned === b.pinned ? (a.pinned ? 0 : genOrder(a) - genOrder(b)) : a.pinned ? -1 : 1),
  );
  return sealed(
    {
      project_uid: current.project_uid,
      version: meta.version,
      created_at: meta.now,
      trigger: meta.trigger,
      requested_by: meta.requested_by,
      generated_by: current.generated_by,
      model: current.model,
      source_fingerprint: current.source_fingerprint,
      source_counts: current.source_counts,
      summary: current.summary,
      produced_item_ids: current.produced_item_ids,
    },
    ranked(sorted),
    current,
  );
}

export { withCorrection };
