import Database from 'better-sqlite3';
import { describeGraphReadModelConformance } from '../testing/graph-read-model.conformance';
import { SqliteGraphStore } from './sqlite-graph-store';
import { SqliteGraphWriter } from './sqlite-graph-writer';

describeGraphReadModelConformance('SqliteGraphStore', async () => {
  const db = new Database(':memory:');
  const model = new SqliteGraphStore(db);
  const writer = new SqliteGraphWriter(model);
  const applyAll = db.transaction((events: Parameters<SqliteGraphWriter['apply']>[0][]) => {
    for (const e of events) writer.apply(e);
  });
  return {
    model,
    apply: async (events) => applyAll(events),
    cleanup: async () => {
      db.close();
    },
  };
});
