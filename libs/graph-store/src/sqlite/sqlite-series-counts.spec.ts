import Database from 'better-sqlite3';
import { GraphEventLog } from '../testing/graph-event-log.fixture';
import { createGraphSchema } from './sqlite-graph-schema';
import { SqliteGraphStore } from './sqlite-graph-store';
import { SqliteGraphWriter } from './sqlite-graph-writer';

/**
 * GET /stats and a series' size read per-series counts (series_counts) instead of counting
 * points. These tests hold the counts to the rows they stand for.
 */

function counted(db: Database.Database): Record<string, number> {
  const rows = db.prepare('SELECT org, series_uid, points FROM series_counts ORDER BY org, series_uid').all() as { org: string; series_uid: string; points: number }[];
  return Object.fromEntries(rows.map((r) => [`${r.org}/${r.series_uid}`, r.points]));
}

function actual(db: Database.Database): Record<string, number> {
  const rows = db.prepare('SELECT org, series_uid, count(*) AS n FROM series_points GROUP BY org, series_uid ORDER BY org, series_uid').all() as {
    org: string;
    series_uid: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [`${r.org}/${r.series_uid}`, r.n]));
}

describe('series point counts (SQLite read model)', () => {
  it('match the points held through repeated timestamps, purges and clears, in every organization', () => {
    const db = new Database(':memory:');
    const store = new SqliteGraphStore(db);
    const writer = new SqliteGraphWriter(store);
    const log = new GraphEventLog();
    const apply = () => db.transaction(() => log.take().forEach((e) => writer.apply(e)))();

    let seed = 7;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let round = 0; round < 300; round++) {
      const org = `org-${random(2)}`;
      const series = `s${random(5)}`;
      const choice = random(20);
      if (choice === 0) log.purge(org, { node_uids: [series], edge_uids: [], cutoff: null });
      else if (choice === 1) log.clear(org);
      // timestamps from a small range, so that many points replace an existing one
      else log.appendPoints(org, series, Array.from({ length: 1 + random(30) }, () => ({ ts: random(200), value: random(1000) })));
      apply();
      expect(counted(db)).toEqual(actual(db));
    }
    for (const org of ['org-0', 'org-1']) {
      const points = db.prepare('SELECT count(*) FROM series_points WHERE org = ?').pluck().get(org) as number;
      expect(store.statsSync(org).series_point_count).toBe(points);
      for (let s = 0; s < 5; s++)
        expect(store.seriesPointCountSync(org, `s${s}`)).toBe(db.prepare('SELECT count(*) FROM series_points WHERE org = ? AND series_uid = ?').pluck().get(org, `s${s}`));
    }
  });

  it('are filled once from the points of a database that predates them', () => {
    const db = new Database(':memory:');
    createGraphSchema(db);
    db.exec('DROP TABLE series_counts');
    const insert = db.prepare('INSERT INTO series_points(org, series_uid, ts, value, recorded_at) VALUES (?,?,?,?,0)');
    for (let ts = 0; ts < 40; ts++) insert.run('org-a', 'temp', ts, ts);
    for (let ts = 0; ts < 3; ts++) insert.run('org-b', 'temp', ts, ts);

    const store = new SqliteGraphStore(db);
    expect(counted(db)).toEqual({ 'org-a/temp': 40, 'org-b/temp': 3 });
    expect(store.statsSync('org-a').series_point_count).toBe(40);
    expect(store.seriesPointCountSync('org-b', 'temp')).toBe(3);
    // a second open leaves them alone
    createGraphSchema(db);
    expect(counted(db)).toEqual({ 'org-a/temp': 40, 'org-b/temp': 3 });
  });
});
