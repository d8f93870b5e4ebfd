import { isAbbreviation } from './lexicon';

/** A sentence of a chunk, with its UTF-16 position in the chunk. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

const END_RE = /([.!?…]+)(["')\]’”]*)(\s+|$)|\n\s*\n|\n(?=\s*[-*•]\s)/g;
const PERSONAL_TITLES = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'inc', 'ltd', 'co', 'corp', 'no', 'fig', 'eg', 'ie', 'etc']);

/**
 * Splits text at sentence ends (. ! ? followed by space or the end, not after an
 * abbreviation, an initial or a decimal point) and at blank lines and list items.
 */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let start = 0;
  END_RE.lastIndex = 0;
  for (let m = END_RE.exec(text); m; m = END_RE.exec(text)) {
    const cut = m.index + (m[1] ? m[1].length + (m[2]?.length ?? 0) : 0);
    if (m[1] === '.') {
      const word = /([A-Za-z]+)$/.exec(text.slice(Math.max(start, m.index - 12), m.index))?.[1];
      if (word && (word.length === 1 || PERSONAL_TITLES.has(word.toLowerCase()) || isAbbreviation(word.toLowerCase()))) continue;
    }
    push(out, text, start, cut);
    start = m.index + m[0].length;
    if (m[0].length === 0) END_RE.lastIndex++;
  }
  push(out, text, start, text.length);
  return out;
}

function push(out: Sentence[], text: string, from: number, to: number): void {
  let s = from;
  let e = to;
  while (s < e && /\s/.test(text[s])) s++;
  while (e > s && /\s/.test(text[e - 1])) e--;
  // a list marker is not part of the sentence
  const marker = /^[-*•]\s+/.exec(text.slice(s, Math.min(e, s + 4)));
  if (marker) s += marker[0].length;
  if (e > s) out.push({ text: text.slice(s, e), start: s, end: e });
}
