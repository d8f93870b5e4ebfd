/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Db, MongoClient } from 'mongodb';
import { RecordedEvent, eventFromLog } from '@strata/domain/events';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { EventStore } from '@strata/event-store/event-store.port';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { MongoGraphStore } from '@strata/graph-store/mongo/mongo-graph-store';
import { MongoGraphWriter } from '@strata/graph-store/mongo/mongo-graph-writer';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { GraphEventLog } from '@strata/graph-store/testing/graph-event-log.fixture';
import { GraphServerProjection } from './graph.server-projection';
import { MongoLeaseStore } from './mongo-lease-store';
import { LeaseStorePort, ServerProjectionRunner } from './server-projection-runner';

// The projection worker against a real MongoDB (checkpoints, lease, read model), on the
// KurrentDB log when STRATA_KURRENTDB_URL is set too, else on a SQLite log.
// docker compose up, then: STRATA_MONGO_URL=mongodb://localhost:27017/?replicaSet=rs0 npm run test:servers
const mongoUrl = process.env.STRATA_MONGO_URL;
const kurrentUrl = process.env.STRATA_KURRENTDB_URL;

if (mongoUrl) {
  jest.setTimeout(120_000);

  describe('projection worker on MongoDB', () => {
    let client: MongoClient;
    let db: Db;
    let log: EventStore;
    let dir: string;
    let store: MongoGraphStore;
    const quiet = { log: () => undefined, warn: () => undefined, error: console.error };
    const org = `org-${randomUUID().slice(0, 8)}`;
    const fixture = new GraphEventLog();
    // leases held by a stopping worker are released, never left to expire: the clock need not move
    const clock = new FixedClock();
    /** who asked for the lease, in order */
    const acquisitions: string[] = [];
    const observed = (inner: LeaseStorePort): LeaseStorePort => ({
      terms: inner.terms,
      acquire: (name, me) => (acquisitions.push(me), inner.acquire(name, me)),
      renew: (name, me, epoch) => inner.renew(name, me, epoch),
      release: (name, me, epoch) => inner.release(name, me, epoch),
    });

    beforeAll(async () => {
      client = await new MongoClient(mongoUrl).connect();
      db = client.db(`strata_worker_${randomUUID().slice(0, 8)}`);
      store = new MongoGraphStore(db);
      await store.ensureIndexes();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-worker-'));
      log = kurrentUrl ? new KurrentDbEventStore(kurrentUrl) : new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
    });
    afterAll(async () => {
      await log.close();
      await db.dropDatabase();
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Appends the fixture's pending events to the real log, one append per event. */
    const record = async (): Promise<{ head: number; recorded: RecordedEvent[] }> => {
      const recorded: RecordedEvent[] = [];
      let head = 0;
      for (const e of fixture.take()) {
        const r = await log.append([{ stream: e.stream, expectedRevision: 'any', events: [{ ...eventFromLog(e.type, e.data), metadata: e.metadata }] }]);
        head = r.position;
        recorded.push({ ...e, revision: r.revisions[e.stream], position: r.position });
      }
      return { head, recorded };
    };
    const worker = (owner: string) =>
      new ServerProjectionRunner({
        log,
        checkpoints: new MongoCheckpointStore(db, clock),
        leases: observed(new MongoLeaseStore(db, { ttlMs: 3_000 }, clock)),
        projections: [new GraphServerProjection(new MongoGraphWriter(store))],
        owner,
        batchSize: 50,
        retryDelayMs: 100,
        logger: quiet,
        clock,
      });

    it('projects the log into MongoDB exactly as the SQLite writer does, and resumes from its checkpoint after a restart', async () => {
      for (let i = 0; i < 30; i++) fixture.createNode(org, { label: `Node ${i}`, node_type: i % 2 ? 'Note' : 'Goal', props: i % 2 ? {} : { description: 'g' } }, { uid: `n${i}` });
      for (let i = 1; i < 30; i++) fixture.createEdge(org, `n${i - 1}`, `n${i}`, { edge_type: 'RelatedTo' }, { uid: `e${i}` });
      fixture.updateNode(org, 'n3', { label: 'Three' });
      fixture.tombstoneNode(org, 'n4');
      const first = await record();
      const a = worker('worker-a');
      a.start();
      await a.waitFor(first.head);
      await a.stop();
      const checkpoint = (await new MongoCheckpointStore(db, clock).get('graph'))!.position;
      expect(checkpoint).toBeGreaterThanOrEqual(first.head);

      fixture.decay(org, [{ uid: 'n5', salience: 0.1 }]);
      fixture.createNode(org, { label: 'After restart', node_type: 'Note' }, { uid: 'late' });
      const second = await record();
      const b = worker('worker-b');
      b.start();
      await b.waitFor(second.head);
      await b.stop();

      // the same events through the SQLite writer: both read models must answer alike
      const sqlite = new SqliteGraphStore(new Database(':memory:'));
      const writer = new SqliteGraphWriter(sqlite);
      for (const e of [...first.recorded, ...second.recorded]) writer.apply(e);
      const page = { limit: 1000, offset: 0 };
      expect(await store.listNodes(org, { include_tombstoned: true }, page)).toEqual(await sqlite.listNodes(org, { include_tombstoned: true }, page));
      expect(await store.listEdges(org, { include_tombstoned: true })).toEqual(await sqlite.listEdges(org, { include_tombstoned: true }));
      expect(await store.stats(org)).toEqual(await sqlite.stats(org));
      expect(await store.nodeRevision(org, 'n3')).toBe(await sqlite.nodeRevision(org, 'n3'));
    });

    it('lets one worker apply while another stands by, and hands over when the holder stops', async () => {
      const a = worker('holder');
      const b = worker('standby');
      a.start();
      await eventually(() => a.holding, { what: 'the first worker to hold the lease' });
      b.start();
      await eventually(() => acquisitions.includes('standby'), { what: 'the standby to ask for the lease' });
      expect(a.holding).toBe(true);
      expect(b.holding).toBe(false);
      fixture.createNode(org, { label: 'Handed over', node_type: 'Note' }, { uid: 'handover' });
      const { head } = await record();
      await a.waitFor(head);
      await a.stop();
      fixture.createNode(org, { label: 'Applied by the standby', node_type: 'Note' }, { uid: 'by-standby' });
      const next = await record();
      await b.waitFor(next.head);
      expect(b.holding).toBe(true);
      await b.stop();
      expect(await store.getNode(org, 'by-standby')).toMatchObject({ label: 'Applied by the standby' });
    });
  });
} else {
  describe('projection worker on MongoDB', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('projection worker integration skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
