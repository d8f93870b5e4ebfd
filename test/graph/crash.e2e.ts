import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { api, signUpWithKey } from '../support/http';
import { Service, builtService, kill, removePrivateBuild, startService } from '../support/built-service';
import { eventually } from '@strata/domain/testing/eventually';

/**
 * The built service, writing under load from several clients, is killed with SIGKILL. After
 * a restart on the same data dir every acknowledged write (a 201) is there, and the read
 * model agrees with the log.
 */

interface Acked {
  nodes: string[];
  edges: string[];
}

/**
 * `clients` loops of single creates, batches and edges until `stop()` is true. Only writes
 * answered 201 count as acknowledged; anything cut off by the kill is simply not counted.
 */
async function load(url: string, key: string, clients: number, acked: Acked, stop: () => boolean): Promise<void> {
  const c = api(url, key);
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = 0; !stop(); i++) {
        try {
          if (i % 5 === 4) {
            const r = await c.post('/batch', {
              nodes: [0, 1, 2, 3].map((j) => ({ ref: `n${j}`, label: `batch ${k}-${i}-${j}`, node_type: 'Idea' })),
              edges: [{ from_ref: 'n0', to_ref: 'n1', edge_type: 'RelatedTo' }],
            });
            if (r.status === 201) {
              acked.nodes.push(...r.body.node_uids);
              acked.edges.push(...r.body.edge_uids);
            }
          } else if (i % 5 === 3 && acked.nodes.length > 2) {
            const from = acked.nodes[acked.nodes.length - 1];
            const to = acked.nodes[acked.nodes.length - 2];
            const r = await c.post('/edge', { from_uid: from, to_uid: to, edge_type: 'Supports' });
            if (r.status === 201) acked.edges.push(r.body.uid);
          } else {
            const r = await c.post('/node', { label: `client ${k} write ${i}`, node_type: 'Claim', props: { content: `c${i}` } });
            if (r.status === 201) acked.nodes.push(r.body.uid);
          }
        } catch {
          return; // the connection died with the service
        }
      }
    }),
  );
}

/** Distinct streams of the organization that hold a NodeCreated / EdgeCreated event, read from the log itself. */
function createdStreams(dataDir: string, org: string): { nodes: number; edges: number } {
  const db = new Database(path.join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  try {
    const count = (type: string, prefix: string) =>
      db.prepare('SELECT count(DISTINCT stream) FROM events WHERE type = ? AND substr(stream, 1, length(?)) = ?').pluck().get(type, prefix, prefix) as number;
    return { nodes: count('NodeCreated', `node-${org}:`), edges: count('EdgeCreated', `edge-${org}:`) };
  } finally {
    db.close();
  }
}

describe('crash safety', () => {
  let entry: string;
  let dataDir: string;
  const running: Service[] = [];

  beforeAll(() => {
    entry = builtService();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-crash-'));
  }, 180_000);
  afterAll(async () => {
    for (const s of running) await kill(s);
    fs.rmSync(dataDir, { recursive: true, force: true });
    removePrivateBuild();
  });

  it('keeps every acknowledged write through SIGKILL under load, and the read model matches the log', async () => {
    let svc = await startService(entry, dataDir);
    running.push(svc);
    const owner = await signUpWithKey(svc.url);
    const acked: Acked = { nodes: [], edges: [] };

    for (let round = 0; round < 2; round++) {
      const target = acked.nodes.length + 400;
      let stopped = false;
      const writers = load(svc.url, owner.key, 8, acked, () => stopped);
      // kill it under load, once it has acknowledged enough writes for the round
      await eventually(() => acked.nodes.length >= target, { timeoutMs: 20_000, what: `${target} acknowledged nodes` }).catch(() => undefined);
      await kill(svc); // writes are still in flight
      stopped = true;
      await writers;

      // the log the killed process left is a sound SQLite file before anything reopens it
      const file = new Database(path.join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
      try {
        expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        file.close();
      }
      svc = await startService(entry, dataDir);
      running.push(svc);
      const c = api(svc.url, owner.key);
      for (let i = 0; i < acked.nodes.length; i += 1000) {
        const r = await c.post('/nodes/batch', { uids: acked.nodes.slice(i, i + 1000) });
        expect(r.status).toBe(200);
        expect(r.body.missing).toEqual([]);
      }
      for (const uid of acked.edges) expect([uid, (await c.get(`/edge/${uid}/history`)).status]).toEqual([uid, 200]);

      const stats = (await c.get('/stats')).body;
      const log = createdStreams(dataDir, owner.org_id);
      expect({ nodes: stats.total_nodes, edges: stats.total_edges }).toEqual(log);
      expect(stats.total_nodes).toBeGreaterThanOrEqual(acked.nodes.length);
      expect(stats.total_edges).toBeGreaterThanOrEqual(acked.edges.length);
    }
    expect(acked.nodes.length).toBeGreaterThanOrEqual(800);
    expect(acked.edges.length).toBeGreaterThan(50);
  }, 180_000);

  it('rebuilds projections a power loss left torn from the log, and keeps every acknowledged write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-power-'));
    try {
      let svc = await startService(entry, dir);
      running.push(svc);
      const owner = await signUpWithKey(svc.url);
      const acked: Acked = { nodes: [], edges: [] };
      let stopped = false;
      const writers = load(svc.url, owner.key, 4, acked, () => stopped);
      await eventually(() => acked.nodes.length >= 300, { timeoutMs: 20_000, what: '300 acknowledged nodes' });
      await kill(svc);
      stopped = true;
      await writers;

      // what a power loss leaves: the marker names the boot that wrote the file unflushed, and
      // pages of the file never reached the disk
      const projections = path.join(dir, 'projections.db');
      const marker = JSON.parse(fs.readFileSync(`${projections}.session`, 'utf8'));
      expect(marker).toMatchObject({ state: 'open', pid: svc.child.pid });
      fs.writeFileSync(`${projections}.session`, JSON.stringify({ ...marker, boot_id: 'a-boot-before-the-power-loss' }));
      const size = fs.statSync(projections).size;
      const fd = fs.openSync(projections, 'r+');
      fs.writeSync(fd, Buffer.alloc(Math.min(64 * 1024, size / 2), 0x5a), 0, undefined, Math.floor(size / 4));
      fs.closeSync(fd);

      svc = await startService(entry, dir);
      running.push(svc);
      expect(svc.output.join('')).toContain('projections.db was discarded and is rebuilt from the log');
      const c = api(svc.url, owner.key);
      const r = await c.post('/nodes/batch', { uids: acked.nodes });
      expect(r.status).toBe(200);
      expect(r.body.missing).toEqual([]);
      const stats = (await c.get('/stats')).body;
      expect({ nodes: stats.total_nodes, edges: stats.total_edges }).toEqual(createdStreams(dir, owner.org_id));
      expect((await c.post('/search', { query: 'client write' })).body.length).toBeGreaterThan(0);

      // a clean stop flushes the file and says so: a later restart of the machine keeps it
      const exited = new Promise((res) => svc.child.once('exit', res));
      svc.child.kill('SIGTERM');
      await exited;
      expect(JSON.parse(fs.readFileSync(`${projections}.session`, 'utf8'))).toMatchObject({ state: 'closed' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
