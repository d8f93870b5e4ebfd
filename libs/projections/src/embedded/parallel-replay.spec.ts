import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventMetadata, Streams, eventFromLog, recordedEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { StreamAppend } from '@strata/event-store/event-store.port';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { EmbeddedProjection } from '../projection';
import { noteRecord } from '../testing/projection-event-fixtures';
import { dumpRows, dumpSources } from './canonical-dump';
import { CheckpointStore } from './checkpoint-store';
import { GraphProjection } from './graph.projection';
import { ReplayOptions, replayLog } from './log-replay';
import { APPLY_EVENT, planOutsideGraphObjects } from './replay-plan';
import { TextProjection } from './text.projection';

/**
 * A replay that reads and plans the log on a second thread must leave exactly the rows of a
 * replay on one thread, for every kind of graph event, from any checkpoint, to any bound.
 */

const ORGS = ['org-a', 'org-b'];

function meta(org: string, i: number): EventMetadata {
  return { org_id: org, principal: { kind: 'api_key', id: 'k' }, credential_id: 'k', agent_id: null, request_id: `r${i}`, occurred_at: i };
}

function edgeRecord(uid: string, from: string, to: string, over: Partial<EdgeRecord> = {}): EdgeRecord {
  return {
    uid, from_uid: from, to_uid: to, edge_type: 'RelatedTo', layer: 'reality', weight: 1, confidence: 1, props: { _type: 'RelatedTo' },
    agent_id: null, version: 1, created_at: 1, updated_at: 1, tombstone_at: null, tombstone_reason: null, ...over,
  };
}

/** A log with every event type the graph and text projections handle, in two organizations, plus one they ignore. */
function writeVariedLog(file: string): SqliteEventStore {
  const log = new SqliteEventStore(file);
  let i = 0;
  const one = (stream: string, type: string, data: unknown, org: string): StreamAppend => ({ stream, expectedRevision: 'any', events: [{ ...eventFromLog(type, data), metadata: meta(org, ++i) }] });
  for (const org of ORGS) {
    const nodes: NodeRecord[] = [];
    for (let n = 0; n < 60; n++) {
      const node = noteRecord(`${org}-n${n}`, `Note ${n} about ${n % 3 ? 'graphs' : 'replays'}`, { created_at: n, updated_at: n, props: { _type: 'Note', content: `body ${n}` } as NodeRecord['props'] });
      nodes.push(node);
      log.appendSync([one(Streams.node(org, node.uid), 'NodeCreated', { node, reason: null }, org)]);
    }
    const edges: EdgeRecord[] = [];
    for (let n = 0; n < 40; n++) {
      const edge = edgeRecord(`${org}-e${n}`, nodes[n].uid, nodes[(n * 7) % 60].uid, { weight: (n % 10) / 10 });
      edges.push(edge);
      log.appendSync([one(Streams.edge(org, edge.uid), 'EdgeCreated', { edge, reason: null }, org)]);
    }
    const at = (n: number) => Streams.node(org, nodes[n].uid);
    const each: StreamAppend[] = [
      one(at(1), 'NodeUpdated', { node: { ...nodes[1], label: 'Renamed', version: 2 }, reason: 'edit' }, org),
      one(at(2), 'NodeTombstoned', { node: { ...nodes[2], tombstone_at: 5, version: 2 }, reason: null }, org),
      one(at(3), 'NodeTombstoned', { node: { ...nodes[3], tombstone_at: 5, version: 2 }, reason: null }, org),
      one(at(3), 'NodeRestored', { node: { ...nodes[3], version: 3 }, reason: null }, org),
      one(Streams.edge(org, edges[0].uid), 'EdgeUpdated', { edge: { ...edges[0], weight: 0.25, version: 2 }, reason: null }, org),
      one(Streams.edge(org, edges[1].uid), 'EdgeTombstoned', { edge: { ...edges[1], tombstone_at: 6, tombstone_reason: 'gone', version: 2 }, reason: null }, org),
      one(at(4), 'NodeTouched', { uid: nodes[4].uid, salience: 0.9, updated_at: 7, props: { content: 'touched' } }, org),
      one(at(5), 'AliasSet', { norm: 'alias five', canonical_uid: nodes[5].uid, text: 'Alias Five', score: 1, created_at: 8 }, org),
      one(at(6), 'AliasSet', { norm: 'alias six', canonical_uid: nodes[6].uid, text: 'Alias Six', score: 1, created_at: 8 }, org),
      one(at(6), 'AliasRemoved', { norm: 'alias six', canonical_uid: nodes[6].uid }, org),
      one(`embedding-config-${org}`, 'EmbeddingConfigured', { provider: 'builtin', model: 'lexical', dimensions: 3, distance_metric: 'cosine', configured_at: 9, dropped: false }, org),
      one(at(7), 'EmbeddingSet', { uid: nodes[7].uid, model: 'lexical', vector: [0.1, 0.2, 0.3], updated_at: 9 }, org),
      one(at(8), 'EmbeddingSet', { uid: nodes[8].uid, model: 'lexical', vector: [0.3, 0.2, 0.1], updated_at: 9 }, org),
      one(at(8), 'EmbeddingDeleted', { uid: nodes[8].uid }, org),
      one(at(9), 'SeriesPointsAppended', { series_uid: nodes[9].uid, points: [{ ts: 1, value: 2, source_uid: null, note: null, recorded_at: 10 }, { ts: 2, value: 3, source_uid: null, note: 'n', recorded_at: 10 }] }, org),
      one(`decay-${org}`, 'SalienceDecayed', { at: 11, items: [{ uid: nodes[10].uid, salience: 0.1 }, { uid: nodes[11].uid, salience: 0.2 }] }, org),
      one(`purge-${org}`, 'GraphPurged', { node_uids: [nodes[2].uid], edge_uids: [edges[1].uid] }, org),
      one(`account-${org}`, 'SomethingElseHappened', { note: 'not a graph event' }, org),
    ];
    for (const a of each) log.appendSync([a]);
  }
  // one organization cleared and written again, the other left as it is
  log.appendSync([one(`graph-${ORGS[1]}`, 'GraphCleared', {}, ORGS[1])]);
  const again = noteRecord(`${ORGS[1]}-after`, 'Written after the clear');
  log.appendSync([one(Streams.node(ORGS[1], again.uid), 'NodeCreated', { node: again, reason: null }, ORGS[1])]);
  return log;
}

function projectionsOf(db: Database.Database): EmbeddedProjection[] {
  return [new GraphProjection(new SqliteGraphStore(db)), new TextProjection(new SqliteTextIndex(db))];
}

function dump(db: Database.Database): unknown[] {
  return dumpSources(db).map((s) => ({ table: s.table, rows: [...dumpRows(db, s)] }));
}

describe('parallel log replay', () => {
  let dir: string;
  let log: SqliteEventStore;
  const dbs: Database.Database[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-parallel-replay-'));
    log = writeVariedLog(path.join(dir, 'events.db'));
  });

  afterAll(async () => {
    for (const db of dbs) db.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function replayInto(name: string, runs: ReplayOptions[]) {
    const db = new Database(path.join(dir, `${name}.db`));
    dbs.push(db);
    const target = { db, projections: projectionsOf(db), checkpoints: new CheckpointStore(db) };
    return { db, target, run: async () => { for (const opts of runs) await replayLog(target, log, opts); } };
  }

  it('leaves the same rows as a replay on one thread, for every graph event type', async () => {
    const one = replayInto('sequential', [{ parallel: false }]);
    const two = replayInto('parallel', [{ parallel: true, page: 7, batch: 13 }]);
    await one.run();
    await two.run();
    const expected = dump(one.db);
    expect(JSON.stringify(expected)).toContain('Alias Five');
    expect(dump(two.db)).toEqual(expected);
    expect(two.target.checkpoints.get('graph')?.position).toBe(log.headPositionSync());
    expect(two.target.checkpoints.get('text')?.position).toBe(log.headPositionSync());
  });

  it('resumes from checkpoints and stops at a bound like a replay on one thread', async () => {
    const head = log.headPositionSync();
    const one = replayInto('sequential-legs', [{ parallel: false }]);
    const legs = replayInto('parallel-legs', [{ parallel: true, until: 45 }, { parallel: true, until: 130, page: 11 }, { parallel: true }]);
    await one.run();
    await legs.run();
    expect(dump(legs.db)).toEqual(dump(one.db));

    // per-projection bounds: text stops short of the head, the graph goes all the way
    const bounded = replayInto('parallel-bounded', [{ parallel: true, bounds: new Map([['text', 100]]) }]);
    await bounded.run();
    expect(bounded.target.checkpoints.get('text')?.position).toBe(100);
    expect(bounded.target.checkpoints.get('graph')?.position).toBe(head);
    const textOnly = replayInto('sequential-text-100', [{ parallel: false, until: 100 }]);
    await textOnly.run();
    const ftsOf = (d: unknown[]) => d.filter((t) => (t as { table: string }).table.startsWith('text_'));
    expect(ftsOf(dump(bounded.db))).toEqual(ftsOf(dump(textOnly.db)));
    // five whole replays, three of them on worker threads: seconds on a loaded two-core machine
  }, 30_000);

  it('rolls back the open batch and stops its reader when a projection fails', async () => {
    const db = new Database(path.join(dir, 'failing.db'));
    dbs.push(db);
    const graph = new GraphProjection(new SqliteGraphStore(db));
    const failing = Object.assign(Object.create(graph) as GraphProjection, {
      applyPlanned(): void {
        throw new Error('disk full');
      },
    });
    const target = { db, projections: [failing], checkpoints: new CheckpointStore(db) };
    await expect(replayLog(target, log, { parallel: true })).rejects.toThrow('disk full');
    expect(db.inTransaction).toBe(false);
    expect(target.checkpoints.get('graph')).toBeNull();
  });

  it('reports a log it cannot read as an error, not as an empty replay', async () => {
    const db = new Database(path.join(dir, 'unreadable.db'));
    dbs.push(db);
    const target = { db, projections: projectionsOf(db), checkpoints: new CheckpointStore(db) };
    const missing = { file: path.join(dir, 'no-such-log.db'), headPositionSync: () => 10, iterateAll: log.iterateAll.bind(log) };
    await expect(replayLog(target, missing, { parallel: true })).rejects.toThrow(/log reader failed: unable to open/);
    expect(db.inTransaction).toBe(false);
  });
});

describe('planOutsideGraphObjects', () => {
  const at = (stream: string) => recordedEvent({ id: '', stream, revision: 0, position: 1, type: 'AnyType', data: {}, metadata: meta('o', 1) });

  it('skips node and edge streams and applies every other event whole', () => {
    expect(planOutsideGraphObjects(at(Streams.node('o', 'n1')))).toBeNull();
    expect(planOutsideGraphObjects(at(Streams.edge('o', 'e1')))).toBeNull();
    for (const stream of [Streams.org('o'), Streams.user('u'), Streams.apiKey('k'), Streams.graph('o'), Streams.series('o', 's')])
      expect(planOutsideGraphObjects(at(stream))).toBe(APPLY_EVENT);
  });
});
