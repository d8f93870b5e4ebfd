import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, SignedUp, api, login, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const T0 = at('2031-06-01T00:00:00Z');
const iso = (t: number) => new Date(t * 1000).toISOString();

describe('Knowledge Health summary, visibility, Projects and rebuilds (REFERENCE §14)', () => {
  let t: TestApp;
  const clock = new FixedClock(T0);
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  function client(u: SignedUp, org?: string): Api {
    let token = u.access_token;
    let at = clock.now();
    const fresh = async () => {
      if (Math.abs(clock.now() - at) > 300) {
        token = (await login(t.url, u.email, u.password)).access_token;
        at = clock.now();
      }
      return api(t.url, token, org ? { org } : {});
    };
    return new Proxy({} as Api, { get: (_t, method: string) => async (...args: unknown[]) => ((await fresh()) as any)[method](...args) });
  }

  async function org() {
    clock.set(Math.ceil(clock.now()) + 1_000_000);
    const u = await signUp(t.url);
    const o = client(u);
    const node = async (node_type: string, label: string, props: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
      const r = await o.post('/node', { label, node_type, props, ...extra });
      if (r.status !== 201) throw new Error(`node: ${r.status} ${r.text}`);
      return r.body.uid as string;
    };
    const edge = async (from_uid: string, to_uid: string, edge_type: string, props: Record<string, unknown> = {}) => {
      const r = await o.post('/edge', { from_uid, to_uid, edge_type, props });
      if (r.status !== 201) throw new Error(`edge: ${r.status} ${r.text}`);
      return r.body.uid as string;
    };
    const member = async (role: string) => {
      const m = await signUp(t.url);
      const r = await o.post(`/v1/orgs/${u.org_id}/members`, { email: m.email, role });
      if (r.status >= 300) throw new Error(`member: ${r.status} ${r.text}`);
      return { m, c: client(m, u.org_id) };
    };
    return { u, o, node, edge, member, B: clock.now() };
  }

  it('summarises a small graph: counts, evidence completeness, activity in the window, exceptions and state', async () => {
    const { o, node, edge, B } = await org();
    const project = await node('Project', 'Apollo', { name: 'Apollo', description: 'moon' });
    const doc = await node('Document', 'Spec', { title: 'Spec', document_type: 'pdf', processing_status: 'completed' });
    const chunk = await node('Chunk', 'Spec · 0', { content: 'the text', chunk_type: 'text', chunk_index: 0, processing_status: 'completed' });
    await edge(chunk, doc, 'ChunkOf');
    await edge(doc, project, 'PartOfProject');
    // one claim of each support level, each written with its edge in one /batch
    const batch = await o.post('/batch', {
      nodes: [
        { ref: 'c1', label: 'Extracted claim', node_type: 'Claim', props: { content: 'x' } },
        { ref: 'ev', label: 'Measurement', node_type: 'Evidence', props: { description: 'm' } },
        { ref: 'c2', label: 'Evidenced claim', node_type: 'Claim', props: { content: 'y' } },
      ],
      edges: [
        { from_ref: 'c1', to_uid: chunk, edge_type: 'ExtractedFrom' },
        { from_ref: 'ev', to_ref: 'c2', edge_type: 'Supports' },
      ],
    });
    expect(batch.status).toBe(201);
    clock.advance(10);
    const c3 = await node('Claim', 'Bare claim', { content: 'z' });
    clock.advance(1);

    const r = await o.get('/v1/knowledge-health/summary?days=7');
    expect(r.status).toBe(200);
    const now = B + 11;
    expect(r.body).toMatchObject({
      generated_at: iso(now),
      window: { days: 7, since: iso(now - 7 * 86400), until: iso(now) },
      evidence_completeness: { value: 0.5, claims: 3, evidenced: 1, sourced_only: 1, unsupported: 1 },
      counts: { nodes: 7, edges: 4, claims: 3, evidence: 1, documents: 1, chunks: 1, projects: 1, spaces: 0 },
      activity: { nodes_created: 7, edges_created: 4, documents_created: 1, chunks_completed: 1, chunks_failed: 0, exceptions_opened: 1, exceptions_resolved: 0 },
      exceptions: { open: 1, acknowledged: 0 },
      state: 'healthy',
      reasons: [],
    });
    expect(r.body.exceptions.by_kind.claim_unsupported).toEqual({ severity: 'medium', open: 1, acknowledged: 0 });
    expect(Object.keys(r.body.exceptions.by_kind)).toHaveLength(10);
    const x = (await o.get('/v1/knowledge-health/exceptions')).body.items;
    expect(x.map((e: any) => e.subject.uid)).toEqual([c3]);

    // a failed chunk in the Project's document: high severity, attention, and the Project filter
    const bad = await node('Chunk', 'Spec · 1', { content: 'more', chunk_type: 'text', chunk_index: 1, processing_status: 'failed' });
    await edge(bad, doc, 'ChunkOf');
    const inProject = await o.get(`/v1/knowledge-health/exceptions?project=${project}`);
    expect(inProject.body.items.map((e: any) => [e.kind, e.subject.uid, e.project_uids])).toEqual([['chunk_failed', bad, [project]]]);
    clock.advance(1);
    const s2 = (await o.get('/v1/knowledge-health/summary')).body;
    expect(s2.state).toBe('attention');
    expect(s2.activity).toMatchObject({ chunks_failed: 1, chunks_completed: 1 });

    // activity is by the events' times: a week later the window no longer holds them
    clock.advance(8 * 86400);
    const later = (await o.get('/v1/knowledge-health/summary?days=7')).body;
    expect(later.activity).toEqual({ nodes_created: 0, edges_created: 0, documents_created: 0, chunks_completed: 0, chunks_failed: 0, exceptions_opened: 0, exceptions_resolved: 0 });
    expect(later.counts.nodes).toBe(8);
  });

  it('counts and lists only what the caller can see (the Space rule)', async () => {
    const { o, node, member, edge } = await org();
    const space = await node('Space', 'Legal', { default_classification: 'confidential' });
    const secret = await node('Claim', 'Secret claim', { content: 's' }, { space_uid: space });
    const open = await node('Claim', 'Open claim', { content: 'o' });
    const ev = await node('Evidence', 'Hidden evidence', { description: 'e' }, { space_uid: space });
    await edge(ev, open, 'Supports');
    const { m, c } = await member('member');
    // the window is [since, until): what happened at this very second is not in it yet
    clock.advance(1);

    const mine = (await o.get(`/v1/knowledge-health/exceptions?space=${space}`)).body.items;
    expect(mine.map((e: any) => [e.subject.uid, e.space_uids])).toEqual([[secret, [space]]]);
    const ownerSummary = (await o.get('/v1/knowledge-health/summary')).body;
    expect(ownerSummary.counts).toMatchObject({ claims: 2, evidence: 1, spaces: 1, nodes: 4 });
    expect(ownerSummary.evidence_completeness).toMatchObject({ claims: 2, evidenced: 1, unsupported: 1 });

    // a member without a grant on the Space: the spaced Claim and Evidence are absent, and the
    // open Claim's only support is one it cannot see
    const theirs = (await c.get('/v1/knowledge-health/exceptions')).body;
    expect(theirs.items.map((e: any) => e.subject.uid)).toEqual([]);
    expect(theirs.groups).toEqual([]);
    const s = (await c.get('/v1/knowledge-health/summary')).body;
    expect(s.counts).toMatchObject({ claims: 1, evidence: 0, nodes: 2, edges: 0 });
    expect(s.evidence_completeness).toEqual({ value: 0, claims: 1, evidenced: 0, sourced_only: 0, unsupported: 1 });
    expect(s.exceptions.open).toBe(0);
    expect(s.activity.nodes_created).toBe(2);

    // with a read grant, it sees them
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${m.user_id}`, access: 'read' })).status).toBe(201);
    const granted = (await c.get(`/v1/knowledge-health/exceptions?space=${space}`)).body.items;
    expect(granted.map((e: any) => e.subject.uid)).toEqual([secret]);
  });

  it('an exception it can see names no Document or Task it cannot (the Space rule)', async () => {
    const { o, node, member, edge } = await org();
    const space = await node('Space', 'Legal', { default_classification: 'confidential' });
    const doc = await node('Document', 'Secret memo', { title: 'Secret memo', document_type: 'pdf', processing_status: 'completed' }, { space_uid: space });
    const chunk = await node('Chunk', 'open chunk', { content: 't', chunk_type: 'text', chunk_index: 0, processing_status: 'failed' });
    await edge(chunk, doc, 'ChunkOf');
    const claim = await node('Claim', 'Open claim', { content: 'o' });
    const task = await o.post('/agent/plan', { action: 'create_task', label: 'Secret task', related_uids: [claim], space_uid: space });
    expect(task.status).toBe(201);
    const { c } = await member('member');
    expect((await c.get(`/node/${doc}`)).status).toBe(404);
    expect((await c.get(`/node/${task.body.uid}`)).status).toBe(404);

    const owners = new Map<string, any>((await o.get('/v1/knowledge-health/exceptions')).body.items.map((x: any) => [x.kind, x]));
    expect(owners.get('chunk_failed')).toMatchObject({ subject: { uid: chunk }, detail: { document_uid: doc } });
    expect(owners.get('claim_unsupported')).toMatchObject({ subject: { uid: claim }, status: 'acknowledged', task_uids: [task.body.uid] });
    const theirs = new Map<string, any>((await c.get('/v1/knowledge-health/exceptions')).body.items.map((x: any) => [x.kind, x]));
    expect(theirs.get('chunk_failed')).toMatchObject({ subject: { uid: chunk }, detail: { document_uid: null } });
    // acknowledged only by a Task it cannot see: for it, nothing acknowledges the exception
    expect(theirs.get('claim_unsupported')).toMatchObject({ subject: { uid: claim }, status: 'open', acknowledged_at: null, acknowledged_by: null, task_uids: [] });
    expect(JSON.stringify([...theirs.values()])).not.toMatch(new RegExp(`${doc}|${task.body.uid}`));
    const acked = (await c.get('/v1/knowledge-health/exceptions?status=acknowledged')).body;
    expect(acked.items).toEqual([]);
    expect(acked.groups.find((g: any) => g.kind === 'claim_unsupported')).toMatchObject({ open: 1, acknowledged: 0 });
    expect((await c.get('/v1/knowledge-health/summary')).body.exceptions.by_kind.claim_unsupported).toMatchObject({ open: 1, acknowledged: 0 });
    expect((await o.get('/v1/knowledge-health/summary')).body.exceptions.by_kind.claim_unsupported).toMatchObject({ open: 0, acknowledged: 1 });
  });

  it('brief_stale: a Project whose current brief is over 24 h old and whose sources changed', async () => {
    const { o, node, edge, B } = await org();
    const project = await node('Project', 'Gemini', { name: 'Gemini', description: 'two' });
    const doc = await node('Document', 'Plan', { title: 'Plan', document_type: 'pdf', processing_status: 'completed' });
    await edge(doc, project, 'PartOfProject');
    const regen = await o.post(`/projects/${project}/brief/regenerate`, { mode: 'structural' });
    expect(regen.status).toBe(201);
    const created = regen.body.version.created_at;
    clock.set(B + 25 * 3600);
    const none = await o.get('/v1/knowledge-health/exceptions?kind=brief_stale');
    expect(none.body.items).toEqual([]);
    const doc2 = await node('Document', 'Addendum', { title: 'Addendum', document_type: 'pdf', processing_status: 'completed' });
    await edge(doc2, project, 'PartOfProject');
    expect((await o.get(`/projects/${project}/brief`)).body.status).toBe('stale');
    const stale = (await o.get('/v1/knowledge-health/exceptions?kind=brief_stale')).body.items;
    expect(stale).toMatchObject([
      { kind: 'brief_stale', severity: 'low', status: 'open', subject: { uid: project, type: 'node', node_type: 'Project', label: 'Gemini' }, detail: { current_version: 1 }, project_uids: [project], first_detected_at: iso(created + 86400) },
    ]);
    const again = await o.post(`/projects/${project}/brief/regenerate`, { mode: 'structural' });
    expect(again.status).toBe(201);
    expect((await o.get('/v1/knowledge-health/exceptions?kind=brief_stale')).body.items).toEqual([]);
    // the episode the new version ended stays in the history
    const history = (await o.get('/v1/knowledge-health/exceptions?kind=brief_stale&status=resolved')).body.items;
    expect(history).toMatchObject([
      { kind: 'brief_stale', status: 'resolved', resolution: 'condition_cleared', project_uids: [project], first_detected_at: iso(created + 86400), resolved_at: iso(again.body.version.created_at), reopen_count: 0 },
    ]);
  });

  it('a rebuild of the projection gives the same ids, states and times', async () => {
    const dataDir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'strata-kh-'));
    let app = await startTestApp({ clock, dataDir });
    try {
      clock.set(Math.ceil(clock.now()) + 1_000_000);
      const u = await signUp(app.url);
      let o = api(app.url, u.access_token);
      const post = async (p: string, b: unknown) => {
        const r = await o.post(p, b);
        if (r.status >= 300) throw new Error(`${p}: ${r.status} ${r.text}`);
        return r.body;
      };
      const a = (await post('/node', { label: 'A', node_type: 'Claim', props: { content: 'a' } })).uid;
      clock.advance(5);
      const b = (await post('/node', { label: 'B', node_type: 'Claim', props: { content: 'b' } })).uid;
      clock.advance(5);
      const con = (await post('/edge', { from_uid: a, to_uid: b, edge_type: 'Contradicts', props: {} })).uid;
      clock.advance(5);
      await post('/agent/plan', { action: 'create_task', label: 'look', related_uids: [a] });
      clock.advance(5);
      await o.patch(`/edge/${con}`, { props: { resolution_status: 'dismissed' } });
      clock.advance(5);
      await o.patch(`/edge/${con}`, { props: { resolution_status: 'unresolved' } });
      clock.advance(5);
      const p = (await post('/node', { label: 'P', node_type: 'Concept' })).uid;
      const d = (await post('/node', { label: 'D', node_type: 'Concept' })).uid;
      await post('/edge', { from_uid: d, to_uid: p, edge_type: 'HasPremise', props: {} });
      clock.advance(5);
      await o.patch(`/node/${p}`, { label: 'P revised' });
      await post('/agent/governance', { action: 'request_approval', label: 'go?' });
      clock.advance(100 * 3600);
      o = api(app.url, (await login(app.url, u.email, u.password)).access_token);
      const all = '/v1/knowledge-health/exceptions?status=open,acknowledged,resolved&limit=500';
      const before = (await o.get(all)).body;
      const summaryBefore = (await o.get('/v1/knowledge-health/summary')).body;
      expect(before.items.map((x: any) => x.kind).sort()).toEqual(['approval_overdue', 'claim_unsupported', 'claim_unsupported', 'contradiction_unresolved', 'derivation_stale']);
      await app.close();

      const db = new Database(path.join(dataDir, 'projections.db'));
      db.prepare("UPDATE checkpoints SET version = 0 WHERE name = 'knowledge_health'").run();
      db.prepare('DELETE FROM kh_exceptions').run();
      db.close();

      app = await startTestApp({ clock, dataDir });
      o = api(app.url, (await login(app.url, u.email, u.password)).access_token);
      const after = (await o.get(all)).body;
      expect(after).toEqual(before);
      const summaryAfter = (await o.get('/v1/knowledge-health/summary')).body;
      expect(summaryAfter).toEqual(summaryBefore);
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
