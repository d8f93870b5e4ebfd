/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { ClockIds, FixedClock } from '@strata/domain/time';
import { describeJobQueueConformance } from '../testing/job-queue.conformance';
import { MongoJobQueue } from './mongo-job-queue';

// runs when STRATA_MONGO_URL is set (docker compose up, then npm run test:servers)
const url = process.env.STRATA_MONGO_URL;

if (url) {
  jest.setTimeout(60_000);
  describeJobQueueConformance('MongoJobQueue', async () => {
    const client = await new MongoClient(url).connect();
    const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
    const clock = new FixedClock();
    const ids = new ClockIds(clock);
    return {
      queue: new MongoJobQueue(db, clock, ids),
      other: new MongoJobQueue(db, clock, ids),
      clock,
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('MongoJobQueue conformance', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoJobQueue conformance skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
