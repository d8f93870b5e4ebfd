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

/** What is read of a match: its terms' text and the first term's offset. */
interface MatchView {
  docs: { offset?: { start: number } }[][];
  json(opts: Record<string, boolean>): { text: string }[];
}

/**
 * Named entities of a text with the offline NLP library: people, organizations and places,
 * each once (first mention), in order of appearance. Deterministic: the same text always
 * gives the same entities. One parse, and the offsets computed once for the whole text:
 * `json({offset:true})` recomputes them over the whole document on every call and copies
 * every term, which made the three selections cost more than the tagging itself.
 */
export function namedEntities(text: string): NamedEntity[] {
  const doc = nlp(text);
  doc.compute('offset');
  const out = new Map<string, NamedEntity>();
  const take = (category: EntityCategory, view: MatchView) => {
    const texts = view.json({ text: true, terms: false });
    view.docs.forEach((terms, i) => {
      const clean = texts[i].text.replace(TRAILING_PUNCTUATION, '').replace(LEADING_PUNCTUATION, '').trim();
      if (clean.length < 2) return;
      const key = `${category}:${clean.toLowerCase()}`;
      if (!out.has(key)) out.set(key, { text: clean, category, start: terms[0]?.offset?.start ?? 0 });
    });
  };
  take('person', doc.people() as unknown as MatchView);
  take('organization', doc.organizations() as unknown as MatchView);
  take('place', doc.places() as unknown as MatchView);
  return [...out.values()].sort((a, b) => a.start - b.start || a.text.localeCompare(b.text));
}
