import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, SignedUp, api, createApiKey, login, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const T0 = at('2030-01-01T00:00:00Z');
const iso = (t: number) => new Date(t * 1000).toISOString();

async function node(c: Api, node_type: string, label: string, props: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await c.post('/node', { label, node_type, props, ...extra });
  if (r.status !== 201) throw new Error(`node ${node_type}: ${r.status} ${r.text}`);
  return r.body.uid;
}
async function edge(c: Api, from_uid: string, to_uid: string, edge_type: string, props: Record<string, unknown> = {}): Promise<string> {
  const r = await c.post('/edge', { from_uid, to_uid, edge_type, props });
  if (r.status !== 201) throw new Error(`edge ${edge_type}: ${r.status} ${r.text}`);
  return r.body.uid;
}

/** Every exception (all statuses) of a kind, by subject uid. */
async function byKind(c: Api, kind: string): Promise<Map<string, any>> {
  const r = await c.get(`/v1/knowledge-health/exceptions?status=open,acknowledged,resolved&kind=${kind}&limit=500`);
  expect(r.status).toBe(200);
  return new Map(r.body.items.map((x: any) => [x.subject.uid, x]));
}

describe('Knowledge Health exceptions (REFERENCE §14.2–14.3)', () => {
  let t: TestApp;
  const clock = new FixedClock(T0);
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  /** A client that signs in again once the moved clock has expired its token. */
  function client(u: SignedUp): Api {
    let token = u.access_token;
    let at = clock.now();
    const fresh = async () => {
      if (Math.abs(clock.now() - at) > 300) {
        token = (await login(t.url, u.email, u.password)).access_token;
        at = clock.now();
      }
      return api(t.url, token);
    };
    return new Proxy({} as Api, { get: (_t, method: string) => async (...args: unknown[]) => ((await fresh()) as any)[method](...args) });
  }

  /** A new organization, its times starting well after every earlier test's. */
  async function owner() {
    clock.set(Math.ceil(clock.now()) + 1_000_000);
    const u = await signUp(t.url);
    return { u, o: client(u), B: clock.now() };
  }

  it('claim_unsupported opens, is acknowledged by a Task, reopens when the Task is done, resolves, reopens, and goes with its subject', async () => {
    const { u, o, B } = await owner();
    clock.set(B + 100);
    const claim = await node(o, 'Claim', 'Prices will rise', { content: 'Prices will rise' });
    let x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({
      kind: 'claim_unsupported',
      severity: 'medium',
      status: 'open',
      subject: { uid: claim, type: 'node', node_type: 'Claim', edge_type: null, label: 'Prices will rise' },
      detail: {},
      project_uids: [],
      space_uids: [],
      task_uids: [],
      first_detected_at: iso(B + 100),
      last_changed_at: iso(B + 100),
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolution: null,
      reopen_count: 0,
    });
    const id = x.id;

    clock.set(B + 200);
    const task = await o.post('/agent/plan', { action: 'create_task', label: 'Find evidence', related_uids: [claim] });
    expect(task.status).toBe(201);
    x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({ id, status: 'acknowledged', acknowledged_at: iso(B + 200), acknowledged_by: `user:${u.user_id}`, task_uids: [task.body.uid] });

    clock.set(B + 300);
    expect((await o.post('/agent/plan', { action: 'update_status', target_uid: task.body.uid, status: 'done' })).status).toBe(200);
    x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({ id, status: 'open', acknowledged_at: null, acknowledged_by: null, task_uids: [], last_changed_at: iso(B + 300) });

    clock.set(B + 400);
    const ev = await node(o, 'Evidence', 'CPI report', { description: 'CPI up 3%' });
    const supports = await edge(o, ev, claim, 'Supports');
    x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({ id, status: 'resolved', resolved_at: iso(B + 400), resolution: 'condition_cleared', reopen_count: 0 });
    // not among the defaults (open, acknowledged)
    expect((await o.get('/v1/knowledge-health/exceptions?kind=claim_unsupported')).body.items).toEqual([]);

    clock.set(B + 500);
    expect((await o.delete(`/edge/${supports}`)).status).toBe(200);
    x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({ id, status: 'open', reopen_count: 1, resolved_at: null, resolution: null, first_detected_at: iso(B + 100), last_changed_at: iso(B + 500) });

    clock.set(B + 600);
    expect((await o.delete(`/node/${claim}`)).status).toBe(200);
    x = (await byKind(o, 'claim_unsupported')).get(claim);
    expect(x).toMatchObject({ id, status: 'resolved', resolution: 'subject_removed', resolved_at: iso(B + 600) });

    // kept 90 days after resolved_at, then gone
    clock.set(B + 600 + 90 * 86400 - 1);
    expect((await byKind(o, 'claim_unsupported')).get(claim)).toBeDefined();
    clock.set(B + 600 + 90 * 86400);
    expect((await byKind(o, 'claim_unsupported')).get(claim)).toBeUndefined();
  });

  it('a sourced claim is not unsupported; contradictions and duplicates follow their edge props and endpoints', async () => {
    const { o, B } = await owner();
    clock.set(B + 1000);
    const a = await node(o, 'Claim', 'A', { content: 'A' });
    const b = await node(o, 'Claim', 'B', { content: 'B' });
    const src = await node(o, 'Source', 'Report', { source_type: 'report', uri: 'https://example.org/r', title: 'Report' });
    await edge(o, a, src, 'DerivedFrom');
    await edge(o, b, src, 'ExtractedFrom');
    expect([...(await byKind(o, 'claim_unsupported')).values()].filter((x) => x.status !== 'resolved')).toEqual([]);

    clock.set(B + 1100);
    const con = await edge(o, a, b, 'Contradicts', { description: 'opposite' });
    let x = (await byKind(o, 'contradiction_unresolved')).get(con);
    expect(x).toMatchObject({ status: 'open', severity: 'medium', subject: { uid: con, type: 'edge', node_type: null, edge_type: 'Contradicts', label: null }, detail: { from_uid: a, to_uid: b }, first_detected_at: iso(B + 1100) });
    // a Task Targeting either endpoint acknowledges an edge subject
    clock.set(B + 1150);
    const task = await o.post('/agent/plan', { action: 'create_task', label: 'Settle it', related_uids: [b] });
    expect((await byKind(o, 'contradiction_unresolved')).get(con)).toMatchObject({ status: 'acknowledged', task_uids: [task.body.uid], acknowledged_at: iso(B + 1150) });
    clock.set(B + 1200);
    expect((await o.patch(`/edge/${con}`, { props: { resolution_status: 'resolved' } })).status).toBe(200);
    expect((await byKind(o, 'contradiction_unresolved')).get(con)).toMatchObject({ status: 'resolved', resolution: 'condition_cleared', resolved_at: iso(B + 1200) });
    clock.set(B + 1300);
    expect((await o.patch(`/edge/${con}`, { props: { resolution_status: 'unresolved' } })).status).toBe(200);
    // reopened: acknowledgement cleared, then the still-pending Task acknowledges it again
    x = (await byKind(o, 'contradiction_unresolved')).get(con);
    expect(x).toMatchObject({ status: 'acknowledged', reopen_count: 1, acknowledged_at: iso(B + 1300), resolved_at: null });

    clock.set(B + 1400);
    const dup = await edge(o, b, a, 'PossibleDuplicate', { similarity: 0.93, method: 'fuzzy' });
    expect((await byKind(o, 'duplicate_pending')).get(dup)).toMatchObject({ status: 'acknowledged', severity: 'low', detail: { from_uid: b, to_uid: a, similarity: 0.93 } });
    clock.set(B + 1500);
    // an endpoint going away clears the condition (the edge itself is the subject)
    expect((await o.delete(`/node/${a}`)).status).toBe(200);
    const gone = (await byKind(o, 'duplicate_pending')).get(dup);
    expect(gone).toMatchObject({ status: 'resolved', resolved_at: iso(B + 1500) });
  });

  it('approval_overdue opens at requested_at + approval_deadline_hours as time passes, and resolves when decided', async () => {
    const { o, B } = await owner();
    clock.set(B + 2000);
    const r = await o.post('/agent/governance', { action: 'request_approval', label: 'Ship it?' });
    expect(r.status).toBe(201);
    const ap = r.body.uid;
    expect((await byKind(o, 'approval_overdue')).get(ap)).toBeUndefined();
    clock.set(B + 2000 + 72 * 3600 - 1);
    expect((await byKind(o, 'approval_overdue')).get(ap)).toBeUndefined();
    clock.set(B + 2000 + 72 * 3600);
    const x = (await byKind(o, 'approval_overdue')).get(ap);
    expect(x).toMatchObject({ status: 'open', severity: 'high', detail: { requested_at: iso(B + 2000), deadline_at: iso(B + 2000 + 72 * 3600) }, first_detected_at: iso(B + 2000 + 72 * 3600) });
    const summary = (await o.get('/v1/knowledge-health/summary')).body;
    expect(summary.exceptions.by_kind.approval_overdue).toEqual({ severity: 'high', open: 1, acknowledged: 0 });
    expect(summary.state).toBe('attention');
    expect(summary.reasons).toContainEqual({ metric: 'high_severity_exceptions', value: 1, threshold: 1, level: 'attention' });

    clock.set(B + 2000 + 80 * 3600);
    expect((await o.post('/agent/governance', { action: 'resolve_approval', approval_uid: ap, approved: true })).status).toBe(200);
    expect((await byKind(o, 'approval_overdue')).get(ap)).toMatchObject({ id: x.id, status: 'resolved', resolution: 'condition_cleared', resolved_at: iso(B + 2000 + 80 * 3600), first_detected_at: iso(B + 2000 + 72 * 3600) });

    // the deadline is the organization's setting
    clock.set(B + 3000 * 3600);
    const late = (await o.post('/agent/governance', { action: 'request_approval', label: 'Another' })).body.uid;
    expect((await o.patch('/v1/governance/settings', { approval_deadline_hours: 1 })).status).toBe(200);
    clock.advance(3600);
    expect((await byKind(o, 'approval_overdue')).get(late)).toMatchObject({ status: 'open', first_detected_at: iso(B + 3001 * 3600) });
  });

  it('derivation_stale follows §5.6: a premise update makes it stale, a new version of the node clears it', async () => {
    const { o, B } = await owner();
    clock.set(B + 5000);
    const premise = await node(o, 'Concept', 'Premise');
    const derived = await node(o, 'Concept', 'Conclusion');
    await edge(o, derived, premise, 'ReliesOn');
    expect((await byKind(o, 'derivation_stale')).get(derived)).toBeUndefined();
    clock.set(B + 5100);
    expect((await o.patch(`/node/${premise}`, { label: 'Premise (revised)' })).status).toBe(200);
    const x = (await byKind(o, 'derivation_stale')).get(derived);
    expect(x).toMatchObject({
      status: 'open',
      first_detected_at: iso(B + 5100),
      detail: { stale_premises: [{ uid: premise, label: 'Premise (revised)', node_type: 'Concept', edge_type: 'ReliesOn', reason: 'premise_updated', changed_at: B + 5100 }] },
    });
    // the same staleness /retrieve reports
    const stale = await o.post('/retrieve', { action: 'stale_derivations' });
    expect(stale.body.items.map((i: any) => [i.node.uid, i.stale_since])).toEqual([[derived, B + 5100]]);
    clock.set(B + 5200);
    expect((await o.post('/evolve', { action: 'update', uid: derived, reason: 'revalidated' })).status).toBe(200);
    expect((await byKind(o, 'derivation_stale')).get(derived)).toMatchObject({ status: 'resolved', resolved_at: iso(B + 5200) });
  });

  it('chunk_failed, chunk_orphaned and document_stuck', async () => {
    const { o, B } = await owner();
    clock.set(B + 7000);
    const doc = await node(o, 'Document', 'Paper', { title: 'Paper', document_type: 'pdf', processing_status: 'pending' });
    const chunk = await node(o, 'Chunk', 'chunk 0', { content: 'text', chunk_type: 'text', chunk_index: 0, processing_status: 'failed' });
    await edge(o, chunk, doc, 'ChunkOf');
    expect((await byKind(o, 'chunk_failed')).get(chunk)).toMatchObject({ status: 'open', severity: 'high', detail: { document_uid: doc } });
    expect((await byKind(o, 'chunk_orphaned')).get(chunk)).toBeUndefined();

    // no job for the pending Document: stuck an hour after it became pending
    expect((await byKind(o, 'document_stuck')).get(doc)).toBeUndefined();
    clock.set(B + 7000 + 3600);
    expect((await byKind(o, 'document_stuck')).get(doc)).toMatchObject({ status: 'open', severity: 'high', detail: { processing_status: 'pending' }, first_detected_at: iso(B + 10600) });

    clock.set(B + 12000);
    expect((await o.patch(`/node/${chunk}`, { props: { processing_status: 'completed' } })).status).toBe(200);
    expect((await byKind(o, 'chunk_failed')).get(chunk)).toMatchObject({ status: 'resolved', resolved_at: iso(B + 12000) });

    clock.set(B + 13000);
    expect((await o.delete(`/node/${doc}`)).status).toBe(200);
    expect((await byKind(o, 'chunk_orphaned')).get(chunk)).toMatchObject({ status: 'open', severity: 'low', first_detected_at: iso(B + 13000), detail: { document_uid: doc } });
    expect((await byKind(o, 'document_stuck')).get(doc)).toMatchObject({ status: 'resolved', resolution: 'subject_removed', resolved_at: iso(B + 13000), first_detected_at: iso(B + 10600) });
  });

  it('a purge judges again what its edges supported: a Claim whose only Evidence was purged is unsupported', async () => {
    const { o, B } = await owner();
    clock.set(B + 100);
    const claim = await node(o, 'Claim', 'Backed', { content: 'b' });
    clock.set(B + 150);
    const ev = await node(o, 'Evidence', 'Measurement', { description: 'm' });
    await edge(o, ev, claim, 'Supports');
    expect((await byKind(o, 'claim_unsupported')).get(claim)).toMatchObject({ status: 'resolved', resolved_at: iso(B + 150) });

    clock.set(B + 200);
    const purged = await o.post('/nodes/delete', { uids: [ev], hard_purge: true });
    expect(purged.body).toMatchObject({ nodes_purged: 1, edges_purged: 1 });
    expect((await byKind(o, 'claim_unsupported')).get(claim)).toMatchObject({ status: 'open', last_changed_at: iso(B + 200), resolved_at: null });
    const s = (await o.get('/v1/knowledge-health/summary')).body;
    expect(s.counts).toMatchObject({ claims: 1, evidence: 0, edges: 0 });
    expect(s.evidence_completeness).toEqual({ value: 0, claims: 1, evidenced: 0, sourced_only: 0, unsupported: 1 });
  });

  it('filters, order, cursor bound to the filters, groups', async () => {
    const { o, B } = await owner();
    clock.set(B + 20000);
    const claims: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(10);
      claims.push(await node(o, 'Claim', `claim ${i}`, { content: `c${i}` }));
    }
    clock.advance(10);
    const chunk = await node(o, 'Chunk', 'bad chunk', { content: 'x', chunk_type: 'text', chunk_index: 0, processing_status: 'failed' });
    const all = await o.get('/v1/knowledge-health/exceptions');
    // high first, then first detection
    expect(all.body.items.map((x: any) => x.subject.uid)).toEqual([chunk, ...claims]);
    expect(all.body.groups).toEqual([
      { kind: 'claim_unsupported', severity: 'medium', open: 5, acknowledged: 0, resolved: 0 },
      { kind: 'chunk_failed', severity: 'high', open: 1, acknowledged: 0, resolved: 0 },
    ]);
    // groups ignore kind and status, not severity
    const med = await o.get('/v1/knowledge-health/exceptions?kind=chunk_failed&severity=medium');
    expect(med.body.items).toEqual([]);
    expect(med.body.groups).toEqual([{ kind: 'claim_unsupported', severity: 'medium', open: 5, acknowledged: 0, resolved: 0 }]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `/v1/knowledge-health/exceptions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await o.get(q);
      expect(page.status).toBe(200);
      expect(page.body.limit).toBe(2);
      seen.push(...page.body.items.map((x: any) => x.subject.uid));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([chunk, ...claims]);

    const first = await o.get('/v1/knowledge-health/exceptions?limit=1');
    const other = await o.get(`/v1/knowledge-health/exceptions?limit=1&severity=high&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([other.status, other.body.code]).toEqual([400, 'invalid_cursor']);
    expect((await o.get('/v1/knowledge-health/exceptions?cursor=nonsense')).body.code).toBe('invalid_cursor');
    expect((await o.get('/v1/knowledge-health/exceptions?limit=9999')).body.limit).toBe(500);
  });

  it('rejects API keys and bad parameters', async () => {
    const { u, o, B } = await owner();
    const key = await createApiKey(t.url, u.access_token);
    for (const path of ['/v1/knowledge-health/summary', '/v1/knowledge-health/exceptions']) {
      const r = await api(t.url, key.key).get(path);
      expect([r.status, r.body.code]).toEqual([403, 'api_key_not_allowed']);
    }
    for (const q of ['days=0', 'days=366', 'days=abc', 'days=1.5']) {
      const r = await o.get(`/v1/knowledge-health/summary?${q}`);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_field', 'days']);
    }
    for (const [q, field] of [['status=closed', 'status'], ['kind=bogus', 'kind'], ['severity=urgent', 'severity'], ['limit=-1', 'limit'], ['limit=x', 'limit']]) {
      const r = await o.get(`/v1/knowledge-health/exceptions?${q}`);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_field', field]);
    }
    const concept = await node(o, 'Concept', 'not a project');
    const wrong = await o.get(`/v1/knowledge-health/exceptions?project=${concept}`);
    expect([wrong.status, wrong.body.code]).toEqual([400, 'wrong_node_type']);
    const missing = await o.get('/v1/knowledge-health/exceptions?space=00000000-0000-4000-8000-000000000000');
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    expect((await o.get('/v1/knowledge-health/exceptions?project=bad%20uid')).body.code).toBe('invalid_uid');
  });
});
