import nlp from 'compromise';

/**
 * compromise's English model, read once: its lexicon (word → part-of-speech and name tags),
 * the words that mark organisations and places, and its abbreviations. The offline extractor
 * tags with these directly instead of running compromise's full tagger on every chunk: the
 * lexicon is the same knowledge, and a look-up keeps ingestion above 1 MB/s.
 */
interface Model {
  one: { lexicon: Record<string, string | string[]>; abbreviations?: Record<string, unknown> };
  two: { orgWords: Record<string, boolean>; placeWords: Record<string, boolean> };
}

const model = (nlp as unknown as { model(): Model }).model();
const lexicon = model.one.lexicon;
const orgWords = model.two.orgWords;
const placeWords = model.two.placeWords;
const abbreviations = new Set(Object.keys(model.one.abbreviations ?? {}));
for (const [w, tags] of Object.entries(lexicon)) if (([] as string[]).concat(tags).includes('Abbreviation')) abbreviations.add(w);

const cache = new Map<string, readonly string[]>();

/** The lexicon's tags of a lower-case word or phrase (empty when unknown). */
export function tagsOf(word: string): readonly string[] {
  let t = cache.get(word);
  if (!t) {
    const raw = lexicon[word];
    t = raw === undefined ? [] : ([] as string[]).concat(raw);
    cache.set(word, t);
  }
  return t;
}

export function hasTag(word: string, ...tags: string[]): boolean {
  return hasAnyTag(word, tags);
}

/** hasTag with a list made once: no array or closure per call (named-entity runs ask for every capitalised word). */
export function hasAnyTag(word: string, tags: readonly string[]): boolean {
  const t = tagsOf(word);
  if (t.length === 0) return false;
  for (let i = 0; i < tags.length; i++) if (t.includes(tags[i])) return true;
  return false;
}

export const isOrgWord = (w: string): boolean => orgWords[w] === true;
export const isPlaceWord = (w: string): boolean => placeWords[w] === true;
export const isAbbreviation = (w: string): boolean => abbreviations.has(w);
