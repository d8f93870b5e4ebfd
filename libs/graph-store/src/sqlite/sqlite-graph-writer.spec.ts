import Database from 'better-sqlite3';
import type { RecordedEvent } from '@strata/domain/events';
import { setRawData } from '@strata/event-store/sqlite/raw-event-data';
import { SqliteGraphStore } from './sqlite-graph-store';
import { SqliteGraphWriter } from './sqlite-graph-writer';

const node = {
  uid: 'n1',
  label: 'A "quoted" label',
  summary: null,
  node_type: 'Claim',
  layer: 'epistemic',
  confidence: 0.7,
  salience: 0.5,
  privacy_level: 'private',
  props: { _type: 'Claim', content: 'x', reason: 'a nested key named reason' },
  agent_id: null,
  created_at: 1_700_000_000.5,
  updated_at: 1_700_000_000.5,
  tombstone_at: null,
  tombstone_reason: null,
  tombstone_by: null,
  version: 1,
};

function event(data: unknown, raw?: string): RecordedEvent {
  const e: RecordedEvent = {
    id: '',
    stream: 'node-o:n1',
    revision: 0,
    position: 1,
    type: 'NodeCreated',
    data,
    metadata: { org_id: 'o', principal: { kind: 'system', id: 't' }, request_id: 'r', occurred_at: 1 },
  };
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
