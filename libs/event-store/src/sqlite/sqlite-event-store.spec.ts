import { closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NewEvent, RecordedEvent, eventFromLog } from '@strata/domain/events';
import { eventually, settleIo } from '@strata/domain/testing/eventually';
import { WrongExpectedRevisionError } from '../event-store.port';
import { describeEventStoreConformance } from '../testing/event-store.conformance';
import { rawDataOf } from './raw-event-data';
import { SqliteEventStore } from './sqlite-event-store';

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-es-'));
  dirs.push(dir);
  return join(dir, 'events.db');
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describeEventStoreConformance('SqliteEventStore', async () => {
  const store = new SqliteEventStore(tempFile());
  return { store, cleanup: () => store.close() };
});

const ev = (type: string, data: unknown = {}): NewEvent => ({
  ...eventFromLog(type, data),
  metadata: { org_id: 'o', principal: { kind: 'system', id: 'test' }, request_id: 'r', occurred_at: 1 },
});
const waitFor = async (cond: () => boolean, timeoutMs = 5000) => {
  await eventually(cond, { timeoutMs, everyMs: 5 });
};

describe('SqliteEventStore (SQLite specifics)', () => {
  let file: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    file = tempFile();
    store = new SqliteEventStore(file);
  });
  afterEach(async () => {
    await store.close();
  });

  it('configures WAL, synchronous=FULL and a busy timeout', () => {
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('deferred commit sync: commits do not fsync, syncCommitted does, commits during an fsync share the next one', async () => {
    expect(store.syncCommitted()).toBeInstanceOf(Promise); // nothing deferred: resolves at once
    await store.syncCommitted();
    store.deferCommitSync();
    expect(store.commitSyncDeferred).toBe(true);
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    store.db.exec('BEGIN IMMEDIATE');
    store.appendSync([{ stream: 'a', expectedRevision: 'no_stream', events: [ev('A0')] }]);
    store.db.exec('COMMIT');
    const first = store.syncCommitted();
    // committed while the first fsync runs: both wait for the one after it, together
    const second = store.syncCommitted();
    const third = store.syncCommitted();
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    await Promise.all([first, second, third]);
    // a standalone append is still durable on return, and the log reopens with it
    store.appendSync([{ stream: 'b', expectedRevision: 'no_stream', events: [ev('B0')] }]);
    await store.close();
    store = new SqliteEventStore(file);
    expect(store.readAllSync({ after: 0, limit: 10 }).map((e) => e.type)).toEqual(['A0', 'B0']);
  });

  it('deferred commit sync: a failed fsync fails the commits chained after it; the WAL stays open between fsyncs', async () => {
    store.deferCommitSync();
    const commit = (stream: string) => {
      store.db.exec('BEGIN IMMEDIATE');
      store.appendSync([{ stream, expectedRevision: 'no_stream', events: [ev('E')] }]);
      store.db.exec('COMMIT');
    };
    const held = () => (store as unknown as { walFd: { fd: number } | null }).walFd;
    commit('a');
    await store.syncCommitted();
    const wal = held();
    expect(wal).not.toBeNull();
    commit('b');
    await store.syncCommitted();
    expect(held()).toBe(wal); // one descriptor, two fsyncs
    // the descriptor goes bad under the next fsync (as a disk error would fail it)
    const real = wal!.fd;
    wal!.fd = 0x3fffffff;
    closeSync(real);
    commit('c');
    const failed = store.syncCommitted();
    commit('d'); // committed while the failing fsync runs: its frames follow ones that may be lost
    const chained = store.syncCommitted();
    await expect(failed).rejects.toMatchObject({ code: 'EBADF' });
    await expect(chained).rejects.toMatchObject({ code: 'EBADF' });
    // the next fsync opens the WAL afresh
    commit('e');
    await expect(store.syncCommitted()).resolves.toBeUndefined();
  });

  it('exposes a synchronous API with the same semantics', () => {
    expect(store.headPositionSync()).toBe(0);
    const r = store.appendSync([
      { stream: 'a', expectedRevision: 'no_stream', events: [ev('A0'), ev('A1')] },
      { stream: 'b', expectedRevision: 'any', events: [ev('B0')] },
    ]);
    expect(r).toEqual({ position: 3, revisions: { a: 1, b: 0 } });
    expect(store.readStreamSync('a').map((e) => [e.type, e.revision, e.position])).toEqual([
      ['A0', 0, 1],
      ['A1', 1, 2],
    ]);
    expect(store.readStreamSync('a', 1).map((e) => e.type)).toEqual(['A1']);
    expect(store.streamRevisionSync('a')).toBe(1);
    expect(store.streamRevisionSync('zzz')).toBe(-1);
    expect(store.readAllSync({ after: 1, limit: 10 }).map((e) => e.type)).toEqual(['A1', 'B0']);
    expect(store.readAllSync({ after: 0, limit: 10, streamPrefixes: ['b'] }).map((e) => e.type)).toEqual(['B0']);
    expect(store.headPositionSync()).toBe(3);
    expect(() => store.appendSync([{ stream: 'a', expectedRevision: 0, events: [ev('X')] }])).toThrow(
      WrongExpectedRevisionError,
    );
    expect(store.headPositionSync()).toBe(3);
  });

  it('positions start at 1 and are never reused after deleting the newest streams', () => {
    store.appendSync([{ stream: 'keep', expectedRevision: 'any', events: [ev('K')] }]);
    const r = store.appendSync([{ stream: 'gone', expectedRevision: 'any', events: [ev('G0'), ev('G1')] }]);
    expect(r.position).toBe(3);
    store.deleteStreamsSync(['gone']);
    expect(store.headPositionSync()).toBe(1);
    expect(store.readAllSync({ after: 0, limit: 10 }).map((e) => e.type)).toEqual(['K']);
    const again = store.appendSync([{ stream: 'gone', expectedRevision: 'no_stream', events: [ev('G-again')] }]);
    expect(again.position).toBe(4);
    expect(again.revisions).toEqual({ gone: 0 });
  });

  it('positions survive reopen after a delete (the counter is persisted)', async () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0'), ev('A1')] }]);
    store.deleteStreamsSync(['a']);
    await store.close();
    store = new SqliteEventStore(file);
    expect(store.appendSync([{ stream: 'b', expectedRevision: 'any', events: [ev('B')] }]).position).toBe(3);
  });

  it('refuses no_stream on an existing stream with its revision, writing nothing of the append', () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0'), ev('A1')] }]);
    let caught: unknown;
    try {
      store.appendSync([
        { stream: 'fresh', expectedRevision: 'no_stream', events: [ev('F0')] },
        { stream: 'a', expectedRevision: 'no_stream', events: [ev('A-again')] },
      ]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WrongExpectedRevisionError);
    expect(caught).toMatchObject({ stream: 'a', expected: 'no_stream', actual: 1 });
    expect(store.streamRevisionSync('fresh')).toBe(-1);
    expect(store.headPositionSync()).toBe(2);
  });

  it('inside a transaction the caller opened, an append joins it (no savepoint) and a failure is rolled back by the caller', () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0'), ev('A1')] }]);
    store.db.exec('BEGIN IMMEDIATE');
    store.appendSync([{ stream: 'fresh', expectedRevision: 'no_stream', events: [ev('F0')] }]);
    expect(() => store.appendSync([{ stream: 'b', expectedRevision: 'no_stream', events: [ev('B0')] }, { stream: 'a', expectedRevision: 'no_stream', events: [ev('X')] }])).toThrow(
      WrongExpectedRevisionError,
    );
    // the earlier append is still in the caller's transaction (no savepoint undid it)...
    expect(store.streamRevisionSync('fresh')).toBe(0);
    // ...and its rollback takes them away with everything else
    store.db.exec('ROLLBACK');
    expect(store.streamRevisionSync('fresh')).toBe(-1);
    expect(store.streamRevisionSync('b')).toBe(-1);
    expect(store.headPositionSync()).toBe(2);
  });

  it('an append of hundreds of events over many streams keeps every position, revision and text in order', () => {
    const appends = [
      ...Array.from({ length: 150 }, (_, i) => ({ stream: `node-o:${i}`, expectedRevision: 'no_stream' as const, events: [ev('N', { i })] })),
      { stream: 'long', expectedRevision: 'no_stream' as const, events: Array.from({ length: 130 }, (_, r) => ev('L', { r })) },
    ];
    expect(store.appendSync(appends).position).toBe(280);
    const all = store.readAllSync({ after: 0, limit: 1000 });
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 280 }, (_, i) => i + 1));
    expect(all.slice(0, 150).map((e) => [e.stream, e.revision, e.data])).toEqual(Array.from({ length: 150 }, (_, i) => [`node-o:${i}`, 0, { i }]));
    expect(store.readStreamSync('long').map((e) => [e.revision, e.data])).toEqual(Array.from({ length: 130 }, (_, r) => [r, { r }]));
    expect(new Set(all.map((e) => e.id)).size).toBe(280);
    expect(store.appendSync([{ stream: 'long', expectedRevision: 129, events: [ev('L')] }]).position).toBe(281);
  });

  it('stores every row as the JSON texts of its event, whatever the number of rows the append writes at once', () => {
    // counts on either side of each INSERT size (64, 16, 4, 1 rows per statement)
    const counts = [1, 2, 3, 4, 5, 15, 16, 17, 21, 63, 64, 65, 85, 129];
    let n = 0;
    const s = new SqliteEventStore(tempFile(), { ids: { uuid: () => `id-${++n}` } });
    try {
      const expected: unknown[][] = [];
      for (const count of counts) {
        // one metadata object per request, as the unit of work stages them; text with escapes
        const metadata = { org_id: 'o', principal: { kind: 'user' as const, id: `u"${count}` }, request_id: `r\n${count}`, occurred_at: count + 0.5 };
        const events: NewEvent[] = Array.from({ length: count }, (_, i) => ({ ...eventFromLog(`T${i % 3}`, { i, label: `é ${count}\u2028`, nested: [null, 1.25] }), metadata }));
        const appends = [
          { stream: `node-o:c${count}`, expectedRevision: 'no_stream' as const, events: events.slice(0, Math.ceil(count / 2)) },
          { stream: `edge-o:c${count}`, expectedRevision: 'any' as const, events: events.slice(Math.ceil(count / 2)) },
        ].filter((a) => a.events.length > 0);
        const start = expected.length;
        const result = s.appendSync(appends);
        expect(result.position).toBe(start + count);
        expect({ ...result.revisions }).toEqual(Object.fromEntries(appends.map((a) => [a.stream, a.events.length - 1])));
        for (const a of appends)
          a.events.forEach((e, revision) =>
            expected.push([expected.length + 1, `id-${expected.length + 1}`, a.stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(metadata)]),
          );
      }
      const rows = s.db.prepare('SELECT position, id, stream, revision, type, data, metadata FROM events ORDER BY position').raw().all();
      expect(rows).toEqual(expected);
      expect(s.db.prepare('SELECT last_position FROM event_log_state').pluck().get()).toBe(expected.length);
    } finally {
      void s.close();
    }
  });

  it('hands the stored data text to the appended and the read events', () => {
    const appended = ev('A0', { node: { uid: 'n1' }, reason: null });
    store.appendSync([{ stream: 'a', expectedRevision: 'no_stream', events: [appended] }]);
    expect(rawDataOf(appended)).toBe('{"node":{"uid":"n1"},"reason":null}');
    const [read] = store.readStreamSync('a');
    expect(rawDataOf(read)).toBe('{"node":{"uid":"n1"},"reason":null}');
    expect(Object.keys(read)).toEqual(['id', 'stream', 'revision', 'position', 'type', 'data', 'metadata']);
  });

  it('an append with an empty event list only checks the expectation', () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0')] }]);
    expect(store.appendSync([{ stream: 'a', expectedRevision: 0, events: [] }])).toEqual({ position: 1, revisions: { a: 0 } });
    expect(() => store.appendSync([{ stream: 'a', expectedRevision: 'no_stream', events: [] }])).toThrow(
      WrongExpectedRevisionError,
    );
    expect(store.appendSync([])).toEqual({ position: 1, revisions: {} });
  });

  it('iterateAll streams the whole log in batches, from a position', () => {
    const batch = Array.from({ length: 250 }, (_, i) => ev('E', { i }));
    for (let k = 0; k < 4; k++) store.appendSync([{ stream: `s-${k}`, expectedRevision: 'no_stream', events: batch }]);
    const seen: number[] = [];
    for (const e of store.iterateAll(0, 64)) seen.push(e.position);
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const tail = [...store.iterateAll(990, 7)].map((e) => e.position);
    expect(tail).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    expect([...store.iterateAll(1000)]).toEqual([]);
    const first = store.iterateAll().next().value as RecordedEvent;
    expect(first).toMatchObject({ stream: 's-0', revision: 0, position: 1, type: 'E', data: { i: 0 } });
  });

  it('iterateAll without ids gives the same events with empty ids (for replays)', () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'no_stream', events: [ev('A0', { i: 0 }), ev('A1', { i: 1 })] }]);
    const full = [...store.iterateAll(0, 1)];
    const lean = [...store.iterateAll(0, 1, { ids: false })];
    expect(full.every((e) => e.id.length === 36)).toBe(true);
    expect(lean).toEqual(full.map((e) => ({ ...e, id: '' })));
  });

  it('iterateAll is lazy: appends between batches are allowed and picked up', () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0'), ev('A1'), ev('A2')] }]);
    const it = store.iterateAll(0, 2);
    const got: string[] = [];
    for (const e of it) {
      got.push(e.type);
      if ((e.type as string) === 'A1') store.appendSync([{ stream: 'b', expectedRevision: 'any', events: [ev('B0')] }]);
    }
    expect(got).toEqual(['A0', 'A1', 'A2', 'B0']);
  });

  it('is durable: a reopened file reads back every event', async () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'no_stream', events: [ev('A0', { x: 'é ✓ 🙂' }), ev('A1')] }]);
    await store.append([{ stream: 'b', expectedRevision: 'no_stream', events: [ev('B0')] }]);
    const before = store.readAllSync({ after: 0, limit: 100 });
    await store.close();
    store = new SqliteEventStore(file);
    expect(store.readAllSync({ after: 0, limit: 100 })).toEqual(before);
    expect(store.readStreamSync('a')[0].data).toEqual({ x: 'é ✓ 🙂' });
    expect(store.appendSync([{ stream: 'a', expectedRevision: 1, events: [ev('A2')] }]).position).toBe(4);
  });

  it('a second instance on the same file sees appends through polling', async () => {
    const other = new SqliteEventStore(file, { pollIntervalMs: 20 });
    try {
      const got: RecordedEvent[] = [];
      const sub = other.subscribe(0, (e) => {
        got.push(e);
      });
      store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0')] }]);
      await waitFor(() => got.length === 1);
      await store.append([{ stream: 'b', expectedRevision: 'any', events: [ev('B0'), ev('B1')] }]);
      await waitFor(() => got.length === 3);
      expect(got.map((e) => e.type)).toEqual(['A0', 'B0', 'B1']);
      // the second connection also writes; the first one sees it and revisions stay consistent
      other.appendSync([{ stream: 'a', expectedRevision: 0, events: [ev('A1')] }]);
      expect(store.readStreamSync('a').map((e) => e.type)).toEqual(['A0', 'A1']);
      expect(() => store.appendSync([{ stream: 'a', expectedRevision: 0, events: [ev('X')] }])).toThrow(
        WrongExpectedRevisionError,
      );
      await waitFor(() => got.length === 4);
      await sub.close();
    } finally {
      await other.close();
    }
  });

  it('read-only mode reads (and tails) but refuses writes', async () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0')] }]);
    const ro = new SqliteEventStore(file, { readonly: true, pollIntervalMs: 20 });
    try {
      expect(ro.readStreamSync('a').map((e) => e.type)).toEqual(['A0']);
      expect(() => ro.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('X')] }])).toThrow(/read-only/);
      await expect(ro.deleteStreams(['a'])).rejects.toThrow(/read-only/);
      const got: string[] = [];
      const sub = ro.subscribe(0, (e) => {
        got.push(e.type);
      });
      store.appendSync([{ stream: 'a', expectedRevision: 0, events: [ev('A1')] }]);
      await waitFor(() => got.length === 2);
      expect(got).toEqual(['A0', 'A1']);
      await sub.close();
    } finally {
      await ro.close();
    }
    expect(() => new SqliteEventStore(join(tmpdir(), 'strata-does-not-exist.db'), { readonly: true })).toThrow();
  });

  it('a throwing handler stops the subscription at that event and reports it', async () => {
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0'), ev('A1'), ev('A2')] }]);
    const got: string[] = [];
    const errors: Array<[unknown, RecordedEvent | undefined]> = [];
    store.subscribe(
      0,
      (e) => {
        if ((e.type as string) === 'A1') throw new Error('boom');
        got.push(e.type);
      },
      { onError: (err, e) => errors.push([err, e]) },
    );
    await waitFor(() => errors.length === 1);
    store.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A3')] }]);
    // a subscription still open has A3 delivered: the stopped one would have had it by then
    const witness: string[] = [];
    const open = store.subscribe(0, (e) => void witness.push(e.type));
    await waitFor(() => witness.includes('A3'));
    await open.close();
    expect(got).toEqual(['A0']);
    expect((errors[0][0] as Error).message).toBe('boom');
    expect(errors[0][1]?.type).toBe('A1');
  });

  it('delivers local appends without waiting for the poll interval', async () => {
    const slow = new SqliteEventStore(tempFile(), { pollIntervalMs: 60_000 });
    try {
      const got: string[] = [];
      const sub = slow.subscribe(0, (e) => {
        got.push(e.type);
      });
      await settleIo(); // the subscriber has read the empty log and is idle now
      slow.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A0')] }]);
      await waitFor(() => got.length === 1, 1000);
      await sub.close();
    } finally {
      await slow.close();
    }
  });

  it('close() closes open subscriptions and the handle; it is idempotent', async () => {
    const sub = store.subscribe(0, () => undefined);
    await store.close();
    await store.close();
    expect(store.db.open).toBe(false);
    await sub.close();
  });

  it('uses the injected id generator', () => {
    const s = new SqliteEventStore(tempFile(), { ids: { uuid: () => '00000000-0000-4000-8000-000000000001' } });
    try {
      s.appendSync([{ stream: 'a', expectedRevision: 'any', events: [ev('A')] }]);
      expect(s.readStreamSync('a')[0].id).toBe('00000000-0000-4000-8000-000000000001');
    } finally {
      void s.close();
    }
  });

  it('lists the streams of a family once each, and nothing just outside it', () => {
    const names = ['node-o1:a', 'node-o1:b', 'node-o1:b', 'node-o10:a', 'node-o1;x', 'node-o1', 'edge-o1:a', 'node-o2:a', 'node-o1:z.9'];
    for (const stream of names) store.appendSync([{ stream, expectedRevision: 'any', events: [ev('E'), ev('E')] }]);
    expect(store.streamsOfFamilySync('node-o1:')).toEqual(['node-o1:a', 'node-o1:b', 'node-o1:z.9']);
    expect(store.streamsOfFamilySync('edge-o1:')).toEqual(['edge-o1:a']);
    expect(store.streamsOfFamilySync('node-o3:')).toEqual([]);
    expect(() => store.streamsOfFamilySync('node-o1:a')).toThrow(/not a stream family/);
  });

  it('keeps streams apart when their index keys collide', () => {
    const collide = new SqliteEventStore(tempFile(), { streamKeys: { key: () => 42, familyRange: () => ({ from: 42, to: 43 }) } });
    try {
      collide.appendSync([{ stream: 'node-o:a', expectedRevision: 'no_stream', events: [ev('A0'), ev('A1')] }]);
      collide.appendSync([{ stream: 'node-o:b', expectedRevision: 'no_stream', events: [ev('B0')] }]);
      collide.appendSync([{ stream: 'edge-o:c', expectedRevision: 'no_stream', events: [ev('C0')] }]);
      expect(collide.readStreamSync('node-o:a').map((e) => e.type)).toEqual(['A0', 'A1']);
      expect(collide.streamRevisionSync('node-o:b')).toBe(0);
      expect(collide.streamRevisionSync('node-o:none')).toBe(-1);
      expect(() => collide.appendSync([{ stream: 'node-o:b', expectedRevision: 'no_stream', events: [ev('B1')] }])).toThrow(WrongExpectedRevisionError);
      expect(() => collide.appendSync([{ stream: 'node-o:a', expectedRevision: 0, events: [ev('A2')] }])).toThrow(WrongExpectedRevisionError);
      expect(collide.streamsOfFamilySync('node-o:')).toEqual(['node-o:a', 'node-o:b']);
      collide.deleteStreamsSync(['node-o:a']);
      expect(collide.readStreamSync('node-o:a')).toEqual([]);
      expect(collide.readStreamSync('node-o:b').map((e) => e.type)).toEqual(['B0']);
    } finally {
      void collide.close();
    }
  });
});
