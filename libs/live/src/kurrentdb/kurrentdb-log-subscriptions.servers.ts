/// <reference types="jest" />
// jest types referenced explicitly: tsconfig.build.json (types: node) still compiles *.servers.ts
import { KurrentDbEventStore } from '@strata/event-store';
import { describeLogSubscriptionsConformance } from '../testing/log-subscriptions.conformance';
import { KurrentDbLogSubscriptions } from './kurrentdb-log-subscriptions';

// STRATA_KURRENTDB_URL=kurrentdb://localhost:2113?tls=false npm run test:servers
const url = process.env.STRATA_KURRENTDB_URL;

if (url) {
  jest.setTimeout(60_000);
  describeLogSubscriptionsConformance('KurrentDbLogSubscriptions', async () => {
    const store = new KurrentDbEventStore(url);
    const subs = new KurrentDbLogSubscriptions(store.client, store);
    // the server pushes new events to the subscription itself: nothing to signal
    return { store, subs, committed: () => undefined, cleanup: () => store.close() };
  });
} else {
  describe('KurrentDbLogSubscriptions conformance', () => {
    it('is skipped because STRATA_KURRENTDB_URL is not set', () => {
      console.log('KurrentDbLogSubscriptions conformance skipped: STRATA_KURRENTDB_URL not set (docker compose up, then npm run test:servers)');
    });
  });
}
