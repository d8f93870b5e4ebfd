import { NODE_TYPE_NAME_RE, canonicalNodeTypeName } from '../catalogue';
import { Errors } from '../errors';
import { assertLayer } from '../graph/node-decider';
import { Layer } from '../records';
import { Body, present, readBoolean, readNumber, readStringArray, readUnit } from '../validation';

/** Salience decay (REFERENCE §7.2). */

export const DEFAULT_HALF_LIFE_SECS = 86_400;
/** `below_threshold` uses this when the request has no `min_salience`. */
export const DEFAULT_BELOW_THRESHOLD = 0.1;
export const AUTO_TOMBSTONE_REASON = 'auto_tombstone: low salience';

export interface DecayRequest {
  half_life_secs: number;
  /** null when absent: then auto-tombstone does not run */
  min_salience: number | null;
  min_age_secs: number | null;
  layer: Layer | null;
  /** canonical type names; null = every type */
  node_types: string[] | null;
  dry_run: boolean;
}

/** Reads and validates a `/decay` (or `/evolve decay`) body; every failure is a 400 naming the field. */
export function readDecayRequest(body: Body): DecayRequest {
  const half = readNumber(body, 'half_life_secs', { min: 0, exclusiveMin: true }) ?? DEFAULT_HALF_LIFE_SECS;
  const minField = present(body, 'min_salience') ? 'min_salience' : 'auto_tombstone_threshold';
  const minSalience = readUnit(body, minField) ?? null;
  const minAge = readNumber(body, 'min_age_secs', { min: 0 }) ?? null;
  const layer = present(body, 'layer') ? assertLayer(body.layer) : null;
  const types = readStringArray(body, 'node_types', { single: true, max: 100 });
  let nodeTypes: string[] | null = null;
  if (types !== undefined) {
    types.forEach((t, i) => {
      if (!NODE_TYPE_NAME_RE.test(t)) throw Errors.invalidField(`node_types[${i}]`, `node_types[${i}] is not a valid type name`);
    });
    if (types.length) nodeTypes = [...new Set(types.map(canonicalNodeTypeName))];
  }
  const dryRun = readBoolean(body, 'dry_run') ?? false;
  return { half_life_secs: half, min_salience: minSalience, min_age_secs: minAge, layer, node_types: nodeTypes, dry_run: dryRun };
}

/** `s · 0.5^(elapsed / half_life)`, clamped to 0..1. */
export function decayedSalience(salience: number, elapsedSecs: number, halfLifeSecs: number): number {
  const s = salience * Math.pow(0.5, elapsedSecs / halfLifeSecs);
  return Math.min(1, Math.max(0, s));
}

/** What decay needs to know about one live node. */
export interface DecayCandidate {
  uid: string;
  salience: number;
  created_at: number;
  updated_at: number;
  last_decayed_at: number | null;
}

export interface NodeDecayDecision {
  /** salience after decay (the old one when nothing elapsed) */
  salience: number;
  /** salience moved: recorded, counted in nodes_decayed */
  changed: boolean;
  below_threshold: boolean;
  auto_tombstone: boolean;
}

/**
 * Decides decay for one live node at `now`. Time counts from the later of the last versioned
 * change and the last decay, so repeated decays never decay the same interval twice.
 */
export function decideNodeDecay(n: DecayCandidate, req: DecayRequest, now: number): NodeDecayDecision {
  const since = Math.max(n.updated_at, n.last_decayed_at ?? Number.NEGATIVE_INFINITY);
  const elapsed = now - since;
  const salience = elapsed > 0 ? decayedSalience(n.salience, elapsed, req.half_life_secs) : n.salience;
  const threshold = req.min_salience ?? DEFAULT_BELOW_THRESHOLD;
  const below = salience < threshold;
  const autoTombstone =
    req.min_salience !== null && req.min_age_secs !== null && salience < req.min_salience && n.created_at <= now - req.min_age_secs;
  return { salience, changed: salience !== n.salience, below_threshold: below, auto_tombstone: autoTombstone };
}

/** Auto-tombstone runs only when both `min_salience` and `min_age_secs` are given. */
export function autoTombstoneEnabled(req: DecayRequest): boolean {
  return req.min_salience !== null && req.min_age_secs !== null;
}
