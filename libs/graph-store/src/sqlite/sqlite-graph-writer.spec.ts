import Database from 'better-sqlite3';
import { claimRecord } from '@strata/domain/testing/claim-record';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { setRawData } from '@strata/event-store/sqlite/raw-event-data';
import { SqliteGraphStore } from './sqlite-graph-store';
import { SqliteGraphWriter } from './sqlite-graph-writer';
import { decayCandidatesSync } from './sqlite-maintenance-reads';
import { SqliteSnapshotReader } from './sqlite-snapshot-reader';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const node = claimRecord({
  label: 'A "quoted" label',
  props: { _type: 'Claim', content: 'x', reason: 'a nested key named reason' },
  created_at: 1_700_000_000.5,
  updated_at: 1_700_000_000.5,
});

function event(data: unknown, raw?: string, type = 'NodeCreated', revision = 0): RecordedEvent {
  const e = recordedEvent({
    id: '',
    stream: 'node-o:n1',
    revision,
    position: revision + 1,
    type,
    data,
    metadata: { org_id: 'o', principal: { kind: 'system', id: 't' }, request_id: 'r', occurred_at: 1 },
  });
  if (raw !== undefined) setRawData(e, raw);
  return e;
}

describe('SqliteGraphWriter documents', () => {
  let db: Database.Database;
  let writer: SqliteGraphWriter;
  const doc = () => (db.prepare("SELECT doc FROM nodes WHERE org = 'o' AND uid = 'n1'").pluck().get() as string);

  beforeEach(() => {
    db = new Database(':memory:');
    writer = new SqliteGraphWriter(new SqliteGraphStore(db));
  });
  afterEach(() => db.close());

  it('stores the same record JSON whether or not the stored event text rides along', () => {
    const data = { node, reason: null };
    writer.apply(event(data));
    const serialised = doc();
    expect(serialised).toBe(JSON.stringify(node));
    writer.apply(event(data, JSON.stringify(data)));
    expect(doc()).toBe(serialised);
  });

  it('serialises the record itself when the stored text has another shape', () => {
    const data = { node, reason: null };
    // e.g. written by another tool with spacing: the record is taken from the parsed data
    writer.apply(event(data, JSON.stringify(data, null, 1)));
    expect(doc()).toBe(JSON.stringify(node));
  });
});

describe('SqliteGraphWriter: the decay clock of an imported node (REFERENCE §7.2, §8.6; audit J3)', () => {
  let db: Database.Database;
  let writer: SqliteGraphWriter;
  const clock = () => db.prepare("SELECT last_decayed_at FROM nodes WHERE org = 'o' AND uid = 'n1'").pluck().get() as number | null;

  beforeEach(() => {
    db = new Database(':memory:');
    writer = new SqliteGraphWriter(new SqliteGraphStore(db));
  });
  afterEach(() => db.close());

  it('a NodeCreated that carries last_decayed_at sets the clock; the record JSON stays the record', () => {
    const data = { node, reason: 'import', last_decayed_at: 1_700_000_100.25 };
    writer.apply(event(data, JSON.stringify(data)));
    expect(clock()).toBe(1_700_000_100.25);
    expect(db.prepare("SELECT doc FROM nodes WHERE org = 'o' AND uid = 'n1'").pluck().get()).toBe(JSON.stringify(node));
    expect(decayCandidatesSync(db, 'o', {})).toEqual([{ uid: 'n1', salience: 0.5, created_at: node.created_at, updated_at: node.updated_at, last_decayed_at: 1_700_000_100.25 }]);
  });

  it('a NodeCreated without it starts without a clock, and later versions keep the clock decay set', () => {
    writer.apply(event({ node, reason: null }));
    expect(clock()).toBeNull();
    writer.apply({ ...event({ items: [{ uid: 'n1', salience: 0.25 }], at: 1_700_000_200 }, undefined, 'SalienceDecayed', 0), stream: 'graph-o' });
    expect(clock()).toBe(1_700_000_200);
    writer.apply(event({ node: { ...node, label: 'changed', version: 2, updated_at: 1_700_000_300 }, reason: null }, undefined, 'NodeUpdated', 1));
    expect(clock()).toBe(1_700_000_200);
  });

  it('the export snapshot writes the clock beside the record of a decayed node only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-snapshot-clock-'));
    const file = path.join(dir, 'projections.db');
    const fileDb = new Database(file);
    try {
      const w = new SqliteGraphWriter(new SqliteGraphStore(fileDb));
      w.apply(event({ node, reason: 'import', last_decayed_at: 1_700_000_100.25 }));
      w.apply({ ...event({ node: { ...node, uid: 'n2', created_at: node.created_at + 1 }, reason: null }), stream: 'node-o:n2' });
      const reader = SqliteSnapshotReader.open(file);
      try {
        const docs = [...reader.nodeDocs('o', { include_tombstoned: false })].map((d) => JSON.parse(d));
        expect(docs).toEqual([
          { ...node, last_decayed_at: 1_700_000_100.25 },
          { ...node, uid: 'n2', created_at: node.created_at + 1 },
        ]);
      } finally {
        reader.close();
      }
    } finally {
      fileDb.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
