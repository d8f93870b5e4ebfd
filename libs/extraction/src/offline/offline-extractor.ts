import { normaliseText } from '@strata/domain/catalogue';
import { Layer } from '@strata/domain/records';
import { ChunkExtractionInput, ExtractedNode, Extractor, LayerOutcome, OFFLINE_CONFIDENCE } from '../extractor.port';
import { findDate } from './date-expressions';
import { NamedEntity, findNamedEntities } from './named-entities';
import { recurringNounPhrases } from './noun-phrases';
import { imperativeVerb, holdsNumber, isDecision, isGoal, isHedged, isQuestion, preferenceOf } from './sentence-kinds';
import { Sentence, splitSentences } from './sentences';

const LABEL_MAX = 300;

function cut(s: string, max = LABEL_MAX): string {
  // no more UTF-16 units than the limit: no more code points either
  if (s.length <= max) return s;
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max - 1).join('') + '…';
}

function node(node_type: string, label: string, props: Record<string, unknown>, quote: string): ExtractedNode {
  return { node_type, label: cut(label), props, quote, confidence: OFFLINE_CONFIDENCE };
}

/** What every pass over one chunk shares: sentences and named entities are found once. */
interface ChunkReading {
  content: string;
  sentences: Sentence[];
  entities: NamedEntity[];
}

type Pass = (r: ChunkReading) => ExtractedNode[];

function reality(r: ChunkReading): ExtractedNode[] {
  const out: ExtractedNode[] = [];
  for (const e of r.entities) out.push(node(e.node_type, e.text, e.node_type === 'Person' ? { full_name: e.text } : {}, e.text));
  for (const s of r.sentences) {
    if (isQuestion(s.text)) continue;
    const d = findDate(s.text);
    if (d) out.push(node('Event', s.text, { event_date: d.iso, description: s.text }, s.text));
  }
  const named = new Set(r.entities.map((e) => normaliseText(e.text)));
  for (const p of recurringNounPhrases(r.content)) {
    const norm = normaliseText(p.text);
    if (!norm || named.has(norm)) continue;
    out.push(node('Concept', p.text, { name: p.text }, p.text));
  }
  return out;
}

function epistemic(r: ChunkReading): ExtractedNode[] {
  const out: ExtractedNode[] = [];
  for (const s of r.sentences) {
    const t = s.text;
    if (isQuestion(t)) out.push(node('Question', t, { text: t }, t));
    else if (isHedged(t)) out.push(node('Hypothesis', t, { statement: t, status: 'proposed' }, t));
    else if (!imperativeVerb(t) && (holdsNumber(t) || r.entities.some((e) => e.index >= s.start && e.index < s.end))) out.push(node('Claim', t, { content: t }, t));
  }
  return out;
}

function intent(r: ChunkReading): ExtractedNode[] {
  const out: ExtractedNode[] = [];
  for (const s of r.sentences) {
    const t = s.text;
    if (isQuestion(t)) continue;
    if (isGoal(t)) out.push(node('Goal', t, { description: t, status: 'active' }, t));
    else if (isDecision(t)) out.push(node('Decision', t, { question: t, status: 'decided' }, t));
  }
  return out;
}

function action(r: ChunkReading): ExtractedNode[] {
  const out: ExtractedNode[] = [];
  for (const s of r.sentences) {
    if (isQuestion(s.text)) continue;
    const verb = imperativeVerb(s.text);
    if (verb) out.push(node('Affordance', s.text, { action_name: verb, description: s.text }, s.text));
  }
  return out;
}

function memory(r: ChunkReading): ExtractedNode[] {
  const out: ExtractedNode[] = [];
  for (const s of r.sentences) {
    if (isQuestion(s.text)) continue;
    const p = preferenceOf(s.text);
    if (p) out.push(node('Preference', s.text, { key: p.key, value: p.value, explicit: true }, s.text));
  }
  return out;
}

const PASSES: Partial<Record<Layer, Pass>> = { reality, epistemic, intent, action, memory };

/**
 * The `offline` provider (REFERENCE §9.6): deterministic rules over compromise's English
 * model, no network. Per layer: reality — Person, Organization, Place, Event (a sentence with
 * an absolute date), Concept (a noun phrase met twice); epistemic — Question, Hypothesis
 * (hedged), Claim (names an entity or holds a number); intent — Goal, Decision; action —
 * Affordance (imperative); memory — Preference. Layers it has no rules for (agent, ontology)
 * are passes that fail, named in the chunk's `errors`.
 */
export class OfflineExtractor implements Extractor {
  readonly method = 'offline' as const;

  async extract(input: ChunkExtractionInput): Promise<LayerOutcome[]> {
    const sentences = splitSentences(input.content);
    const people = (input.context?.participants ?? []).map((p) => p.name).filter(Boolean);
    const reading: ChunkReading = { content: input.content, sentences, entities: findNamedEntities(input.content, sentences, people) };
    // a sentence is often both an Event and a Claim: its label is normalised once for the chunk
    const norms = new Map<string, string>();
    return input.layers.map((layer) => {
      const pass = PASSES[layer];
      if (!pass) return { layer, error: `the offline extractor has no ${layer} pass` };
      return { layer, nodes: dedupeWithin(pass(reading), norms) };
    });
  }
}

/**
 * One node per type and normalised label within a pass: the first mention is kept. Each kept
 * node carries its normalised label, which deduplication against the graph needs again.
 */
function dedupeWithin(nodes: ExtractedNode[], norms: Map<string, string>): ExtractedNode[] {
  const seen = new Set<string>();
  const out: ExtractedNode[] = [];
  for (const n of nodes) {
    let norm = norms.get(n.label);
    if (norm === undefined) norms.set(n.label, (norm = normaliseText(n.label)));
    const key = `${n.node_type}:${norm}`;
    if (seen.has(key)) continue;
    seen.add(key);
    n.norm = norm;
    out.push(n);
  }
  return out;
}
