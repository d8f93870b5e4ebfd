import Database from 'better-sqlite3';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { createEmbedded } from './projection-definition';
import { PROJECTIONS, mirroredProjections } from './projection-registry';

describe('the projection registry', () => {
  it('names each read model once, as the projection it builds names itself', () => {
    const db = new Database(':memory:');
    try {
      const deps = { db, graph: new SqliteGraphStore(db), text: new SqliteTextIndex(db) };
      const names = PROJECTIONS.map((d) => d.name);
      expect(new Set(names).size).toBe(names.length);
      expect(PROJECTIONS.map((d) => createEmbedded(d, deps).name)).toEqual(names);
      expect(names[0]).toBe('graph');
    } finally {
      db.close();
    }
  });

  it('runs every read model in servers mode: the graph and its text index in the worker, the rest in each replica', () => {
    expect(PROJECTIONS.filter((d) => d.servers === 'worker').map((d) => d.name)).toEqual(['graph', 'text']);
    const mirrored = mirroredProjections();
    expect(mirrored.map((d) => d.name)).toEqual(PROJECTIONS.map((d) => d.name).filter((n) => n !== 'graph' && n !== 'text'));
    // a mirrored projection is fed at start, by a backfill pass, or both: never by nothing
    for (const d of mirrored) expect(d.streams.length + (d.backfill?.streams.length ?? 0)).toBeGreaterThan(0);
  });
});
