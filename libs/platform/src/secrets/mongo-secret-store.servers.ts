/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoSecretStore } from './mongo-secret-store';
import { secretOwner } from './secret-store.port';
import { describeSecretStoreConformance } from './testing/secret-store.conformance';

// runs when STRATA_MONGO_URL is set (docker compose up, then npm run test:servers)
const url = process.env.STRATA_MONGO_URL;

if (url) {
  jest.setTimeout(60_000);
  describeSecretStoreConformance('MongoSecretStore', async () => {
    const client = await new MongoClient(url).connect();
    const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
    return {
      open: (cipher) => new MongoSecretStore(db, cipher),
      raw: async (org, conn) => ((await db.collection('mcp_connection_secrets').findOne({ _id: secretOwner(org, conn) as never })) as { sealed?: string } | null)?.sealed ?? null,
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('MongoSecretStore conformance', () => {
    it('is skipped because STRATA_MONGO_URL is not set', () => {
      console.log('MongoSecretStore conformance skipped: STRATA_MONGO_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
