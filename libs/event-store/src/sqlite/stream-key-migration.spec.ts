import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { NewEvent, eventFromLog } from '@strata/domain/events';
import { WrongExpectedRevisionError } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { hashedStreamKey, streamKey } from './stream-key';
import { eventsTableSql } from './events-table';

const ev = (type: string): NewEvent => ({ ...eventFromLog(type, { t: type }), metadata: { org_id: 'o', principal: { kind: 'system', id: 'test' }, request_id: 'r', occurred_at: 1 } });

/** A log file in the shape written before the stream-key index. */
function writeLegacyLog(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE events (
      position INTEGER PRIMARY KEY, id TEXT NOT NULL, stream TEXT NOT NULL, revision INTEGER NOT NULL,
      type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream, revision));
    CREATE TABLE event_log_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_position INTEGER NOT NULL);
  `);
  const meta = JSON.stringify(ev('x').metadata);
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)');
  insert.run(1, 'id-1', 'node-o:a', 0, 'A0', '{"t":"A0"}', meta);
  insert.run(2, 'id-2', 'node-o:a', 1, 'A1', '{"t":"A1"}', meta);
  insert.run(3, 'id-3', 'edge-o:e', 0, 'E0', '{"t":"E0"}', meta);
  // positions 4 and 5 belonged to a deleted stream: the counter remembers them
  insert.run(6, 'id-6', 'graph-o', 0, 'G0', '{"t":"G0"}', meta);
  db.prepare('INSERT INTO event_log_state VALUES (1, 5 + 1)').run();
  db.close();
}

describe('upgrading a log written before the stream-key index', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-legacy-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every event, position, id and revision, and appends carry on where the log stopped', async () => {
    const file = join(dir, 'events.db');
    writeLegacyLog(file);
    const told: string[] = [];
    const store = new SqliteEventStore(file, { onUpgrade: (m) => told.push(m) });
    try {
      expect(told).toEqual([expect.stringMatching(/upgrading the event log .* \(6 events\) to the stream-key index/)]);
      const all = store.readAllSync({ after: 0, limit: 100 });
      expect(all.map((e) => [e.position, e.id, e.stream, e.revision, e.type, e.data])).toEqual([
        [1, 'id-1', 'node-o:a', 0, 'A0', { t: 'A0' }],
        [2, 'id-2', 'node-o:a', 1, 'A1', { t: 'A1' }],
        [3, 'id-3', 'edge-o:e', 0, 'E0', { t: 'E0' }],
        [6, 'id-6', 'graph-o', 0, 'G0', { t: 'G0' }],
      ]);
      expect(store.readStreamSync('node-o:a').map((e) => e.type)).toEqual(['A0', 'A1']);
      expect(store.streamRevisionSync('node-o:a')).toBe(1);
      expect(store.streamsOfFamilySync('node-o:')).toEqual(['node-o:a']);
      expect(() => store.appendSync([{ stream: 'edge-o:e', expectedRevision: 'no_stream', events: [ev('X')] }])).toThrow(WrongExpectedRevisionError);
      expect(store.appendSync([{ stream: 'node-o:a', expectedRevision: 1, events: [ev('A2')] }])).toEqual({ position: 7, revisions: { 'node-o:a': 2 } });
      const indexes = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all();
      expect(indexes).toEqual(['events_stream']);
    } finally {
      await store.close();
    }
    // a second open finds nothing to do
    const again = new SqliteEventStore(file, { onUpgrade: (m) => told.push(m) });
    try {
      expect(again.readStreamSync('node-o:a').map((e) => e.type)).toEqual(['A0', 'A1', 'A2']);
      expect(told).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('a read-only handle on a legacy log still reads and tails the log, and says how to upgrade for stream reads', async () => {
    const file = join(dir, 'events.db');
    writeLegacyLog(file);
    const ro = new SqliteEventStore(file, { readonly: true });
    try {
      expect(ro.readAllSync({ after: 0, limit: 10 }).map((e) => e.position)).toEqual([1, 2, 3, 6]);
      expect(() => ro.readStreamSync('node-o:a')).toThrow(/predates the stream index; open it once read-write/);
    } finally {
      await ro.close();
    }
  });
});

const NODE_A = 'node-o:019ac5d2-7e10-4a3b-8c4d-5e6f708192a3';
const NODE_B = 'node-o:019ac5d2-7e11-4b3b-9c4d-5e6f708192a4';
const EDGE_E = 'edge-o:019ac5d2-7e12-4c3b-ac4d-5e6f708192a5';

/**
 * A log file as the code before time-slot keys wrote it: today's table, the stream index,
 * keys by hashedStreamKey, user_version 0.
 */
function writeHashKeyedLog(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    ${eventsTableSql('events')}
    CREATE INDEX events_stream ON events(stream_key, revision);
    CREATE TABLE event_log_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_position INTEGER NOT NULL);
  `);
  const meta = JSON.stringify(ev('x').metadata);
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const row = (position: number, stream: string, revision: number, type: string) =>
    insert.run(position, `id-${position}`, stream, revision, type, JSON.stringify({ t: type }), meta, hashedStreamKey(stream));
  row(1, NODE_A, 0, 'A0');
  row(2, 'graph-o', 0, 'G0');
  row(3, NODE_A, 1, 'A1');
  row(4, EDGE_E, 0, 'E0');
  // position 5 belonged to a deleted stream: the counter remembers it
  row(6, NODE_B, 0, 'B0');
  db.prepare('INSERT INTO event_log_state VALUES (1, 6 + 1)').run();
  db.close();
}

const rowsOf = (store: SqliteEventStore) =>
  store.readAllSync({ after: 0, limit: 100 }).map((e) => [e.position, e.id, e.stream, e.revision, e.type, e.data]);

describe('re-keying a log whose stream keys were a hash of the whole name', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-hash-keyed-log-'));
    file = join(dir, 'events.db');
    writeHashKeyedLog(file);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const expectedRows = [
    [1, 'id-1', NODE_A, 0, 'A0', { t: 'A0' }],
    [2, 'id-2', 'graph-o', 0, 'G0', { t: 'G0' }],
    [3, 'id-3', NODE_A, 1, 'A1', { t: 'A1' }],
    [4, 'id-4', EDGE_E, 0, 'E0', { t: 'E0' }],
    [6, 'id-6', NODE_B, 0, 'B0', { t: 'B0' }],
  ];

  it('keeps every event, position, id and revision, keys every row anew, and runs once', async () => {
    const told: string[] = [];
    const store = new SqliteEventStore(file, { onUpgrade: (m) => told.push(m) });
    try {
      expect(told).toEqual([expect.stringMatching(/re-keying the stream index of the event log .* \(6 events\)/)]);
      expect(rowsOf(store)).toEqual(expectedRows);
      const keys = store.db.prepare('SELECT stream, stream_key FROM events ORDER BY position').raw().all() as Array<[string, number]>;
      for (const [stream, key] of keys) expect(key).toBe(streamKey(stream));
      expect(store.db.pragma('user_version', { simple: true })).toBe(2);
      expect(store.readStreamSync(NODE_A).map((e) => [e.position, e.revision, e.type])).toEqual([
        [1, 0, 'A0'],
        [3, 1, 'A1'],
      ]);
      expect(store.streamRevisionSync(NODE_B)).toBe(0);
      expect(store.streamsOfFamilySync('node-o:')).toEqual([NODE_A, NODE_B]);
      expect(() => store.appendSync([{ stream: EDGE_E, expectedRevision: 'no_stream', events: [ev('X')] }])).toThrow(WrongExpectedRevisionError);
      expect(() => store.appendSync([{ stream: NODE_A, expectedRevision: 0, events: [ev('X')] }])).toThrow(WrongExpectedRevisionError);
      expect(store.appendSync([{ stream: NODE_A, expectedRevision: 1, events: [ev('A2')] }])).toEqual({ position: 8, revisions: { [NODE_A]: 2 } });
      store.deleteStreamsSync([NODE_B]);
      expect(store.streamRevisionSync(NODE_B)).toBe(-1);
    } finally {
      await store.close();
    }
    const again = new SqliteEventStore(file, { onUpgrade: (m) => told.push(m) });
    try {
      expect(told).toHaveLength(1);
      expect(again.readStreamSync(NODE_A).map((e) => e.type)).toEqual(['A0', 'A1', 'A2']);
    } finally {
      await again.close();
    }
  });

  it('a crash during the re-keying leaves the log as it was, and the next start re-keys it', async () => {
    let calls = 0;
    const failing = {
      key: (s: string) => {
        if (++calls > 3) throw new Error('power cut');
        return streamKey(s);
      },
      familyRange: () => ({ from: 0, to: 2 ** 53 }),
    };
    expect(() => new SqliteEventStore(file, { streamKeys: failing })).toThrow(/power cut/);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(0);
      const keys = db.prepare('SELECT stream, stream_key FROM events ORDER BY position').raw().all() as Array<[string, number]>;
      for (const [stream, key] of keys) expect(key).toBe(hashedStreamKey(stream));
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").pluck().all()).toEqual(['events_stream']);
    } finally {
      db.close();
    }
    const store = new SqliteEventStore(file);
    try {
      expect(rowsOf(store)).toEqual(expectedRows);
      expect(store.readStreamSync(NODE_A).map((e) => e.type)).toEqual(['A0', 'A1']);
    } finally {
      await store.close();
    }
  });

  it('a read-only handle reads streams by the keys the log was written with, before and after the re-keying', async () => {
    const before = new SqliteEventStore(file, { readonly: true });
    try {
      expect(before.readStreamSync(NODE_A).map((e) => e.type)).toEqual(['A0', 'A1']);
      expect(before.streamRevisionSync(EDGE_E)).toBe(0);
      expect(before.streamsOfFamilySync('node-o:')).toEqual([NODE_A, NODE_B]);
    } finally {
      await before.close();
    }
    await new SqliteEventStore(file).close();
    const after = new SqliteEventStore(file, { readonly: true });
    try {
      expect(after.readStreamSync(NODE_A).map((e) => e.type)).toEqual(['A0', 'A1']);
      expect(after.streamRevisionSync(NODE_B)).toBe(0);
    } finally {
      await after.close();
    }
  });

  it('a fresh log is created with today\'s keys and nothing to upgrade', async () => {
    const told: string[] = [];
    const fresh = new SqliteEventStore(join(dir, 'fresh.db'), { onUpgrade: (m) => told.push(m) });
    try {
      expect(fresh.db.pragma('user_version', { simple: true })).toBe(2);
      fresh.appendSync([{ stream: NODE_A, expectedRevision: 'no_stream', events: [ev('A0')] }]);
      expect(fresh.db.prepare('SELECT stream_key FROM events').pluck().get()).toBe(streamKey(NODE_A));
      expect(told).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
