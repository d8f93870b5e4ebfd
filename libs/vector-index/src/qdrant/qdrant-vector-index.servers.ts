import { QdrantClient } from '@qdrant/js-client-rest';
import { randomUUID } from 'node:crypto';
import { describeVectorIndexConformance } from '../testing/vector-index.conformance';
import { QdrantVectorIndex } from './qdrant-vector-index';

const url = process.env.STRATA_QDRANT_URL;

if (!url) {
  describe('QdrantVectorIndex (servers)', () => {
    it('is skipped without a server', () => {
      console.log('skipped: STRATA_QDRANT_URL not set (docker compose up, then npm run test:servers)');
    });
  });
} else {
  // a per-run collection prefix keeps runs apart; the suite removes its orgs afterwards
  const collectionPrefix = `strata_test_${randomUUID().slice(0, 8)}`;
  const client = new QdrantClient({ url, apiKey: process.env.STRATA_QDRANT_KEY, checkCompatibility: false });
  describeVectorIndexConformance('QdrantVectorIndex', () => new QdrantVectorIndex({ client, collectionPrefix }), {
    timeoutMs: 60_000,
  });
}
