import { describeActivityStoreConformance } from '../testing/activity-store.conformance';
import { SqliteActivityStore } from './sqlite-activity-store';

describeActivityStoreConformance('SqliteActivityStore', async () => {
  const store = new SqliteActivityStore(':memory:');
  return { store, cleanup: () => store.close() };
});
