import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@strata/domain/time';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { readExceptionQuery } from '@strata/domain/knowledge-health';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { ExceptionListHandler } from '../../apps/api/src/knowledge-health/exceptions/exception-list.handler';
import { HealthSummaryHandler } from '../../apps/api/src/knowledge-health/summary/health-summary.handler';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, login, signUp } from '../support/http';

const T0 = at('2031-03-01T08:00:00Z');
const DAY = 86400;

/**
 * The Knowledge Health summary and the first pages of the exception list, as a caller who sees
 * everything gets them (from the projection's counters, day counters and status lanes), must
 * equal the same figures counted object by object from every row — after a sequence of writes
 * spread over days, tombstones, restores, a hard purge and a purge, and again after the
 * projection is rebuilt from the log.
 */
describe('Knowledge Health counters equal a recount (REFERENCE §14)', () => {
  const clock = new FixedClock(T0);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-khc-'));
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** Every figure both ways, for several windows, and the exception pages under several filters. */
  async function expectCountersEqualRecount(app: TestApp, org: string) {
    const summary = app.app.get(HealthSummaryHandler);
    const list = app.app.get(ExceptionListHandler);
    // a scope that sees everything, taken down the path that counts object by object
    const all = new ReadScope(org, null);
    const recountScope = new ReadScope(org, null, new Set(['no-such-node']));
    for (const days of [1, 2, 3, 30, 365]) {
      const fast = await summary.counted(org, all, days);
      const slow = await summary.recounted(org, recountScope, days);
      expect({ days, ...fast }).toEqual({ days, ...slow });
    }
    for (const raw of [{}, { status: 'open,acknowledged,resolved', limit: '3' }, { status: 'resolved' }, { severity: 'medium', kind: 'claim_unsupported,contradiction_unresolved', limit: '2' }]) {
      const q = readExceptionQuery(raw);
      const binding = { org, ...q };
      let fastAfter = null;
      let slowAfter = null;
      // two pages: the second from where the first stopped
      for (let page = 0; page < 2; page++) {
        const fast = await list.paged(org, all, clock.now(), q, binding, fastAfter);
        const slow = await list.listed(org, all, clock.now(), q, binding, slowAfter);
        expect(fast).toEqual(slow);
        if (!fast.has_more) break;
        const last = fast.items[fast.items.length - 1];
        fastAfter = slowAfter = [['high', 'medium', 'low'].indexOf(last.severity), Date.parse(last.first_detected_at!) / 1000, last.id] as [number, number, string];
      }
    }
  }

  it('after writes over several days, tombstones, restores and purges, and after a rebuild', async () => {
    t = await startTestApp({ clock, dataDir });
    const u = await signUp(t.url);
    let o: Api = api(t.url, u.access_token);
    const relog = async () => (o = api(t.url, (await login(t.url, u.email, u.password)).access_token));
    const post = async (p: string, b: unknown) => {
      const r = await o.post(p, b);
      if (r.status >= 300) throw new Error(`${p}: ${r.status} ${r.text}`);
      return r.body;
    };
    const node = async (node_type: string, label: string, props: Record<string, unknown> = {}) => (await post('/node', { label, node_type, props })).uid as string;
    const edge = async (from_uid: string, to_uid: string, edge_type: string, props: Record<string, unknown> = {}) => (await post('/edge', { from_uid, to_uid, edge_type, props })).uid as string;

    // day 0: a document with chunks, claims extracted, supported, bare, contradicting
    const doc = await node('Document', 'Report', { title: 'Report', processing_status: 'completed' });
    const chunks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await node('Chunk', `chunk ${i}`, { content: `chunk ${i}`, chunk_index: i, processing_status: i === 2 ? 'failed' : 'completed' });
      await edge(c, doc, 'ChunkOf');
      chunks.push(c);
    }
    const claims: string[] = [];
    for (let i = 0; i < 6; i++) claims.push(await node('Claim', `claim ${i}`, { content: `claim ${i}` }));
    await edge(claims[0], chunks[0], 'ExtractedFrom');
    await edge(claims[1], chunks[1], 'ExtractedFrom');
    const ev = await node('Evidence', 'measured', { description: 'measured' });
    await edge(ev, claims[1], 'Supports');
    await edge(ev, claims[2], 'Supports');
    const con = await edge(claims[3], claims[4], 'Contradicts');
    await post('/agent/plan', { action: 'create_task', label: 'look', related_uids: [claims[3]] });
    await post('/agent/governance', { action: 'request_approval', label: 'go?' });
    clock.advance(DAY + 3600);
    await relog();

    // day 1: a batch, an update, tombstones and a restore
    await post('/batch', {
      nodes: [
        { ref: 'c', node_type: 'Claim', label: 'batched claim', props: { content: 'batched' } },
        { ref: 'e', node_type: 'Evidence', label: 'batched evidence', props: { description: 'b' } },
        { ref: 'x', node_type: 'Concept', label: 'batched concept' },
      ],
      edges: [
        { from_ref: 'e', to_ref: 'c', edge_type: 'Supports' },
        { from_ref: 'c', to_ref: 'x', edge_type: 'PossibleDuplicate', props: { similarity: 0.9, method: 'fuzzy' } },
      ],
    });
    await o.patch(`/edge/${con}`, { props: { resolution_status: 'dismissed' } });
    await o.patch(`/node/${claims[5]}`, { label: 'claim 5, revised' });
    expect((await o.delete(`/node/${ev}`)).status).toBeLessThan(300);
    expect((await o.delete(`/node/${claims[4]}`)).status).toBeLessThan(300);
    clock.advance(2 * DAY + 600);
    await relog();
    await expectCountersEqualRecount(t, u.org_id);

    // day 3: a restore, a hard purge and a purge of everything tombstoned
    await post('/evolve', { action: 'restore', uid: claims[4] });
    await o.patch(`/edge/${con}`, { props: { resolution_status: 'unresolved' } });
    await post('/nodes/delete', { uids: [claims[0], chunks[2]], hard_purge: true });
    expect((await o.delete(`/node/${claims[5]}`)).status).toBeLessThan(300);
    clock.advance(600);
    await post('/purge', {});
    clock.advance(5 * 3600);
    await relog();
    await expectCountersEqualRecount(t, u.org_id);
    const before = await t.app.get(HealthSummaryHandler).counted(u.org_id, new ReadScope(u.org_id, null), 30);
    expect(before.counts.claims).toBeGreaterThan(0);
    expect(before.activity.exceptions_opened).toBeGreaterThan(0);

    // the projection rebuilt from the log: the same counters, still equal to a recount
    await t.close();
    const db = new Database(path.join(dataDir, 'projections.db'));
    db.prepare("UPDATE checkpoints SET version = 0 WHERE name = 'knowledge_health'").run();
    // emptied, so the figures below can only come from the rebuilt copy
    db.prepare('DELETE FROM kh_counts').run();
    db.close();
    t = await startTestApp({ clock, dataDir });
    // the outdated projection is served as it was while a copy is rebuilt beside it, then swapped in
    const handler = t.app.get(HealthSummaryHandler);
    await eventually(async () => (await handler.counted(u.org_id, new ReadScope(u.org_id, null), 30)).counts.nodes > 0, { what: 'the rebuilt projection swapped in', timeoutMs: 120_000 });
    await expectCountersEqualRecount(t, u.org_id);
    expect(await t.app.get(HealthSummaryHandler).counted(u.org_id, new ReadScope(u.org_id, null), 30)).toEqual(before);
  }, 300_000);
});
