import { governanceAuditRecord, mapStatusMemory } from '@strata/domain/audit/governance-audit';
import { FixedClock } from '@strata/domain/time';
import { EVENT_STORE, EventStore } from '@strata/event-store/event-store.port';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §13.7 (sync) and §13.8 (audit). */
describe('governance audit and sync (REFERENCE §13.7, §13.8)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('records decisions, approvals and governance changes; filters, visibility, cursors; agrees with the log', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const m = await signUp(t.url);
    await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' });
    const member = api(t.url, m.access_token, { org: owner.org_id });

    const watch = (await o.post('/v1/governance/policies', { name: 'watch claims', effect: 'deny', match: { node_types: ['Claim'] }, status: 'shadow' })).body;
    clock.advance(1);
    const gate = (await o.post('/v1/governance/policies', { name: 'gate lessons', effect: 'require_approval', match: { node_types: ['Lesson'] }, status: 'published' })).body;
    clock.advance(1);
    expect((await member.post('/node', { label: 'claim', node_type: 'Claim' })).status).toBe(201);
    const ask = (await member.post('/node', { label: 'lesson', node_type: 'Lesson' })).body.approval_uid;
    await o.post('/agent/governance', { action: 'resolve_approval', approval_uid: ask, approved: true });
    expect((await member.post('/node', { label: 'lesson', node_type: 'Lesson' }, { headers: { 'x-approval-uid': ask } })).status).toBe(201);
    // nothing matches: no record
    await member.post('/node', { label: 'concept', node_type: 'Concept' });

    const all = await o.get('/v1/governance/audit');
    expect(all.status).toBe(200);
    const kinds = all.body.items.map((r: { kind: string }) => r.kind);
    expect(kinds).toEqual([
      'policy_decision', // the replay, allowed by its approval
      'approval_consumed',
      'approval_resolved',
      'policy_decision', // require_approval
      'approval_requested',
      'policy_decision', // shadow deny on the claim
      'governance_change',
      'governance_change',
    ]);
    expect(all.body).toMatchObject({ has_more: false, limit: 50, next_cursor: null });
    const shadowed = all.body.items[5];
    expect(shadowed).toMatchObject({
      event_type: 'PolicyDecisionRecorded',
      principal: { kind: 'user', id: m.user_id },
      method: 'POST',
      route: '/node',
      decision: { effect: 'allow', enforced: false, policy_uids: [], shadow: [{ policy_uid: watch.uid, effect: 'deny' }] },
    });
    expect(all.body.items[3]).toMatchObject({ subject_uid: ask, decision: { effect: 'require_approval', enforced: true, policy_uids: [gate.uid] } });
    expect(all.body.items[2]).toMatchObject({ kind: 'approval_resolved', subject_uid: ask, status: 'approved', principal: { id: owner.user_id } });
    expect(all.body.items[6]).toMatchObject({ kind: 'governance_change', event_type: 'PolicyCreated', subject_uid: gate.uid, status: 'published' });
    const positions = all.body.items.map((r: { position: number }) => r.position);
    expect([...positions].sort((a, b) => b - a)).toEqual(positions);

    // filters
    const q = async (query: string) => (await o.get(`/v1/governance/audit?${query}`)).body;
    expect((await q(`policy_uid=${watch.uid}`)).items.map((r: { kind: string }) => r.kind)).toEqual(['policy_decision']);
    expect((await q('kind=approval_requested,approval_resolved&order=asc')).items.map((r: { kind: string }) => r.kind)).toEqual(['approval_requested', 'approval_resolved']);
    expect((await q('decision=require_approval')).items).toHaveLength(1);
    expect((await q('enforced=false')).items).toHaveLength(1);
    expect((await q(`target_uid=${ask}`)).items.map((r: { kind: string }) => r.kind)).toEqual(['policy_decision', 'approval_consumed', 'approval_resolved', 'policy_decision', 'approval_requested']);
    expect((await q(`principal=${owner.user_id}`)).items).toHaveLength(3);
    expect((await q('since=2030-01-01T00:00:02Z')).items).toHaveLength(6);
    expect((await q('until=2030-01-01T00:00:01Z')).items).toHaveLength(1);
    for (const bad of ['kind=nope', 'decision=maybe', 'order=sideways', 'since=yesterday', 'limit=0', 'limit=-1', 'limit=2.5', 'enforced=perhaps'])
      expect([bad, (await o.get(`/v1/governance/audit?${bad}`)).body.code]).toEqual([bad, 'invalid_field']);
    // a limit above the maximum (500) is clamped, and the echo shows the clamped value (REFERENCE §1.9)
    const clamped = await o.get('/v1/governance/audit?limit=5000');
    expect([clamped.status, clamped.body.limit, clamped.body.items.length]).toEqual([200, 500, positions.length]);

    // cursors walk the same records, bound to their filters
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { position: number }[]; next_cursor: string | null; has_more: boolean } = await q(`limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.items.map((r) => r.position));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(positions);
    const firstPage = await q('limit=3');
    expect((await o.get(`/v1/governance/audit?limit=3&kind=policy_decision&cursor=${firstPage.next_cursor}`)).body.code).toBe('invalid_cursor');
    expect((await o.get(`/v1/governance/audit?order=asc&limit=3&cursor=${firstPage.next_cursor}`)).body.code).toBe('invalid_cursor');
    expect((await o.get('/v1/governance/audit?cursor=garbage')).body.code).toBe('invalid_cursor');
    // one bound to the right filters but carrying no position of ours is not a cursor we gave either
    const given = JSON.parse(Buffer.from(firstPage.next_cursor, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...given, k: 'later' })).toString('base64url');
    const refused = await o.get(`/v1/governance/audit?limit=3&cursor=${forged}`);
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_cursor']);

    // a member sees only its own records
    const mine = (await member.get('/v1/governance/audit')).body.items;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r: { principal: { id: string } }) => r.principal.id === m.user_id)).toBe(true);
    expect((await member.get(`/v1/governance/audit?principal=${owner.user_id}`)).body.items).toEqual([]);
    expect((await api(t.url, (await createApiKey(t.url, owner.access_token)).key).get('/v1/governance/audit')).body.code).toBe('api_key_not_allowed');

    // the log, read from the start through the same derivation as `strata audit replay --governance`, gives the same records
    const log = t.app.get<EventStore>(EVENT_STORE);
    const memory = mapStatusMemory();
    const fromLog = [];
    for (let after = 0; ; ) {
      const page = await log.readAll({ after, limit: 1000 });
      for (const e of page) {
        const r = governanceAuditRecord(e, memory);
        if (r && e.metadata.org_id === owner.org_id) fromLog.push(r);
      }
      if (page.length < 1000) break;
      after = page[page.length - 1].position;
    }
    expect((await q('order=asc&limit=500')).items).toEqual(fromLog);
  });

  it('sync mirrors policies as Policy nodes with GovernedByPolicy edges; idempotent; drift and pending show in settings', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Legal', node_type: 'Space' })).body.uid;
    expect((await o.get('/v1/governance/settings')).body.sync.status).toBe('never');
    const pub = (await o.post('/v1/governance/policies', { name: 'legal is read-only for agents', effect: 'deny', match: { principals: ['agent:*', 'role:viewer'], spaces: [space] }, status: 'published' })).body;
    const draft = (await o.post('/v1/governance/policies', { name: 'draft', effect: 'deny', match: { layers: ['memory'] } })).body;

    const first = await o.post('/v1/governance/sync', {});
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ policies: 1, nodes_created: 1, nodes_updated: 0, nodes_tombstoned: 0, edges_created: 1, edges_tombstoned: 0 });
    expect(first.body.sync).toMatchObject({ status: 'in_sync', pending_policies: 0, drifted_nodes: 0, last_synced_by: owner.user_id });
    const mirror = (await o.get(`/node/${pub.uid}`)).body;
    expect(mirror).toMatchObject({ node_type: 'Policy', layer: 'agent', label: 'legal is read-only for agents' });
    expect(mirror.props).toMatchObject({ policy_type: 'governance', applies_to: 'agent:*, role:viewer', active: true, priority: 0 });
    expect(JSON.parse(mirror.props.rules[0])).toEqual({ effect: 'deny', match: pub.match });
    expect((await o.get(`/node/${draft.uid}`)).status).toBe(404);
    const edges = (await o.get(`/edges?to_uid=${pub.uid}`)).body;
    const list = Array.isArray(edges) ? edges : edges.items;
    expect(list.map((e: { edge_type: string; from_uid: string }) => [e.edge_type, e.from_uid])).toEqual([['GovernedByPolicy', space]]);
    expect((await o.get('/v1/governance/policies?status=published')).body.items[0].mirrored_version).toBe(1);

    const again = await o.post('/v1/governance/sync', {});
    expect(again.body).toMatchObject({ policies: 1, nodes_created: 0, nodes_updated: 0, nodes_tombstoned: 0, edges_created: 0, edges_tombstoned: 0 });

    // an edit outside sync is drift, overwritten by the next sync
    await o.patch(`/node/${pub.uid}`, { props: { priority: 99 } });
    expect((await o.get('/v1/governance/settings')).body.sync).toMatchObject({ status: 'out_of_sync', drifted_nodes: 1 });
    expect((await o.post('/v1/governance/sync', {})).body).toMatchObject({ nodes_updated: 1, sync: { status: 'in_sync' } });
    expect((await o.get(`/node/${pub.uid}`)).body.props.priority).toBe(0);

    // a mode change flips active at the next sync; a rejected policy's mirror is tombstoned
    await o.patch('/v1/governance/settings', { mode: 'shadow' });
    expect((await o.get('/v1/governance/settings')).body.sync).toMatchObject({ status: 'out_of_sync', pending_policies: 1 });
    await o.patch(`/v1/governance/policies/${pub.uid}`, { status: 'rejected' });
    const last = await o.post('/v1/governance/sync', {});
    expect(last.body).toMatchObject({ policies: 0, nodes_tombstoned: 1, edges_tombstoned: 1, sync: { status: 'in_sync' } });
    expect((await o.get(`/node/${pub.uid}`)).body.tombstone_at).not.toBeNull();
    expect((await o.get('/v1/governance/audit?kind=governance_change')).body.items.filter((r: { event_type: string }) => r.event_type === 'GovernanceSynced')).toHaveLength(4);

    const m = await signUp(t.url);
    await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' });
    expect((await api(t.url, m.access_token, { org: owner.org_id }).post('/v1/governance/sync', {})).body.code).toBe('insufficient_role');
  });
});
