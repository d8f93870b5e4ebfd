// The conformance suite (./testing) is deliberately not exported: tests import it by path.
export * from './event-store.port';
export { assertValidAppends, checkExpectedRevision, revisionMatches } from './expected-revision';
export { SqliteEventStore } from './sqlite/sqlite-event-store';
export type { SqliteEventStoreOptions, SubscribeOptions } from './sqlite/sqlite-event-store';
export { KurrentDbEventStore } from './kurrentdb/kurrentdb-event-store';
export type { KurrentDbEventStoreOptions, KurrentDbSubscribeOptions } from './kurrentdb/kurrentdb-event-store';
