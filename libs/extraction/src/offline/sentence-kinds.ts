import { hasTag } from './lexicon';

export const isQuestion = (s: string): boolean => /\?["')\]’”]*$/.test(s);

const HEDGE_RE = /\b(may|might|could|possibly|perhaps|probably|likely|unlikely|we hypothesi[sz]e|hypothesi[sz]ed?|it is possible|suggests? that|we suspect|presumably)\b/i;
export const isHedged = (s: string): boolean => HEDGE_RE.test(s);

const GOAL_RE = /\b(aims? to|aiming to|plans? to|planning to|(?:our|the|my|their|his|her) (?:goal|aim|objective|mission) (?:is|was|are)|goal is|intends? to|want to achieve)\b/i;
export const isGoal = (s: string): boolean => GOAL_RE.test(s);

const DECISION_RE = /\b(decided|decides|decide to|agreed to|we will|will|shall|chose to|opted to|resolved to)\b/i;
export const isDecision = (s: string): boolean => DECISION_RE.test(s);

const PREFERENCE_RE = /\b(prefers?|preferred|likes?|liked|always uses?|favou?rs?|would rather)\b/i;

/** The preference's key (who or what before the verb) and value (what follows it). */
export function preferenceOf(s: string): { key: string; value: string } | null {
  const m = PREFERENCE_RE.exec(s);
  if (!m) return null;
  // "like" as a preposition ("a tool like grep") is not a preference
  if (/^like$/i.test(m[1]) && !/\b(i|we|you|they|he|she|users?|people|\p{Lu}\p{L}+)\s+$/iu.test(s.slice(0, m.index))) return null;
  const key = s.slice(0, m.index).trim().replace(/[,;:]$/, '') || 'general';
  const value = s.slice(m.index + m[0].length).trim().replace(/[.!]+$/, '');
  return value ? { key: key.slice(0, 200), value: value.slice(0, 1000) } : null;
}

// verbs the lexicon files as nouns that open imperatives all the same
const IMPERATIVE_VERBS = new Set(['run', 'click', 'check', 'set', 'call', 'note', 'start', 'stop', 'open', 'close', 'delete', 'test', 'review', 'store', 'list', 'back', 'deploy', 'log', 'restart', 'configure', 'merge', 'push', 'pull', 'commit', 'tag', 'clean', 'press', 'select', 'type', 'enter', 'save', 'load', 'copy', 'paste', 'use', 'make', 'let']);

/** An imperative sentence: it opens with a verb in its base form (optionally after "please"). */
export function imperativeVerb(s: string): string | null {
  // the first four words are all the rule reads: the sentence is not split further
  const words = s.replace(/^please,?\s+/i, '').split(/\s+/, 5);
  const first = words[0]?.replace(/[^\p{L}'-]/gu, '').toLowerCase();
  if (!first || words.length < 2) return null;
  if (IMPERATIVE_VERBS.has(first) || hasTag(first, 'Infinitive', 'Imperative')) {
    if (hasTag(first, 'Modal', 'Copula', 'Pronoun', 'Determiner')) return null;
    return words.slice(0, Math.min(words.length, 4)).join(' ').replace(/[.!,;:]+$/, '');
  }
  return null;
}

/** A number the sentence states (digits, possibly with a decimal part). */
export const holdsNumber = (s: string): boolean => /\d/.test(s);
