import { hasAnyTag, hasTag, isOrgWord, isPlaceWord, tagsOf } from './lexicon';
import { Sentence } from './sentences';

export type EntityType = 'Person' | 'Organization' | 'Place';

export interface NamedEntity {
  node_type: EntityType;
  /** the mention as written */
  text: string;
  /** UTF-16 index of the first mention in the chunk */
  index: number;
}

// a capitalised word (letters, inner apostrophes, hyphens or dots), or a connector inside a name
const CAP_WORD = /^\p{Lu}[\p{L}\p{M}'’.-]*$/u;
const CONNECTORS = new Set(['of', 'the', 'de', 'da', 'van', 'von', 'der', '&', 'for', 'du', 'la', 'le']);
const ORG_SUFFIXES = new Set(['inc', 'inc.', 'corp', 'corp.', 'ltd', 'ltd.', 'llc', 'plc', 'gmbh', 'ag', 'sa', 'co', 'co.']);
const NAME_TAGS = ['FirstName', 'MaleName', 'FemaleName'];
const PLACE_TAGS = ['City', 'Country', 'Region', 'Place'];
// words that begin sentences in capitals without naming anything
const FUNCTION_TAGS = ['Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Copula', 'Modal', 'QuestionWord', 'Adverb', 'Expression', 'Possessive'];

const strip = (w: string) => w.replace(/[.'’]+$/, '');

/** CAP_WORD's test, answering at once for a word opening with an ASCII character that is not a capital. */
function isCapWord(w: string): boolean {
  const c = w.charCodeAt(0);
  if (c < 0x80 && (c < 0x41 || c > 0x5a)) return false;
  return CAP_WORD.test(w);
}

/** A word as matched, without a final full stop unless the word is an organisation suffix ("Inc."). */
function wordOf(raw: string): string {
  return raw.endsWith('.') && !ORG_SUFFIXES.has(raw.toLowerCase()) ? raw.slice(0, -1) : raw;
}

/**
 * Named-entity recognition on compromise's lexicon: runs of capitalised words (joined by
 * "of", "the", "&"…) are classified by their words: an organisation word or suffix makes an
 * Organization, a known first name or an honorific a Person, a known city, region or country
 * (or a place word such as "River") a Place. Participants' names count as Person names.
 * Runs that fit none are not named entities. First mention wins; order of first mention.
 */
export function findNamedEntities(text: string, sentences: readonly Sentence[], knownPeople: readonly string[] = []): NamedEntity[] {
  const found = new Map<string, NamedEntity>();
  const add = (node_type: EntityType, mention: string, index: number) => {
    const key = `${node_type}:${mention.toLowerCase()}`;
    if (!found.has(key)) found.set(key, { node_type, text: mention, index });
  };
  for (const person of knownPeople) {
    const i = person ? text.indexOf(person) : -1;
    if (i >= 0) add('Person', person, i);
  }
  const WORD_RE = /[\p{L}\p{M}\p{N}&][\p{L}\p{M}\p{N}'’.&-]*/gu;
  for (const s of sentences) {
    const words: { w: string; i: number }[] = [];
    WORD_RE.lastIndex = 0;
    for (let m = WORD_RE.exec(s.text); m; m = WORD_RE.exec(s.text)) words.push({ w: wordOf(m[0]), i: s.start + m.index });
    let k = 0;
    while (k < words.length) {
      if (!isCapWord(words[k].w)) {
        k++;
        continue;
      }
      let j = k + 1;
      while (j < words.length) {
        if (isCapWord(words[j].w)) j++;
        else if (CONNECTORS.has(words[j].w.toLowerCase()) && j + 1 < words.length && isCapWord(words[j + 1].w)) j += 2;
        else break;
      }
      let run = words.slice(k, j);
      // a sentence-initial function word ("The", "On", "We") is not part of a name
      while (run.length && hasAnyTag(strip(run[0].w).toLowerCase(), FUNCTION_TAGS)) run = run.slice(1);
      if (run.length) {
        const type = classify(run.map((r) => strip(r.w)));
        if (type) {
          const first = run[0].i;
          const last = run[run.length - 1];
          add(type, text.slice(first, last.i + last.w.length), first);
        }
      }
      k = j;
    }
  }
  return [...found.values()].sort((a, b) => a.index - b.index);
}

function classify(words: string[]): EntityType | null {
  const lower = words.map((w) => w.toLowerCase());
  const phrase = lower.join(' ');
  const whole = tagsOf(phrase);
  if (whole.includes('Organization') || whole.includes('SportsTeam')) return 'Organization';
  if (PLACE_TAGS.some((t) => whole.includes(t))) return 'Place';
  if (lower.some((w) => isOrgWord(w) || ORG_SUFFIXES.has(w)) || lower.some((w) => hasTag(w, 'Organization'))) return 'Organization';
  if (hasTag(lower[0], 'Honorific') && words.length > 1) return 'Person';
  if (words.length >= 2 && words.length <= 4 && hasAnyTag(lower[0], NAME_TAGS) && !lower.some((w) => hasAnyTag(w, PLACE_TAGS))) return 'Person';
  if (words.length >= 2 && words.length <= 4 && hasTag(lower[lower.length - 1], 'LastName') && !hasAnyTag(lower[0], FUNCTION_TAGS)) return 'Person';
  if (lower.some((w) => isPlaceWord(w)) && words.length >= 2) return 'Place';
  if (words.length <= 3 && lower.every((w) => hasAnyTag(w, PLACE_TAGS) || CONNECTORS.has(w))) return 'Place';
  return null;
}
