import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, login, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const T0 = at('2032-03-01T00:00:00Z');
const iso = (t: number) => new Date(t * 1000).toISOString();
const llm = loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm;

describe('Knowledge Health: chunks whose Document was purged (REFERENCE §14.2)', () => {
  const clock = new FixedClock(T0);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-kh-purge-'));
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('orphans them from the purge on, in the live projection and after a rebuild', async () => {
    t = await startTestApp({ clock, dataDir, llm });
    const u = await signUp(t.url);
    let o: Api = api(t.url, u.access_token);
    const ok = async (r: Promise<{ status: number; text: string; body: any }>) => {
      const res = await r;
      if (res.status >= 300) throw new Error(`${res.status} ${res.text}`);
      return res.body;
    };
    const docWithChunk = async (label: string) => {
      const doc = (await ok(o.post('/node', { node_type: 'Document', label, props: { title: label, document_type: 'note', processing_status: 'completed' } }))).uid;
      const chunk = (await ok(o.post('/ingest/chunk', { content: `${label}: Ada Lovelace wrote notes in London.`, document_uid: doc, layers: ['reality'] }))).chunk_uid;
      return { doc, chunk };
    };
    const orphaned = async () => {
      const r = await o.get('/v1/knowledge-health/exceptions?status=open,acknowledged,resolved&kind=chunk_orphaned&limit=500');
      expect(r.status).toBe(200);
      return new Map<string, any>(r.body.items.map((x: any) => [x.subject.uid, x]));
    };

    const B = clock.now();
    const a = await docWithChunk('Purged at once');
    const b = await docWithChunk('Tombstoned, then purged');
    expect((await orphaned()).size).toBe(0);

    // a hard purge of a live Document: its chunk stays, its ChunkOf edge goes
    clock.set(B + 100);
    expect((await ok(o.post('/nodes/delete', { uids: [a.doc], hard_purge: true }))).nodes_purged).toBe(1);
    expect((await orphaned()).get(a.chunk)).toMatchObject({ status: 'open', severity: 'low', first_detected_at: iso(B + 100), detail: { document_uid: a.doc } });

    // a tombstoned Document orphans its chunk at once; the purge later keeps it orphaned
    clock.set(B + 200);
    await ok(o.delete(`/node/${b.doc}`));
    expect((await orphaned()).get(b.chunk)).toMatchObject({ status: 'open', first_detected_at: iso(B + 200) });
    clock.set(B + 300);
    await ok(o.post('/purge', {}));
    expect((await o.get(`/node/${b.chunk}`)).status).toBe(200);
    // what came before the purge read a Document the log no longer holds: it starts over at the purge, as a rebuild gives it
    expect((await orphaned()).get(b.chunk)).toMatchObject({ status: 'open', first_detected_at: iso(B + 300), detail: { document_uid: b.doc } });

    const all = '/v1/knowledge-health/exceptions?status=open,acknowledged,resolved&limit=500';
    const before = (await o.get(all)).body;
    const summaryBefore = (await o.get('/v1/knowledge-health/summary')).body;
    await t.close();

    const db = new Database(path.join(dataDir, 'projections.db'));
    db.prepare("UPDATE checkpoints SET version = 0 WHERE name = 'knowledge_health'").run();
    db.prepare('DELETE FROM kh_exceptions').run();
    db.close();

    t = await startTestApp({ clock, dataDir, llm });
    o = api(t.url, (await login(t.url, u.email, u.password)).access_token);
    expect((await o.get(all)).body).toEqual(before);
    expect((await o.get('/v1/knowledge-health/summary')).body).toEqual(summaryBefore);
  });
});
