import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '@strata/domain/events';
import { SqliteEventStore } from './sqlite-event-store';
import { streamsWithPrefixSync } from './sqlite-stream-listing';

const ev = (): NewEvent => ({ type: 'T', data: {}, metadata: { org_id: 'o', principal: { kind: 'system', id: 'test' }, request_id: 'r', occurred_at: 1 } });

describe('streamsWithPrefixSync', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-streams-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    const names = ['node-o1:a', 'node-o1:b', 'node-o1:b', 'node-o10:a', 'node-o1;x', 'node-o1', 'edge-o1:a', 'node-o2:a', 'node-o1:z.9'];
    for (const stream of names) store.appendSync([{ stream, expectedRevision: 'any', events: [ev(), ev()] }]);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists each stream starting with the prefix once, and nothing just outside the range', () => {
    expect(streamsWithPrefixSync(store.db, 'node-o1:')).toEqual(['node-o1:a', 'node-o1:b', 'node-o1:z.9']);
    expect(streamsWithPrefixSync(store.db, 'edge-o1:')).toEqual(['edge-o1:a']);
    expect(streamsWithPrefixSync(store.db, 'node-o3:')).toEqual([]);
  });

  it('refuses an empty prefix, which would list the whole log', () => {
    expect(() => streamsWithPrefixSync(store.db, '')).toThrow(/non-empty prefix/);
  });
});
