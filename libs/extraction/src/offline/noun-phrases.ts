import { hasTag, tagsOf } from './lexicon';

export interface NounPhrase {
  /** the first mention as written */
  text: string;
  norm: string;
  index: number;
  count: number;
}

// words that end or break a noun phrase
const BREAK_TAGS = [
  'Determiner', 'Preposition', 'Conjunction', 'Pronoun', 'Copula', 'Modal', 'Possessive', 'Reflexive', 'QuestionWord', 'Negative',
  'Adverb', 'PastTense', 'PresentTense', 'Gerund', 'Infinitive', 'Participle', 'Verb', 'Cardinal', 'TextValue', 'Condition', 'Expression',
  'Ordinal', 'Month', 'WeekDay', 'Date', 'Duration', 'Honorific', 'Abbreviation',
];
const NOUN_TAGS = ['Singular', 'Plural', 'Noun', 'Uncountable', 'Actor', 'Unit'];
const EXTRA_STOP = new Set(['also', 'just', 'very', 'such', 'other', 'same', 'many', 'much', 'more', 'most', 'some', 'any', 'each', 'every', 'own', 'like', 'than', 'then', 'there', 'here', 'yes', 'not', 'one']);

type Kind = 'noun' | 'adj' | 'break';

const NON_ASCII = /[^\x00-\x7f]/;
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
// \s on ASCII: tab, line feed, vertical tab, form feed, carriage return, space
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

// a word's kind depends on the word alone: a document's vocabulary is classified once, not at every mention
const KINDS = new Map<string, Kind>();
const KINDS_MAX = 200_000;

function kind(w: string): Kind {
  let k = KINDS.get(w);
  if (k === undefined) {
    if (KINDS.size >= KINDS_MAX) KINDS.clear();
    KINDS.set(w, (k = classify(w)));
  }
  return k;
}

function classify(w: string): Kind {
  if (EXTRA_STOP.has(w) || /\d/.test(w)) return 'break';
  const t = tagsOf(w);
  if (t.length === 0) return w.length >= 3 && !/(ly|ing|ed)$/.test(w) ? 'noun' : 'break';
  if (NOUN_TAGS.some((x) => t.includes(x))) return 'noun';
  if (t.includes('Adjective') || t.includes('Comparative') || t.includes('Superlative') || t.includes('Demonym')) return 'adj';
  if (BREAK_TAGS.some((x) => t.includes(x))) return 'break';
  return 'noun';
}

/**
 * Noun phrases that occur at least `min` times in the text: runs of adjectives and nouns (by
 * compromise's lexicon; unknown words count as nouns) ending in a noun, at most four words,
 * single words of four letters or more. Longest phrases first, then by first mention.
 */
export function recurringNounPhrases(text: string, min = 2): NounPhrase[] {
  const counts = new Map<string, NounPhrase>();
  const WORD_RE = /[\p{L}\p{M}][\p{L}\p{M}'’-]*|[^\s\p{L}\p{M}]+/gu;
  let run: { w: string; i: number; end: number; k: 'noun' | 'adj' }[] = [];
  const flush = () => {
    // the phrase ends at its last noun
    let last = run.length - 1;
    while (last >= 0 && run[last].k !== 'noun') last--;
    if (last >= 0) {
      const words = run.slice(Math.max(0, last - 3), last + 1);
      const norm = words.map((x) => x.w).join(' ');
      if (words.length > 1 || norm.length >= 4) {
        const cur = counts.get(norm);
        if (cur) cur.count++;
        else counts.set(norm, { text: text.slice(words[0].i, words[words.length - 1].end), norm, index: words[0].i, count: 1 });
      }
    }
    run = [];
  };
  const word = (w: string, i: number, end: number) => {
    const k = kind(w);
    if (k === 'break') flush();
    else run.push({ w, i, end, k });
  };
  if (!NON_ASCII.test(text)) {
    // WORD_RE's tokens read without a match object each: on ASCII, \p{L} is [A-Za-z], \p{M} is empty
    const lower = text.toLowerCase();
    const n = text.length;
    for (let i = 0; i < n; ) {
      const c = text.charCodeAt(i);
      let j = i + 1;
      if (isLetter(c)) {
        for (let d = text.charCodeAt(j); j < n && (isLetter(d) || d === 39 || d === 45); d = text.charCodeAt(++j));
        word(lower.slice(i, j), i, j);
      } else if (!isSpace(c)) {
        for (let d = text.charCodeAt(j); j < n && !isSpace(d) && !isLetter(d); d = text.charCodeAt(++j));
        flush();
      }
      i = j;
    }
  } else {
    for (let m = WORD_RE.exec(text); m; m = WORD_RE.exec(text)) {
      const raw = m[0];
      if (!/^[\p{L}\p{M}]/u.test(raw)) flush();
      else word(raw.toLowerCase(), m.index, m.index + raw.length);
    }
  }
  flush();
  return [...counts.values()]
    .filter((p) => p.count >= min)
    .sort((a, b) => b.norm.split(' ').length - a.norm.split(' ').length || a.index - b.index);
}

export const isNounLike = (w: string): boolean => kind(w.toLowerCase()) === 'noun' && !hasTag(w.toLowerCase(), 'Adjective');
