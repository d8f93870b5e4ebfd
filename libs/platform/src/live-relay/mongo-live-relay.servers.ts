/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { eventually } from '@strata/domain/testing/eventually';
import { MongoLiveRelay } from './mongo-live-relay';

// runs when STRATA_MONGO_URL is set (docker compose up, then npm run test:servers)
const url = process.env.STRATA_MONGO_URL;

if (url) {
  jest.setTimeout(60_000);
  describe('MongoLiveRelay', () => {
    it('delivers what one replica publishes to every replica listening, in order, and nothing from before it listened', async () => {
      const client = await new MongoClient(url).connect();
      const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
      const one = new MongoLiveRelay(db);
      const two = new MongoLiveRelay(db);
      try {
        one.publish('c', 'before');
        await eventually(async () => (await db.collection('live_relay').countDocuments({ payload: 'before' })) === 1);
        const gotOne: unknown[] = [];
        const gotTwo: unknown[] = [];
        const probes = { one: 0, two: 0 };
        one.subscribe((ch, p) => (ch === 'c' ? gotOne.push(p) : probes.one++));
        const stop = two.subscribe((ch, p) => (ch === 'c' ? gotTwo.push(p) : probes.two++));
        // the cursors start at the end they found: probe until both tail
        await eventually(() => {
          one.publish('probe', null);
          return probes.one > 0 && probes.two > 0;
        }, { timeoutMs: 20_000 });
        // one turn's messages are one document; turns follow one another in order
        for (let i = 0; i < 20; i++) one.publish('c', i);
        await new Promise((r) => setImmediate(r));
        for (let i = 20; i < 40; i++) one.publish('c', i);
        await eventually(() => gotOne.length >= 40 && gotTwo.length >= 40, { timeoutMs: 20_000 });
        expect(gotTwo.slice(-40)).toEqual(Array.from({ length: 40 }, (_, i) => i));
        expect(gotOne.slice(-40)).toEqual(Array.from({ length: 40 }, (_, i) => i));
        expect(await db.collection('live_relay').countDocuments({ 'batch.channel': 'c' })).toBe(2);
        expect(gotOne).not.toContain('before');
        stop();
      } finally {
        await one.close();
        await two.close();
        await db.dropDatabase();
        await client.close();
      }
    });
  });
} else {
  describe('MongoLiveRelay', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoLiveRelay skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
