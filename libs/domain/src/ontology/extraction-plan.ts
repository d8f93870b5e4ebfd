import { normaliseText } from '../catalogue/names';
import { ObjectTypeRecord } from './ontology-records';
import { RiskLevel } from './proposal-record';

/** A live domain object as extraction matches it: by canonical name and aliases. */
export interface KnownObject {
  uid: string;
  object_type_id: string;
  names: string[];
}

export interface EntityMention {
  text: string;
  category: string;
}

export interface ExtractionPlan {
  /** existing objects the text mentions */
  links: string[];
  /** new objects: named entities whose category an object type asks for */
  proposals: { type: ObjectTypeRecord; canonical_name: string }[];
}

const CATEGORY_SYNONYMS: Record<string, string> = {
  person: 'person',
  people: 'person',
  persons: 'person',
  organization: 'organization',
  organisation: 'organization',
  organizations: 'organization',
  organisations: 'organization',
  org: 'organization',
  company: 'organization',
  place: 'place',
  places: 'place',
  location: 'place',
  locations: 'place',
};

/**
 * The entity categories an object type's `extraction_hints` ask for. Hints are free-form:
 * `{categories:[…]}` (or `entity_types`), an array of strings, or one string.
 */
export function hintCategories(hints: unknown): string[] {
  let raw: unknown[] = [];
  if (typeof hints === 'string') raw = [hints];
  else if (Array.isArray(hints)) raw = hints;
  else if (hints && typeof hints === 'object') {
    const h = hints as Record<string, unknown>;
    const list = h.categories ?? h.entity_types ?? h.category;
    raw = Array.isArray(list) ? list : list !== undefined ? [list] : [];
  }
  const out = new Set<string>();
  for (const r of raw) if (typeof r === 'string' && CATEGORY_SYNONYMS[r.trim().toLowerCase()]) out.add(CATEGORY_SYNONYMS[r.trim().toLowerCase()]);
  return [...out];
}

/** The risk of a type's extracted proposals: `extraction_hints.risk_level`, default low. */
export function extractionRisk(type: ObjectTypeRecord): RiskLevel {
  const h = type.extraction_hints;
  const r = h && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>).risk_level : undefined;
  return r === 'high' || r === 'medium' ? r : 'low';
}

function containsWords(haystack: string, needle: string): boolean {
  if (!needle) return false;
  return ` ${haystack} `.includes(` ${needle} `);
}

/**
 * What the offline extraction does with a text: links the existing objects it names (any of
 * their names, as whole words after normalisation) and proposes a new object for each named
 * entity no existing object of a matching type already answers to. Deterministic.
 */
export function planExtraction(text: string, entities: EntityMention[], types: readonly ObjectTypeRecord[], objects: readonly KnownObject[]): ExtractionPlan {
  const norm = normaliseText(text);
  const links: string[] = [];
  const known = new Map<string, Set<string>>(); // type id → normalised names
  for (const o of objects) {
    const names = o.names.map(normaliseText).filter(Boolean);
    const set = known.get(o.object_type_id) ?? new Set<string>();
    for (const n of names) set.add(n);
    known.set(o.object_type_id, set);
    if (names.some((n) => containsWords(norm, n))) links.push(o.uid);
  }
  const live = types.filter((t) => t.status === 'active');
  const proposals: ExtractionPlan['proposals'] = [];
  const seen = new Set<string>();
  for (const e of entities) {
    const type = live.find((t) => hintCategories(t.extraction_hints).includes(e.category));
    if (!type) continue;
    const n = normaliseText(e.text);
    if (!n || known.get(type.id)?.has(n) || seen.has(`${type.id}:${n}`)) continue;
    seen.add(`${type.id}:${n}`);
    proposals.push({ type, canonical_name: e.text });
  }
  return { links: [...new Set(links)], proposals };
}
