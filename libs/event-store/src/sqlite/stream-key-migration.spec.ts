import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { NewEvent, eventFromLog } from '@strata/domain/events';
import { WrongExpectedRevisionError } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store';

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
