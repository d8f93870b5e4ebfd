import { FixedClock } from '@strata/domain/time';
import { expectError, link, mk, newOrg, startRetrieval, RetrievalFixture } from './retrieval-fixture';

describe('POST /evolve', () => {
  /** the service's clock: tests move it instead of waiting */
  const clock = new FixedClock();
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval({ clock });
  });
  afterAll(() => f.close());
  const evolve = (body: Record<string, unknown>) => f.w.post('/evolve', body);

  it('update: fields and a validated props_patch, one version each time, default reason', async () => {
    const n = await mk(f.w, 'Claim', 'Water boils at 100 C', { props: { content: 'at sea level' } });
    const r = await evolve({ action: 'update', uid: n, label: 'Water boils at 100 °C', confidence: 0.9, props_patch: { truth_status: 'accepted' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ uid: n, version: 2, label: 'Water boils at 100 °C', confidence: 0.9, props: { content: 'at sea level', truth_status: 'accepted' } });
    const touch = await evolve({ action: 'update', uid: n, reason: 'revalidated', expected_version: 2 });
    expect(touch.body.version).toBe(3);
    const hist = (await evolve({ action: 'history', uid: n })).body;
    expect(hist.map((h: any) => [h.version, h.change_type, h.change_reason])).toEqual([
      [1, 'create', null],
      [2, 'update', 'updated via /evolve'],
      [3, 'update', 'revalidated'],
    ]);
    expectError(await evolve({ action: 'update', uid: n, props_patch: { bogus: true } }), 422, 'unknown_props_fields');
    expectError(await evolve({ action: 'update', uid: n, expected_version: 1 }), 409, 'version_conflict');
    expect((await f.w.get(`/node/${n}`)).body.version).toBe(3);
  });

  it('tombstone (with and without cascade), tombstone_cascade and restore bring edges back', async () => {
    const a = await mk(f.w, 'Claim', 'A');
    const b = await mk(f.w, 'Claim', 'B');
    const c = await mk(f.w, 'Claim', 'C');
    const ab = await link(f.w, a, b, 'Supports');
    const ac = await link(f.w, a, c, 'Supports');
    const plain = await evolve({ action: 'tombstone', uid: b, reason: 'wrong' });
    expect(plain.body).toEqual({ uid: b, action: 'tombstone', version: 2, edges_tombstoned: 0 });
    expect((await f.w.get(`/edges?from_uid=${a}`)).body.map((e: any) => e.uid).sort()).toEqual([ab, ac].sort());
    const again = await evolve({ action: 'tombstone', uid: b });
    expect(again.body).toMatchObject({ version: 2, edges_tombstoned: 0 });
    const restoredB = await evolve({ action: 'restore', uid: b });
    expect(restoredB.body).toEqual({ uid: b, action: 'restore', version: 3, edges_restored: 0 });

    const casc = await evolve({ action: 'tombstone_cascade', uid: a });
    expect(casc.body).toEqual({ uid: a, action: 'tombstone_cascade', version: 2, edges_tombstoned: 2 });
    const restored = await evolve({ action: 'restore', uid: a, reason: 'oops' });
    expect(restored.body).toEqual({ uid: a, action: 'restore', version: 3, edges_restored: 2 });
    expect((await evolve({ action: 'restore', uid: a })).body).toMatchObject({ version: 3, edges_restored: 0 });
    const viaFlag = await evolve({ action: 'tombstone', uid: c, cascade: true });
    expect(viaFlag.body.edges_tombstoned).toBe(1);
    expectError(await evolve({ action: 'update', uid: c, label: 'C2' }), 409, 'tombstoned');
  });

  it('tombstone_edge and restore_edge; restoring needs both endpoints live', async () => {
    const a = await mk(f.w, 'Claim', 'E1');
    const b = await mk(f.w, 'Claim', 'E2');
    const e = await link(f.w, a, b, 'Supports');
    expect((await evolve({ action: 'tombstone_edge', uid: e, reason: 'noise' })).body).toEqual({ uid: e, action: 'tombstone_edge', version: 2 });
    expect((await evolve({ action: 'tombstone_edge', uid: e })).body.version).toBe(2);
    await evolve({ action: 'tombstone', uid: b });
    expectError(await evolve({ action: 'restore_edge', uid: e }), 409, 'tombstoned');
    await evolve({ action: 'restore', uid: b });
    expect((await evolve({ action: 'restore_edge', uid: e })).body).toEqual({ uid: e, action: 'restore_edge', version: 3 });
    expectError(await evolve({ action: 'tombstone_edge', uid: a }), 404, 'not_found');
  });

  it('history and snapshot', async () => {
    const n = await mk(f.w, 'Goal', 'Ship v1');
    await evolve({ action: 'update', uid: n, label: 'Ship v2' });
    const snap = await evolve({ action: 'snapshot', uid: n, version: 1 });
    expect(snap.status).toBe(200);
    expect(snap.body).toMatchObject({ uid: n, label: 'Ship v1', version: 1 });
    const missing = await evolve({ action: 'snapshot', uid: n, version: 9 });
    expectError(missing, 404, 'not_found');
    expect(missing.body.error).toBe(`node ${n} version 9 not found`);
    expectError(await evolve({ action: 'snapshot', uid: n }), 400, 'missing_field', 'version');
    expectError(await evolve({ action: 'snapshot', uid: n, version: 0 }), 400, 'invalid_field', 'version');
    expect((await f.ro.post('/evolve', { action: 'history', uid: n })).status).toBe(200);
  });

  it('decay moves a node among search hits tied on score (the text index follows salience)', async () => {
    const tied = [await mk(f.w, 'Claim', 'Wombat burrow', { salience: 0.8 }), await mk(f.w, 'Claim', 'Wombat burrow', { salience: 0.8 }), await mk(f.w, 'Claim', 'Wombat burrow', { salience: 0.8 })];
    const search = async (limit: number, offset = 0) => ((await f.w.post('/search', { query: 'wombat burrow', limit, offset })).body as { uid: string }[]).map((r) => r.uid);
    expect(await search(3)).toEqual([...tied].sort());
    const first = [...tied].sort()[0];
    clock.advance(1.1);
    expect((await evolve({ action: 'decay', uid: first, half_life_secs: 1 })).status).toBe(200);
    const rest = tied.filter((u) => u !== first).sort();
    expect(await search(3)).toEqual([...rest, first]);
    expect(await search(1)).toEqual([rest[0]]);
    expect(await search(1, 2)).toEqual([first]);
  });

  it('decay: one node with a uid, the whole graph without; salience only, no version', async () => {
    const n = await mk(f.w, 'Claim', 'Fading memory', { salience: 0.8 });
    const other = await mk(f.w, 'Claim', 'Another memory', { salience: 0.8 });
    clock.advance(1.1);
    const one = await evolve({ action: 'decay', uid: n, half_life_secs: 1 });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ nodes_decayed: 1, auto_tombstoned: null });
    const after = (await f.w.get(`/node/${n}`)).body;
    expect(after.salience).toBeLessThan(0.45);
    expect(after.version).toBe(1);
    expect((await f.w.get(`/node/${other}`)).body.salience).toBe(0.8);
    const all = await evolve({ action: 'decay', half_life_secs: 1 });
    expect(all.status).toBe(200);
    expect(all.body.nodes_decayed).toBeGreaterThanOrEqual(1);
    expect((await f.w.get(`/node/${other}`)).body.salience).toBeLessThan(0.45);
    expectError(await evolve({ action: 'decay', uid: n, half_life_secs: 0 }), 400, 'invalid_field', 'half_life_secs');
    expectError(await evolve({ action: 'decay', uid: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found', 'uid');
  });

  it('unknown actions, missing uid, read-only keys, other organizations', async () => {
    const u = await evolve({ action: 'rewind', uid: 'x' });
    expectError(u, 400, 'unknown_action');
    expect(u.body.valid_actions).toHaveLength(9);
    expectError(await evolve({ action: 'update' }), 400, 'missing_field', 'uid');
    expectError(await evolve({ action: 'update', uid: 'not a uid' }), 400, 'invalid_uid', 'uid');
    expectError(await evolve({ action: 'restore', uid: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
    const n = await mk(f.w, 'Claim', 'Guarded');
    expectError(await f.ro.post('/evolve', { action: 'tombstone', uid: n }), 403, 'read_only_credential');
    const other = await newOrg(f.app);
    expectError(await other.w.post('/evolve', { action: 'tombstone', uid: n }), 404, 'not_found');
    expectError(await other.w.post('/evolve', { action: 'history', uid: n }), 404, 'not_found');
    expect((await f.w.get(`/node/${n}`)).body.tombstone_at).toBeNull();
  });
});
