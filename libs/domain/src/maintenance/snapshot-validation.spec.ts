import { decideCreateEdge, decideCreateNode } from '../graph';
import { EdgeRecord, NodeRecord } from '../records';
import { checkReferences, parseSnapshot } from './snapshot-validation';
import { decideNodeDecay } from './decay';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';

const NOW = 1_700_000_000;
const T0 = 1_600_000_000.123;


const ctx = { now: T0, agent_id: 'agent-7', principal_id: 'u1' };
function claim(uid: string, over: Partial<NodeRecord> = {}): NodeRecord {
  return { ...decideCreateNode({ label: `claim ${uid}`, node_type: 'Claim', props: { content: 'c' } }, uid, ctx), ...over };
}
function edge(uid: string, from: NodeRecord, to: NodeRecord): EdgeRecord {
  return decideCreateEdge({ edge_type: 'Supports', weight: 0.7 }, from, to, uid, ctx);
}
const snap = (over: Record<string, unknown> = {}) => ({ format: 'strata.graph', format_version: 1, ...over });
// JSON round trip: what a client would send
const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v));

describe('parseSnapshot: format (REFERENCE §8.6)', () => {
  it.each([[2], ['1'], [null], [undefined]])('refuses format_version %j with 400 invalid_snapshot', (v) => {
    const e = errorOf(() => parseSnapshot(snap({ format_version: v }), NOW));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_snapshot');
    expect(e.context.field).toBe('format_version');
  });

  it('refuses another format name', () => {
    expect(errorOf(() => parseSnapshot(snap({ format: 'other.graph' }), NOW)).code).toBe('invalid_snapshot');
  });

  it('accepts an empty snapshot', () => {
    const p = parseSnapshot(snap(), NOW);
    expect(p).toMatchObject({ nodes: [], edges: [], aliases: [], embeddings: null, references: [] });
    expect(p.series.size).toBe(0);
  });

  it('refuses sections that are not arrays', () => {
    const e = errorOf(() => parseSnapshot(snap({ nodes: {} }), NOW));
    expect(e).toMatchObject({ status: 400, code: 'invalid_field' });
    expect(e.context.field).toBe('nodes');
  });
});

describe('parseSnapshot: nodes keep their stored state', () => {
  it('keeps uid, timestamps, version, attribution and tombstone state exactly', () => {
    const n = claim('n-1', { version: 4, updated_at: T0 + 50, salience: 0.2, tombstone_at: T0 + 60, tombstone_reason: 'old', tombstone_by: 'system' });
    const p = parseSnapshot(snap({ nodes: [wire(n)] }), NOW);
    expect(p.nodes[0]).toEqual(n);
  });

  it('keeps a Skill status and the Series cache fields a client create would reset or drop', () => {
    const skill = decideCreateNode(
      { label: 's', node_type: 'Skill', props: { name: 's', description: 'd', status: 'approved', approved_by: 'u1' } },
      'sk',
      ctx,
      { keepSkillStatus: true },
    );
    const series = { ...decideCreateNode({ label: 'gdp', node_type: 'Series', props: { metric: 'gdp' } }, 'se', ctx) };
    series.props = { ...series.props, point_count: 3, first_ts: 1, last_ts: 3, latest_value: 9, latest_ts: 3 };
    const p = parseSnapshot(snap({ nodes: [wire(skill), wire(series)] }), NOW);
    expect(p.nodes[0].props).toMatchObject({ status: 'approved', approved_by: 'u1' });
    expect(p.nodes[1].props).toMatchObject({ point_count: 3, first_ts: 1, last_ts: 3, latest_value: 9, latest_ts: 3 });
  });

  it('keeps a stored summary verbatim instead of deriving one', () => {
    const n = claim('n-1', { summary: '' });
    expect(parseSnapshot(snap({ nodes: [wire(n)] }), NOW).nodes[0].summary).toBe('');
  });

  it('fills missing timestamps and version with now and 1', () => {
    const p = parseSnapshot(snap({ nodes: [{ uid: 'x', label: 'x', node_type: 'Goal' }] }), NOW);
    expect(p.nodes[0]).toMatchObject({ created_at: NOW, updated_at: NOW, version: 1, tombstone_at: null });
  });

  it('validates props per type and names the item: unknown field → 422 with index', () => {
    const n = wire(claim('n-1')) as unknown as Record<string, unknown>;
    (n.props as Record<string, unknown>).bogus = 1;
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(claim('n-0')), n] }), NOW));
    expect(e.status).toBe(422);
    expect(e.code).toBe('unknown_props_fields');
    expect(e.context.index).toBe('nodes[1]');
    expect(e.context.unknown_fields).toEqual(['bogus']);
  });

  it.each([
    [{ uid: 'bad uid!' }, 400, 'invalid_uid'],
    [{ uid: undefined }, 400, 'missing_field'],
    [{ label: '' }, 400, 'missing_field'],
    [{ confidence: 2 }, 400, 'invalid_field'],
    [{ version: 0 }, 400, 'invalid_field'],
    [{ created_at: 'yesterday' }, 400, 'invalid_field'],
    [{ props: { content: 5 } }, 400, 'invalid_props'],
  ])('refuses a node with %j (%i %s), naming nodes[0]', (over, status, code) => {
    const n = { ...wire(claim('n-1')), ...over };
    const e = errorOf(() => parseSnapshot(snap({ nodes: [n] }), NOW));
    expect(e.status).toBe(status);
    expect(e.code).toBe(code);
    expect(e.context.index).toBe('nodes[0]');
  });

  it('refuses a node that is not an object', () => {
    const e = errorOf(() => parseSnapshot(snap({ nodes: [5] }), NOW));
    expect(e).toMatchObject({ code: 'invalid_field' });
    expect(e.context.field).toBe('nodes[0]');
  });

  it('refuses the same node uid twice', () => {
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(claim('a')), wire(claim('a'))] }), NOW));
    expect(e.code).toBe('invalid_snapshot');
    expect(e.context).toMatchObject({ index: 'nodes[1]', uid: 'a' });
  });
});

describe('parseSnapshot: the decay clock of a node (REFERENCE §7.2, §8.6; audit J3)', () => {
  const HALF = 2;
  const req = { half_life_secs: HALF, min_salience: null, min_age_secs: null, layer: null, node_types: null, dry_run: false };

  it('keeps last_decayed_at beside the record, not in it', () => {
    const n = claim('n-1', { salience: 0.2 });
    const p = parseSnapshot(snap({ nodes: [{ ...wire(n), last_decayed_at: T0 + 4 }, wire(claim('n-2'))] }), NOW);
    expect(p.nodes[0]).toEqual(n);
    expect('last_decayed_at' in p.nodes[0]).toBe(false);
    expect([...p.decay_clocks]).toEqual([['n-1', T0 + 4]]);
  });

  it('an older snapshot, or a node never decayed (absent or null), has no clock: imported as before', () => {
    const p = parseSnapshot(snap({ nodes: [wire(claim('a')), { ...wire(claim('b')), last_decayed_at: null }] }), NOW);
    expect(p.decay_clocks.size).toBe(0);
  });

  it.each([['yesterday'], [-1], [true]])('refuses last_decayed_at %j with 400 invalid_field naming the item', (v) => {
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(claim('a')), { ...wire(claim('b')), last_decayed_at: v }] }), NOW));
    expect(e).toMatchObject({ status: 400, code: 'invalid_field' });
    expect(e.context).toMatchObject({ index: 'nodes[1]', field: 'nodes[1].last_decayed_at' });
  });

  it('with the clock, the next decay of the imported node equals the source\'s; without it, it decays the same period twice', () => {
    // the audit's scenario: salience 0.8 at T0, decayed 4 s later (half-life 2 s), exported,
    // imported, and decayed again 1 s later on both sides
    const decayedAt = T0 + 4;
    const source = { uid: 'n-1', salience: 0.8, created_at: T0, updated_at: T0, last_decayed_at: null };
    const once = decideNodeDecay(source, req, decayedAt).salience;
    expect(once).toBeCloseTo(0.2, 12);
    const exported = { ...wire(claim('n-1', { salience: once })), last_decayed_at: decayedAt };
    const p = parseSnapshot(snap({ nodes: [exported] }), NOW);
    const imported = p.nodes[0];
    const later = decayedAt + 1;
    const inSource = decideNodeDecay({ ...source, salience: once, last_decayed_at: decayedAt }, req, later).salience;
    const inImport = decideNodeDecay({ ...imported, last_decayed_at: p.decay_clocks.get('n-1') ?? null }, req, later).salience;
    expect(inImport).toBe(inSource);
    expect(inSource).toBeCloseTo(0.2 * Math.SQRT1_2, 12);
    // what the import did before: the clock lost, decay counted again from updated_at
    const lost = decideNodeDecay({ ...imported, last_decayed_at: null }, req, later).salience;
    expect(lost / inSource).toBeCloseTo(0.25, 12);
  });
});

describe('parseSnapshot: edges and references', () => {
  const a = claim('a');
  const b = claim('b');

  it('keeps an edge record exactly and needs no outside reference when both ends are in the snapshot', () => {
    const e = { ...edge('e1', a, b), version: 3, tombstone_at: T0 + 1, tombstone_reason: 'cascade:a' };
    const p = parseSnapshot(snap({ nodes: [wire(a), wire(b)], edges: [wire(e)] }), NOW);
    expect(p.edges[0]).toEqual(e);
    expect(p.references).toEqual([]);
  });

  it('reports endpoints outside the snapshot as references to check against the graph', () => {
    const p = parseSnapshot(snap({ nodes: [wire(a)], edges: [wire(edge('e1', a, b))] }), NOW);
    expect(p.references).toEqual([{ uid: 'b', index: 'edges[0]', field: 'edges[0].to_uid', kind: 'node' }]);
  });

  it('validates edge props per type with the index', () => {
    const e = { ...wire(edge('e1', a, b)), props: { _type: 'Supports', nope: 1 } };
    const err = errorOf(() => parseSnapshot(snap({ nodes: [wire(a), wire(b)], edges: [e] }), NOW));
    expect(err.code).toBe('unknown_props_fields');
    expect(err.context.index).toBe('edges[0]');
  });

  it('leaves the layer to the caller when the edge has none', () => {
    const { layer, ...rest } = wire(edge('e1', a, b));
    void layer;
    expect(parseSnapshot(snap({ nodes: [wire(a), wire(b)], edges: [rest] }), NOW).edges[0].layer).toBeNull();
  });

  it('checkReferences fails on the first reference missing from the graph, with index, field and uid', () => {
    const p = parseSnapshot(snap({ edges: [wire(edge('e1', a, b))] }), NOW);
    const e = errorOf(() => checkReferences(p.references, (uid) => (uid === 'a' ? 'Claim' : null)));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_snapshot');
    expect(e.context).toMatchObject({ index: 'edges[0]', field: 'edges[0].to_uid', uid: 'b' });
    expect(() => checkReferences(p.references, () => 'Claim')).not.toThrow();
  });
});

describe('parseSnapshot: aliases, embeddings, series points', () => {
  const a = claim('a');

  it('normalises alias text and keeps one alias per (text, node), the last given', () => {
    const p = parseSnapshot(
      snap({
        nodes: [wire(a)],
        aliases: [
          { text: 'The  Claim!', canonical_uid: 'a', score: 0.4, created_at: 5 },
          { text: 'the claim', canonical_uid: 'a', score: 0.9, created_at: 6 },
        ],
      }),
      NOW,
    );
    expect(p.aliases).toEqual([{ text: 'the claim', norm: 'the claim', canonical_uid: 'a', score: 0.9, created_at: 6 }]);
  });

  it('refuses an alias score outside 0..1', () => {
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(a)], aliases: [{ text: 't', canonical_uid: 'a', score: 3 }] }), NOW));
    expect(e.code).toBe('invalid_field');
    expect(e.context.index).toBe('aliases[0]');
  });

  it('reads the embedding configuration and vectors, and checks each vector length', () => {
    const emb = { model: 'm', dimension: 2, metric: 'dot', items: [{ uid: 'a', vector: [0.5, 0.25] }] };
    expect(parseSnapshot(snap({ nodes: [wire(a)], embeddings: emb }), NOW).embeddings).toEqual({ provider: 'imported', ...emb });
    const bad = { ...emb, items: [{ uid: 'a', vector: [1, 2, 3] }] };
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(a)], embeddings: bad }), NOW));
    expect(e.code).toBe('dimension_mismatch');
    expect(e.context.index).toBe('embeddings.items[0]');
  });

  it('refuses a vector value a float32 cannot hold (it would be stored as Infinity), like a non-finite one', () => {
    const emb = { model: 'm', dimension: 2, metric: 'cosine', items: [{ uid: 'a', vector: [0.5, 1e39] }] };
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(a)], embeddings: emb }), NOW));
    expect([e.status, e.code, e.context.field, e.context.index]).toEqual([400, 'invalid_field', 'embeddings.items[0].vector', 'embeddings.items[0]']);
    expect(e.message).toMatch(/float32/);
    const max = { ...emb, items: [{ uid: 'a', vector: [-3.4028234663852886e38, 3.4028234663852886e38] }] };
    expect(parseSnapshot(snap({ nodes: [wire(a)], embeddings: max }), NOW).embeddings!.items).toEqual(max.items);
  });

  it.each([
    [{ model: 'm', dimension: 0, metric: 'cosine' }, 'embeddings.dimension'],
    [{ model: 'm', dimension: 2, metric: 'manhattan' }, 'embeddings.metric'],
    [{ dimension: 2, metric: 'cosine' }, 'embeddings.model'],
  ])('refuses an embedding configuration %j', (emb, field) => {
    expect(errorOf(() => parseSnapshot(snap({ embeddings: emb }), NOW)).context.field).toBe(field);
  });

  it('groups series points per series, one per timestamp, and needs the series to be a Series', () => {
    const series = decideCreateNode({ label: 's', node_type: 'Series', props: { metric: 'm' } }, 's1', ctx);
    const pts = [
      { series_uid: 's1', ts: 1, value: 1, recorded_at: 10 },
      { series_uid: 's1', ts: 2, value: 2, recorded_at: 10 },
      { series_uid: 's1', ts: 1, value: 3, recorded_at: 11 },
    ];
    const p = parseSnapshot(snap({ nodes: [wire(series)], series_points: pts }), NOW);
    expect(p.series.get('s1')).toEqual([
      { series_uid: 's1', ts: 1, value: 3, source_uid: null, note: null, recorded_at: 11 },
      { series_uid: 's1', ts: 2, value: 2, source_uid: null, note: null, recorded_at: 10 },
    ]);
    const e = errorOf(() => parseSnapshot(snap({ nodes: [wire(a)], series_points: [{ series_uid: 'a', ts: 1, value: 1 }] }), NOW));
    expect(e.code).toBe('invalid_snapshot');
    expect(e.context.field).toBe('series_points[0].series_uid');
  });

  it('checks an outside series reference for its type too', () => {
    const p = parseSnapshot(snap({ series_points: [{ series_uid: 'x', ts: 1, value: 1 }] }), NOW);
    expect(p.references).toEqual([{ uid: 'x', index: 'series_points[0]', field: 'series_points[0].series_uid', kind: 'series' }]);
    expect(errorOf(() => checkReferences(p.references, () => 'Claim')).code).toBe('invalid_snapshot');
    expect(() => checkReferences(p.references, () => 'Series')).not.toThrow();
  });
});
