/**
 * @jest-environment ./libs/text-index/src/testing/native-require-environment.ts
 */
import { randomUUID } from 'node:crypto';
import { describeTextIndexConformance } from '../testing/text-index.conformance';
import { MeilisearchTextIndex, type MeilisearchModule } from './meilisearch-text-index';

const url = process.env.STRATA_MEILI_URL;

if (!url) {
  describe('MeilisearchTextIndex (servers)', () => {
    it('is skipped without a server', () => {
      console.log('skipped: STRATA_MEILI_URL not set (docker compose up, then npm run test:servers)');
    });
  });
} else {
  // A throwaway index per run, deleted afterwards, so runs never see each other's data.
  const indexUid = `strata_test_${randomUUID().replace(/-/g, '')}`;
  const nativeRequire = (globalThis as { __strataNativeRequire?: (id: string) => unknown }).__strataNativeRequire;
  if (!nativeRequire) throw new Error('run this suite with its @jest-environment (see file header)');
  const { Meilisearch } = nativeRequire('meilisearch') as MeilisearchModule;
  const client = new Meilisearch({ host: url, apiKey: process.env.STRATA_MEILI_KEY });

  describeTextIndexConformance('MeilisearchTextIndex', () => new MeilisearchTextIndex({ client, indexUid }), {
    timeoutMs: 60_000,
    teardown: async () => {
      await client.deleteIndexIfExists(indexUid);
    },
  });
}
