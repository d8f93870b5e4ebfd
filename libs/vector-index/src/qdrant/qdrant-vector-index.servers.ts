import { QdrantClient } from '@qdrant/js-client-rest';
import { randomUUID } from 'node:crypto';
import { describeVectorIndexConformance } from '../testing/vector-index.conformance';
import { QdrantVectorIndex } from './qdrant-vector-index';
import { FixedClock } from '@strata/domain/time';

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
  describeVectorIndexConformance('QdrantVectorIndex', () => new QdrantVectorIndex({ client, collectionPrefix, clock: new FixedClock() }), {
    timeoutMs: 60_000,
  });

  // what server mode reads beyond the port: a node's vector, which uids have one, a rebuild's reset
  describe('QdrantVectorIndex beyond the port', () => {
    jest.setTimeout(60_000);
    const prefix = `strata_test_${randomUUID().slice(0, 8)}`;
    const index = new QdrantVectorIndex({ client, collectionPrefix: prefix, clock: new FixedClock() });
    afterAll(() => index.removeAll());

    it('hands out a stored vector (normalised under cosine) and says which uids have one', async () => {
      await index.configure('org-x', { dimensions: 2, metric: 'dot' });
      await index.upsert('org-x', [{ uid: 'a', vector: [0.5, 2], node_type: 'Note', layer: 'reality' }]);
      expect(await index.getVector('org-x', 'a')).toEqual([0.5, 2]);
      expect(await index.getVector('org-x', 'b')).toBeUndefined();
      expect(await index.getVector('org-unconfigured', 'a')).toBeUndefined();
      expect([...(await index.has('org-x', ['a', 'b']))]).toEqual(['a']);
    });

    it('drops every collection of its prefix, and only those', async () => {
      const other = new QdrantVectorIndex({ client, collectionPrefix: `${prefix}x`, clock: new FixedClock() });
      await other.configure('org-y', { dimensions: 2, metric: 'cosine' });
      await index.configure('org-z', { dimensions: 2, metric: 'cosine' });
      await index.removeAll();
      expect(await index.count('org-x')).toBe(0);
      expect(await index.count('org-z')).toBe(0);
      await other.upsert('org-y', [{ uid: 'kept', vector: [1, 0], node_type: 'Note', layer: 'reality' }]);
      expect(await other.count('org-y')).toBe(1);
      await other.removeAll();
    });
  });
}
