import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { api, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';
import { until } from '../retrieval/retrieval-fixture';

/**
 * An event log restored from a backup older than the projections beside it (the operator
 * copied back events.db only). The projections and the vector index then hold events the
 * log does not have; kept as they were, they would also skip the log's next events as
 * already applied. The service rebuilds them from the log instead, and says so.
 */
describe('a log older than its projections', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-log-behind-'));
  const backup = path.join(dataDir, 'events.db.backup');
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is served as the log says: later writes are gone, new writes are read and found', async () => {
    let app = await startTestApp({ dataDir });
    const who = await signUpWithKey(app.url);
    let w = api(app.url, who.key);
    const kept = (await w.post('/node', { node_type: 'Claim', label: 'Kept quokka claim' })).body.uid as string;
    await app.close({ keepData: true });
    fs.copyFileSync(path.join(dataDir, 'events.db'), backup);

    app = await startTestApp({ dataDir });
    w = api(app.url, who.key);
    const lost = (await w.post('/node', { node_type: 'Claim', label: 'Lost quokka claim' })).body.uid as string;
    expect((await w.get(`/node/${lost}`)).status).toBe(200);
    await app.close({ keepData: true });

    // the older log comes back; the projections and the vector index stay as they were
    for (const s of ['-wal', '-shm']) fs.rmSync(path.join(dataDir, `events.db${s}`), { force: true });
    fs.copyFileSync(backup, path.join(dataDir, 'events.db'));

    app = await startTestApp({ dataDir, captureLogs: true });
    try {
      w = api(app.url, who.key);
      expect(app.logs.some((l) => l.startsWith('[warn]') && /projection graph is at position \d+, past the event log's head/.test(l))).toBe(true);
      expect((await w.get(`/node/${kept}`)).status).toBe(200);
      expect((await w.get(`/node/${lost}`)).status).toBe(404);

      const fresh = (await w.post('/node', { node_type: 'Claim', label: 'Fresh quokka claim' })).body.uid as string;
      expect((await w.get(`/node/${fresh}`)).status).toBe(200);
      const listed = (await w.get('/nodes?node_type=Claim')).body.items.map((n: { uid: string }) => n.uid);
      expect(listed.sort()).toEqual([kept, fresh].sort());
      const text = (await w.post('/search', { query: 'quokka' })).body.map((r: { uid: string }) => r.uid);
      expect(text.sort()).toEqual([kept, fresh].sort());
      // the vector index is rebuilt beside and swapped in: then it agrees with the log too
      await until('the rebuilt vector index', async () => {
        const hits = (await w.post('/embeddings/search-text', { text: 'quokka claim', k: 10 })).body as { node: { uid: string } }[];
        return hits.map((h) => h.node.uid).sort().join() === [kept, fresh].sort().join();
      });
    } finally {
      await app.close({ keepData: true });
    }
  });
});
