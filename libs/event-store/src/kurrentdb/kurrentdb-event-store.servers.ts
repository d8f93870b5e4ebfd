/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { describeEventStoreConformance } from '../testing/event-store.conformance';
import { KurrentDbEventStore } from './kurrentdb-event-store';

// Server adapters run the same conformance suite when their URL is set
// (docker compose up, then: STRATA_KURRENTDB_URL=kurrentdb://localhost:2113?tls=false npm run test:servers).
const url = process.env.STRATA_KURRENTDB_URL;

if (url) {
  jest.setTimeout(60_000);
  describeEventStoreConformance('KurrentDbEventStore', async () => {
    const store = new KurrentDbEventStore(url, { resubscribeDelayMs: 200 });
    return { store, cleanup: () => store.close() };
  });
} else {
  describe('KurrentDbEventStore conformance', () => {
    it('is skipped because STRATA_KURRENTDB_URL is not set', () => {
      console.log('KurrentDbEventStore conformance skipped: STRATA_KURRENTDB_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
