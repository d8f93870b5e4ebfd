/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import type { SnapshotScope, SnapshotSource } from '../maintenance-reads.port';
import { decayCandidatesSync, openSqliteSnapshot, tombstonedUidsSync } from '../sqlite/sqlite-maintenance-reads';
import { SqliteGraphStore } from '../sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '../sqlite/sqlite-graph-writer';
import { GraphEventLog } from '../testing/graph-event-log.fixture';
import { MongoGraphStore } from './mongo-graph-store';
import { MongoGraphWriter } from './mongo-graph-writer';
import { MongoMaintenanceReads } from './mongo-maintenance-reads';
import { MongoSnapshotReader } from './mongo-snapshot-reader';

// The maintenance reads and the export snapshot on MongoDB answer exactly what the SQLite ones
// answer for the same events. docker compose up, then:
// STRATA_MONGO_URL=mongodb://localhost:27017/?replicaSet=rs0 npm run test:servers
const url = process.env.STRATA_MONGO_URL;

async function drain<T>(items: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

async function snapshotOf(s: SnapshotSource, org: string, scope: SnapshotScope) {
  return {
    counts: await Promise.all((['nodes', 'edges', 'aliases', 'embeddings', 'series_points'] as const).map((w) => s.count(w, org, scope))),
    config: await s.embeddingConfig(org),
    nodes: await drain(s.nodeDocs(org, scope)),
    edges: await drain(s.edgeDocs(org, scope)),
    aliases: await drain(s.aliases(org, scope)),
    embeddings: await drain(s.embeddings(org, scope)),
    points: await drain(s.seriesPoints(org, scope)),
  };
}

if (url) {
  jest.setTimeout(60_000);

  describe('MongoDB maintenance reads and snapshots, against SQLite', () => {
    const org = 'org-maint';
    let client: MongoClient;
    let mongo: MongoGraphStore;
    let sqlite: SqliteGraphStore;
    let dir: string;
    let file: string;

    beforeAll(async () => {
      client = await new MongoClient(url).connect();
      mongo = new MongoGraphStore(client.db(`strata_test_${randomUUID().slice(0, 8)}`));
      await mongo.ensureIndexes();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-maint-'));
      file = path.join(dir, 'projections.db');
      sqlite = new SqliteGraphStore(new Database(file));

      const log = new GraphEventLog();
      for (let i = 0; i < 12; i++)
        log.createNode(org, { label: `Node ${i}`, node_type: i % 3 ? 'Note' : 'Goal', layer: i % 2 ? 'reality' : 'intent' }, { uid: `n${i}` });
      for (let i = 1; i < 12; i++) log.createEdge(org, `n${i - 1}`, `n${i}`, { edge_type: 'RelatedTo' }, { uid: `e${i}` });
      log.createEdge(org, 'n0', 'n5', { edge_type: 'RelatedTo' }, { uid: 'live-to-dead' });
      log.tombstoneNode(org, 'n5', 'test');
      log.tombstoneEdge(org, 'e3', 'test');
      log.decay(org, [{ uid: 'n1', salience: 0.2 }]);
      log.setAlias(org, { text: 'One', norm: 'one', canonical_uid: 'n1', score: 1 });
      log.setAlias(org, { text: 'Five', norm: 'five', canonical_uid: 'n5', score: 1 });
      log.configureEmbeddings(org, { dimensions: 3 });
      log.setEmbedding(org, 'n2', [0.25, -1, 0.5]);
      log.setEmbedding(org, 'n5', [1, 0, 0]);
      log.appendPoints(org, 'n4', [{ ts: 1, value: 2 }, { ts: 2, value: 3 }]);
      log.createNode('other-org', { label: 'Elsewhere', node_type: 'Note' }, { uid: 'x' });
      const events = log.take();
      await new MongoGraphWriter(mongo).apply(events);
      const writer = new SqliteGraphWriter(sqlite);
      for (const e of events) writer.apply(e);
    });

    afterAll(async () => {
      await mongo.db.dropDatabase();
      await client.close();
      sqlite.db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('lists the same decay candidates, in the same order, for every scope', async () => {
      const reads = new MongoMaintenanceReads(mongo);
      for (const scope of [{}, { layer: 'intent' }, { node_types: ['Goal'] }, { uids: ['n1', 'n5', 'n7'] }, { uids: [] }])
        expect(await reads.decayCandidates(org, scope)).toEqual(decayCandidatesSync(sqlite.db, org, scope));
    });

    it('lists the same tombstoned uids with and without a cut-off, and every uid of the org', async () => {
      const reads = new MongoMaintenanceReads(mongo);
      for (const cutoff of [null, 0, 1e12]) {
        expect(await reads.tombstonedUids('nodes', org, cutoff)).toEqual(tombstonedUidsSync(sqlite.db, 'nodes', org, cutoff));
        expect(await reads.tombstonedUids('edges', org, cutoff)).toEqual(tombstonedUidsSync(sqlite.db, 'edges', org, cutoff));
      }
      const uids = await reads.graphUids(org);
      expect(uids.nodes).toHaveLength(12);
      expect(uids.edges).toHaveLength(12);
    });

    it('exports the same snapshot sections, live only and with tombstoned objects', async () => {
      for (const scope of [{ include_tombstoned: false }, { include_tombstoned: true }]) {
        const m = MongoSnapshotReader.open(mongo);
        const s = openSqliteSnapshot(file);
        try {
          const fromMongo = await snapshotOf(m, org, scope);
          const fromSqlite = await snapshotOf(s, org, scope);
          expect(fromMongo).toEqual(fromSqlite);
        } finally {
          await m.close();
          await s.close();
        }
      }
    });
  });
} else {
  describe('MongoDB maintenance reads', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoDB maintenance reads skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
