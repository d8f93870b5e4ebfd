/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describeGraphReadModelConformance } from '../testing/graph-read-model.conformance';
import { GraphEventLog } from '../testing/graph-event-log.fixture';
import { MongoCheckpointStore } from './mongo-checkpoint-store';
import { MongoGraphStore } from './mongo-graph-store';
import { MongoGraphWriter } from './mongo-graph-writer';
import { FixedClock } from '@strata/domain/time';

// Server adapters run the same conformance suite when their URL is set
// (docker compose up, then: STRATA_MONGO_URL=mongodb://localhost:27017/?replicaSet=rs0 npm run test:servers).
const url = process.env.STRATA_MONGO_URL;

/** A scratch database per suite, dropped afterwards. */
async function open(): Promise<{ client: MongoClient; store: MongoGraphStore; writer: MongoGraphWriter; drop: () => Promise<void> }> {
  const client = await new MongoClient(url!).connect();
  const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
  const store = new MongoGraphStore(db);
  await store.ensureIndexes();
  return {
    client,
    store,
    writer: new MongoGraphWriter(store),
    drop: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

if (url) {
  jest.setTimeout(60_000);

  describeGraphReadModelConformance('MongoGraphStore', async () => {
    const { store, writer, drop } = await open();
    return { model: store, apply: (events) => writer.apply(events), cleanup: drop };
  });

  describe('MongoGraphWriter position guard', () => {
    let env: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      env = await open();
    });
    afterAll(async () => {
      await env.drop();
    });

    it('changes nothing when a batch is applied again (a replay after a crash before the checkpoint)', async () => {
      const log = new GraphEventLog();
      const org = 'org-replay';
      const a = log.createNode(org, { label: 'A', node_type: 'Note' }, { uid: 'a' });
      const b = log.createNode(org, { label: 'B', node_type: 'Note' }, { uid: 'b' });
      log.createEdge(org, a.uid, b.uid, { edge_type: 'RelatedTo' }, { uid: 'ab' });
      log.updateNode(org, 'a', { label: 'A2' });
      log.touchNode(org, { uid: 'b', props: { n: 1 } });
      log.setAlias(org, { text: 'A', norm: 'a', canonical_uid: 'a', score: 1 });
      log.appendPoints(org, 'b', [{ ts: 1, value: 2 }]);
      const events = log.take();
      await env.writer.apply(events);
      const before = await env.store.stats(org);
      const nodeA = await env.store.getNode(org, 'a');
      await env.writer.apply(events);
      await env.writer.apply(events.slice(2));
      expect(await env.store.stats(org)).toEqual(before);
      expect(await env.store.getNode(org, 'a')).toEqual(nodeA);
      expect(await env.store.versionCount(org, ['a', 'b'], ['ab'])).toBe(4);
      expect(await env.store.nodeRevision(org, 'b')).toBe(1);
    });

    it('never regresses a row when an older event arrives after a newer one', async () => {
      const log = new GraphEventLog(1_000);
      const org = 'org-late';
      log.createNode(org, { label: 'First', node_type: 'Note' }, { uid: 'n' });
      const [created] = log.take();
      const updated = log.updateNode(org, 'n', { label: 'Second' });
      const [update] = log.take();
      await env.writer.apply([created, update]);
      await env.writer.apply([created]);
      expect(await env.store.getNode(org, 'n')).toEqual(updated);
      expect(await env.store.nodeRevision(org, 'n')).toBe(1);
    });

    it('does not let a replayed delete remove a row written after it', async () => {
      const log = new GraphEventLog(2_000);
      const org = 'org-delete';
      log.setAlias(org, { text: 'X', norm: 'x', canonical_uid: 'n', score: 1 });
      log.removeAlias(org, 'x', 'n');
      const [, removal] = log.take();
      log.setAlias(org, { text: 'X again', norm: 'x', canonical_uid: 'n', score: 1 });
      const later = log.take();
      await env.writer.apply([removal, ...later]);
      await env.writer.apply([removal]);
      expect((await env.store.aliasesOf(org, 'n')).map((a) => a.text)).toEqual(['X again']);
    });
  });

  describe('MongoCheckpointStore', () => {
    let env: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      env = await open();
    });
    afterAll(async () => {
      await env.drop();
    });

    it('moves a checkpoint forward only, and only for the version that reset it', async () => {
      const cps = new MongoCheckpointStore(env.store.db, new FixedClock());
      expect(await cps.get('graph')).toBeNull();
      expect(await cps.lowest(['graph'])).toBe(0);
      await cps.reset('graph', 1);
      expect(await cps.advance('graph', 1, 10)).toBe(true);
      expect(await cps.advance('graph', 1, 5)).toBe(true);
      expect((await cps.get('graph'))!.position).toBe(10);
      await cps.reset('graph', 2);
      expect(await cps.advance('graph', 1, 50)).toBe(false);
      expect((await cps.get('graph'))!.position).toBe(0);
      await cps.reset('text', 1);
      await cps.advance('graph', 2, 7);
      await cps.advance('text', 1, 9);
      expect(await cps.lowest(['graph', 'text'])).toBe(7);
      await cps.setError('text', 'meilisearch unreachable');
      expect((await cps.get('text'))!.last_error).toBe('meilisearch unreachable');
    });
  });
} else {
  describe('MongoGraphStore conformance', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoGraphStore conformance skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
