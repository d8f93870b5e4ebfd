import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EventMetadata, Streams } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { identityKey } from '@strata/domain/ontology';
import { eventually } from '@strata/domain/testing/eventually';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { OntologyProjection } from '../ontology/ontology.projection';
import { ONTOLOGY_TABLES } from '../ontology/ontology-schema';
import { noteRecord } from '../testing/projection-event-fixtures';
import { AccountsMirror } from './accounts-mirror';
import { ONTOLOGY_PROJECTION } from '../ontology/ontology.registration';
import { AGENTS_PROJECTION } from '../agents/agents.registration';

const meta = (org: string): EventMetadata => ({ org_id: org, principal: { kind: 'user', id: 'u1' }, request_id: 'r', occurred_at: 1 });

/** a domain object: a node of the ontology layer with the props the object index reads */
function object(uid: string, name: string, over: Partial<NodeRecord> = {}): NodeRecord {
  return noteRecord(uid, name, {
    node_type: 'Client',
    layer: 'ontology',
    props: { _type: 'Client', schema_id: 's1', object_type_id: 't1', canonical_name: name, identity: { code: uid.toUpperCase() } } as unknown as NodeRecord['props'],
    ...over,
  });
}

function dump(db: Database.Database): Record<string, string[]> {
  return Object.fromEntries(ONTOLOGY_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t}`).all().map((r) => JSON.stringify(r)).sort()]));
}

describe('area read models in the log mirror', () => {
  let dir: string;
  let log: SqliteEventStore;
  const mirrors: AccountsMirror[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-mirror-areas-'));
    log = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    for (const m of mirrors.splice(0)) await m.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const put = (org: string, n: NodeRecord, type: 'NodeCreated' | 'NodeUpdated' | 'NodeTombstoned' = 'NodeCreated') =>
    log.append([{ stream: Streams.node(org, n.uid), expectedRevision: 'any', events: [{ type, data: { node: n }, metadata: meta(org) } as never] }]);

  it('mirrors the ontology and agent streams, and reads the graph streams after start', () => {
    const started = [...ONTOLOGY_PROJECTION.streams, ...AGENTS_PROJECTION.streams];
    expect(started).toEqual(expect.arrayContaining(['ontschema-', 'ontproposal-', 'agent-']));
    expect([Streams.ontologySchema('o', 's'), Streams.ontologyProposal('o', 'p')].every((s) => started.some((p) => s.startsWith(p)))).toBe(true);
    const backfilled = ONTOLOGY_PROJECTION.backfill?.streams ?? [];
    expect([Streams.node('o', 'n'), Streams.graph('o')].every((s) => backfilled.some((p) => s.startsWith(p)))).toBe(true);
  });

  it('indexes domain objects from the node streams (backfilled after start, then followed), the same rows as the embedded projection', async () => {
    await put('o1', object('a', 'Acme'));
    await put('o1', object('b', 'Globex'));
    await put('o1', noteRecord('n', 'a plain note'));
    await put('o1', object('a', 'Acme Corp', { version: 2, updated_at: 5 }), 'NodeUpdated');
    const m = new AccountsMirror(log);
    mirrors.push(m);
    await m.start();
    await eventually(() => m.graphReady, { what: 'the graph backfill' });
    expect(m.ontologyReadModel.objects('o1', 's1', undefined, 'canonical_name', 10, 0).map((o) => [o.uid, o.canonical_name])).toEqual([
      ['a', 'Acme Corp'],
      ['b', 'Globex'],
    ]);
    expect(m.ontologyReadModel.objectsWithIdentity('o1', 't1', identityKey({ code: 'B' }))).toEqual(['b']);

    // followed live: a tombstone takes the object out of the live index, a clear empties the organization
    await put('o1', object('b', 'Globex', { version: 2, tombstone_at: 9 }), 'NodeTombstoned');
    const cleared = await log.append([{ stream: Streams.graph('o2'), expectedRevision: 'any', events: [{ type: 'GraphCleared', data: { at: 9 }, metadata: meta('o2') } as never] }]);
    await put('o2', object('c', 'Other'));
    expect(await m.waitFor(cleared.position + 1, 2000)).toBe(true);
    expect(m.ontologyReadModel.objects('o1', 's1', undefined, 'canonical_name', 10, 0).map((o) => o.uid)).toEqual(['a']);

    // the embedded way: the one projection over the whole log, in order
    const db = new Database(':memory:');
    const embedded = new OntologyProjection(db);
    for (const e of await log.readAll({ after: 0, limit: 1000 })) embedded.apply(e);
    expect(dump(m.db)).toEqual(dump(db));
    db.close();
  });

  it('is not ready for the ontology until the graph streams are read', async () => {
    const m = new AccountsMirror(log);
    mirrors.push(m);
    expect(m.graphReady).toBe(false);
    await m.start();
    await m.auditReady;
    expect(m.graphReady).toBe(true);
  });
});
