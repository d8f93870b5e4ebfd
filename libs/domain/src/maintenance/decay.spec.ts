import {
  AUTO_TOMBSTONE_REASON,
  DecayCandidate,
  DecayRequest,
  autoTombstoneEnabled,
  decayedSalience,
  decideNodeDecay,
  readDecayRequest,
} from './decay';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';


const NOW = 1_700_000_000;
const DAY = 86_400;
const req = (body: Record<string, unknown> = {}): DecayRequest => readDecayRequest(body);
const node = (over: Partial<DecayCandidate> = {}): DecayCandidate => ({
  uid: 'n1',
  salience: 0.8,
  created_at: NOW - 10 * DAY,
  updated_at: NOW - DAY,
  last_decayed_at: null,
  ...over,
});

describe('readDecayRequest (REFERENCE §7.2)', () => {
  it('defaults: one-day half-life, no threshold, no minimum age, whole graph, not a dry run', () => {
    expect(req()).toEqual({ half_life_secs: DAY, min_salience: null, min_age_secs: null, layer: null, node_types: null, dry_run: false });
  });

  it('accepts auto_tombstone_threshold as an alias of min_salience', () => {
    expect(req({ auto_tombstone_threshold: 0.2 }).min_salience).toBe(0.2);
    expect(req({ min_salience: 0.3, auto_tombstone_threshold: 0.2 }).min_salience).toBe(0.3);
  });

  it('canonicalises node_types given as a list or a comma-separated string', () => {
    expect(req({ node_types: ['claim', 'open_question'] }).node_types).toEqual(['Claim', 'OpenQuestion']);
    expect(req({ node_types: 'Claim,Goal' }).node_types).toEqual(['Claim', 'Goal']);
  });

  it.each([
    [{ half_life_secs: 0 }, 'half_life_secs'],
    [{ half_life_secs: -5 }, 'half_life_secs'],
    [{ half_life_secs: '10' }, 'half_life_secs'],
    [{ min_salience: 1.5 }, 'min_salience'],
    [{ auto_tombstone_threshold: -0.1 }, 'auto_tombstone_threshold'],
    [{ min_age_secs: -1 }, 'min_age_secs'],
    [{ layer: 'nowhere' }, 'layer'],
    [{ node_types: [1] }, 'node_types'],
    [{ node_types: ['1bad'] }, 'node_types[0]'],
    [{ dry_run: 'yes' }, 'dry_run'],
  ])('rejects %j with 400 invalid_field naming %s', (body, field) => {
    const e = errorOf(() => req(body));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_field');
    expect(e.context.field).toBe(field);
  });

  it('runs auto-tombstone only when both min_salience and min_age_secs are given', () => {
    expect(autoTombstoneEnabled(req({ min_salience: 0.2 }))).toBe(false);
    expect(autoTombstoneEnabled(req({ min_age_secs: 0 }))).toBe(false);
    expect(autoTombstoneEnabled(req({ min_salience: 0.2, min_age_secs: 0 }))).toBe(true);
  });
});

describe('decayedSalience', () => {
  it('halves salience once per half-life', () => {
    expect(decayedSalience(0.8, DAY, DAY)).toBeCloseTo(0.4, 12);
    expect(decayedSalience(0.8, 2 * DAY, DAY)).toBeCloseTo(0.2, 12);
    expect(decayedSalience(0.8, DAY / 2, DAY)).toBeCloseTo(0.8 * Math.SQRT1_2, 12);
  });

  it('stays within 0..1', () => {
    expect(decayedSalience(1, 0, DAY)).toBe(1);
    expect(decayedSalience(0.5, 1e12, 1)).toBe(0);
  });
});

describe('decideNodeDecay', () => {
  it('decays from updated_at when the node was never decayed', () => {
    const d = decideNodeDecay(node({ updated_at: NOW - DAY }), req(), NOW);
    expect(d.salience).toBeCloseTo(0.4, 12);
    expect(d.changed).toBe(true);
  });

  it('decays from the last decay when that is later than updated_at, so no interval counts twice', () => {
    const d = decideNodeDecay(node({ updated_at: NOW - 3 * DAY, last_decayed_at: NOW - DAY }), req(), NOW);
    expect(d.salience).toBeCloseTo(0.4, 12);
  });

  it('decays from updated_at when a versioned change came after the last decay', () => {
    const d = decideNodeDecay(node({ updated_at: NOW - DAY, last_decayed_at: NOW - 3 * DAY }), req(), NOW);
    expect(d.salience).toBeCloseTo(0.4, 12);
  });

  it('leaves a node alone when no time has passed (or its timestamps are in the future)', () => {
    expect(decideNodeDecay(node({ updated_at: NOW }), req(), NOW)).toMatchObject({ salience: 0.8, changed: false });
    expect(decideNodeDecay(node({ updated_at: NOW + 50 }), req(), NOW)).toMatchObject({ salience: 0.8, changed: false });
  });

  it('does not count a zero salience as decayed', () => {
    expect(decideNodeDecay(node({ salience: 0 }), req(), NOW).changed).toBe(false);
  });

  it('counts below_threshold against min_salience, or 0.1 without it', () => {
    expect(decideNodeDecay(node({ salience: 0.15 }), req(), NOW).below_threshold).toBe(true); // 0.075 < 0.1
    expect(decideNodeDecay(node({ salience: 0.3 }), req(), NOW).below_threshold).toBe(false); // 0.15
    expect(decideNodeDecay(node({ salience: 0.3 }), req({ min_salience: 0.2 }), NOW).below_threshold).toBe(true);
  });

  it('auto-tombstones below min_salience only when the node is at least min_age_secs old', () => {
    const r = req({ min_salience: 0.5, min_age_secs: 5 * DAY });
    expect(decideNodeDecay(node({ created_at: NOW - 6 * DAY }), r, NOW).auto_tombstone).toBe(true);
    expect(decideNodeDecay(node({ created_at: NOW - 5 * DAY }), r, NOW).auto_tombstone).toBe(true); // created_at ≤ now − age
    expect(decideNodeDecay(node({ created_at: NOW - 4 * DAY, updated_at: NOW - DAY }), r, NOW).auto_tombstone).toBe(false);
    expect(decideNodeDecay(node({ salience: 1 }), r, NOW).auto_tombstone).toBe(false); // 0.5 is not below 0.5
  });

  it('never auto-tombstones without both min_salience and min_age_secs', () => {
    expect(decideNodeDecay(node({ salience: 0.01 }), req({ min_salience: 0.5 }), NOW).auto_tombstone).toBe(false);
    expect(decideNodeDecay(node({ salience: 0.01 }), req({ min_age_secs: 0 }), NOW).auto_tombstone).toBe(false);
  });

  it('uses the REFERENCE wording for the tombstone reason', () => {
    expect(AUTO_TOMBSTONE_REASON).toBe('auto_tombstone: low salience');
  });
});
