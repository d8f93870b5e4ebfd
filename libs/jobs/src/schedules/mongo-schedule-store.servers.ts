/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describeScheduleStoreConformance } from '../testing/schedule-store.conformance';
import { MongoScheduleStore } from './mongo-schedule-store';

// runs when STRATA_MONGO_URL is set (docker compose up, then npm run test:servers)
const url = process.env.STRATA_MONGO_URL;

if (url) {
  jest.setTimeout(60_000);
  describeScheduleStoreConformance('MongoScheduleStore', async () => {
    const client = await new MongoClient(url).connect();
    const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
    return {
      store: new MongoScheduleStore(db),
      other: new MongoScheduleStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('MongoScheduleStore conformance', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoScheduleStore conformance skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
