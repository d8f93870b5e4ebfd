import nlp from 'compromise';

export type EntityCategory = 'person' | 'organization' | 'place';

export interface NamedEntity {
  text: string;
  category: EntityCategory;
  /** character offset of the first mention in the text */
  start: number;
}

const TRAILING_PUNCTUATION = /[\s.,;:!?'"()[\]]+$/u;
const LEADING_PUNCTUATION = /^[\s'"([]+/u;

/**
 * Named entities of a text with the offline NLP library: people, organizations and places,
 * each once (first mention), in order of appearance. Deterministic: the same text always
 * gives the same entities.
 */
export function namedEntities(text: string): NamedEntity[] {
  const doc = nlp(text);
  const out = new Map<string, NamedEntity>();
  const take = (category: EntityCategory, items: { text: string; offset?: { start: number } }[]) => {
    for (const it of items) {
      const clean = it.text.replace(TRAILING_PUNCTUATION, '').replace(LEADING_PUNCTUATION, '').trim();
      if (clean.length < 2) continue;
      const key = `${category}:${clean.toLowerCase()}`;
      if (!out.has(key)) out.set(key, { text: clean, category, start: it.offset?.start ?? 0 });
    }
  };
  take('person', doc.people().json({ offset: true }) as { text: string; offset: { start: number } }[]);
  take('organization', doc.organizations().json({ offset: true }) as { text: string; offset: { start: number } }[]);
  take('place', doc.places().json({ offset: true }) as { text: string; offset: { start: number } }[]);
  return [...out.values()].sort((a, b) => a.start - b.start || a.text.localeCompare(b.text));
}
