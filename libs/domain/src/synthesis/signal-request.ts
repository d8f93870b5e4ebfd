import { NODE_TYPE_NAME_RE, canonicalNodeTypeName } from '../catalogue';
import { Errors } from '../errors';
import { Body } from '../validation';

/** The signals of `GET /synthesis/signals/{project_uid}` (REFERENCE §10), in response order. */
export const SYNTHESIS_SIGNALS = [
  'documents',
  'entity_bridges',
  'claim_hubs',
  'ranked_claim_hubs',
  'clustered_claim_hubs',
  'theory_support_gaps',
  'concept_clusters',
  'analogy_candidates',
  'dialectical_pairs',
] as const;
export type SynthesisSignal = (typeof SYNTHESIS_SIGNALS)[number];

/** The node types a hub or bridge may be, unless `target_types` names others. */
export const DEFAULT_TARGET_TYPES: readonly string[] = Object.freeze([
  'Person',
  'Organization',
  'Nation',
  'Event',
  'Place',
  'Theory',
  'Hypothesis',
  'Pattern',
  'Mechanism',
  'Model',
  'Analogy',
]);

export interface SignalsQuery {
  signals: SynthesisSignal[];
  target_types: string[];
}

/** A comma-separated list (or repeated parameter) as trimmed, non-empty names. */
function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts = (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === 'string' ? x.split(',') : [String(x)]));
  return parts.map((s) => s.trim()).filter(Boolean);
}

/** `?signals=&target_types=`: unknown signal or malformed type name → 400 `invalid_field`. */
export function readSignalsQuery(q: Body): SignalsQuery {
  const names = list(q.signals);
  let signals: SynthesisSignal[] = [...SYNTHESIS_SIGNALS];
  if (names && names.length) {
    const unknown = names.filter((n) => !(SYNTHESIS_SIGNALS as readonly string[]).includes(n));
    if (unknown.length)
      throw Errors.invalidField('signals', `unknown signal: ${unknown.join(', ')}. Valid signals: ${SYNTHESIS_SIGNALS.join(', ')}`, { allowed: [...SYNTHESIS_SIGNALS] });
    signals = SYNTHESIS_SIGNALS.filter((s) => names.includes(s));
  }
  const types = list(q.target_types);
  let target_types = [...DEFAULT_TARGET_TYPES];
  if (types && types.length) {
    target_types = types.map((t, i) => {
      if (!NODE_TYPE_NAME_RE.test(t)) throw Errors.invalidField('target_types', `target_types[${i}] is not a valid node type name`);
      return canonicalNodeTypeName(t);
    });
    target_types = [...new Set(target_types)];
  }
  return { signals, target_types };
}
