/// <reference types="jest" />
// jest types referenced explicitly: the build compiles *.servers.ts, which imports this suite
import { randomUUID } from 'node:crypto';
import { NewEvent, RecordedEvent, eventFromLog } from '@strata/domain/events';
import { EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevisionError } from '../event-store.port';
import { eventually } from '@strata/domain/testing/eventually';

/**
 * The one behavioural contract every EventStore adapter must meet (DESIGN: one conformance
 * suite per port). Tests only look at streams they created (a fresh random prefix per test)
 * and at positions after a head they captured, so the suite also runs against a long-lived
 * server whose log already holds other events.
 */
export function describeEventStoreConformance(
  name: string,
  factory: () => Promise<{ store: EventStore; cleanup: () => Promise<void> }>,
): void {
  describe(`EventStore conformance: ${name}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;
    let p: string; // per-test stream prefix

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      p = `conf${randomUUID().replace(/-/g, '').slice(0, 12)}-`;
    });
    afterEach(async () => {
      await cleanup();
    });

    const ev = (type: string, data: unknown = {}, i = 0): NewEvent => ({
      ...eventFromLog(type, data),
      metadata: {
        org_id: 'org1',
        principal: { kind: 'user', id: 'u1' },
        request_id: `req-${i}`,
        correlation_id: null,
        occurred_at: 1_700_000_000.25 + i,
      },
    });
    const one = (stream: string, expectedRevision: ExpectedRevision, ...events: NewEvent[]): StreamAppend[] => [
      { stream, expectedRevision, events: events.length ? events : [ev('Thing')] },
    ];
    const mine = async (after: number, limit = 10_000) =>
      store.readAll({ after, limit, streamPrefixes: [p] });
    const expectWrongRevision = async (promise: Promise<unknown>, stream: string, actual: number) => {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WrongExpectedRevisionError);
      expect((err as WrongExpectedRevisionError).stream).toBe(stream);
      expect((err as WrongExpectedRevisionError).actual).toBe(actual);
    };
    const waitFor = async (cond: () => boolean, timeoutMs = 20_000) => {
      await eventually(cond, { timeoutMs });
    };

    describe('append and read', () => {
      it('reads a stream back in order with 0-based revisions and the full envelope', async () => {
        const s = `${p}a`;
        const res = await store.append(one(s, 'no_stream', ev('A', { n: 1 }, 1), ev('B', { n: 2, nested: { x: [1, 'y'] } }, 2), ev('C', null, 3)));
        expect(res.revisions).toEqual({ [s]: 2 });
        const read = await store.readStream(s);
        expect(read.map((e) => [e.type, e.revision, e.stream])).toEqual([
          ['A', 0, s],
          ['B', 1, s],
          ['C', 2, s],
        ]);
        expect(read[1].data).toEqual({ n: 2, nested: { x: [1, 'y'] } });
        expect(read[2].data).toBeNull();
        expect(read[0].metadata).toEqual(ev('A', {}, 1).metadata);
        expect(read[0].id).toMatch(/^[0-9a-f-]{36}$/i);
        expect(new Set(read.map((e) => e.id)).size).toBe(3);
        expect(read[2].position).toBe(res.position);
      });

      it('reads a stream from a revision (inclusive) and returns [] for a missing stream', async () => {
        const s = `${p}a`;
        await store.append(one(s, 'no_stream', ev('A'), ev('B'), ev('C'), ev('D')));
        expect((await store.readStream(s, 2)).map((e) => e.type)).toEqual(['C', 'D']);
        expect(await store.readStream(s, 4)).toEqual([]);
        expect(await store.readStream(`${p}missing`)).toEqual([]);
      });

      it('reads at most maxCount events of a stream', async () => {
        const s = `${p}counted`;
        await store.append(one(s, 'no_stream', ev('A'), ev('B'), ev('C'), ev('D')));
        expect((await store.readStream(s, 1, 2)).map((e) => e.type)).toEqual(['B', 'C']);
        expect((await store.readStream(s, 3, 10)).map((e) => e.type)).toEqual(['D']);
        expect(await store.readStream(s, 0, 0)).toEqual([]);
      });

      it('assigns strictly increasing positions across appends and streams', async () => {
        const head = await store.headPosition();
        const r1 = await store.append(one(`${p}a`, 'any', ev('A'), ev('B')));
        const r2 = await store.append(one(`${p}b`, 'any', ev('C')));
        const r3 = await store.append(one(`${p}a`, 'any', ev('D')));
        expect(r1.position).toBeGreaterThan(head);
        expect(r2.position).toBeGreaterThan(r1.position);
        expect(r3.position).toBeGreaterThan(r2.position);
        const all = await mine(head);
        expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
        for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
        expect(all[1].position).toBe(r1.position);
        expect(all[3].position).toBe(r3.position);
        // the same event has the same position whether read from its stream or from $all
        const a = await store.readStream(`${p}a`);
        expect(a.map((e) => e.position)).toEqual([all[0].position, all[1].position, all[3].position]);
      });

      it('streamRevision is -1 for a missing stream and the last revision otherwise', async () => {
        const s = `${p}a`;
        expect(await store.streamRevision(s)).toBe(-1);
        await store.append(one(s, 'no_stream', ev('A'), ev('B')));
        expect(await store.streamRevision(s)).toBe(1);
        await store.append(one(s, 1, ev('C')));
        expect(await store.streamRevision(s)).toBe(2);
      });

      it('headPosition is the position of the newest event', async () => {
        const r = await store.append(one(`${p}a`, 'any', ev('A'), ev('B')));
        expect(await store.headPosition()).toBe(r.position);
      });
    });

    describe('expected revisions', () => {
      it("'no_stream' succeeds on a new stream and fails on an existing one", async () => {
        const s = `${p}a`;
        await store.append(one(s, 'no_stream'));
        await expectWrongRevision(store.append(one(s, 'no_stream')), s, 0);
      });

      it("'exists' fails on a new stream and succeeds on an existing one", async () => {
        const s = `${p}a`;
        await expectWrongRevision(store.append(one(s, 'exists')), s, -1);
        expect(await store.readStream(s)).toEqual([]);
        await store.append(one(s, 'no_stream'));
        const r = await store.append(one(s, 'exists'));
        expect(r.revisions[s]).toBe(1);
      });

      it("'any' always succeeds", async () => {
        const s = `${p}a`;
        await store.append(one(s, 'any'));
        const r = await store.append(one(s, 'any', ev('A'), ev('B')));
        expect(r.revisions[s]).toBe(2);
      });

      it('a number must equal the current revision', async () => {
        const s = `${p}a`;
        await store.append(one(s, 'no_stream', ev('A'), ev('B')));
        await expectWrongRevision(store.append(one(s, 0)), s, 1);
        await expectWrongRevision(store.append(one(s, 2)), s, 1);
        const r = await store.append(one(s, 1, ev('C')));
        expect(r.revisions[s]).toBe(2);
        expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
      });

      it('-1 (what streamRevision returns for a missing stream) means no stream', async () => {
        const s = `${p}a`;
        await store.append(one(s, await store.streamRevision(s)));
        await expectWrongRevision(store.append(one(s, -1)), s, 0);
        await store.append(one(s, await store.streamRevision(s)));
        expect(await store.streamRevision(s)).toBe(1);
      });

      it('a number on a missing stream fails with actual -1', async () => {
        const s = `${p}a`;
        await expectWrongRevision(store.append(one(s, 0)), s, -1);
      });

      it('the error carries the expected revision', async () => {
        const s = `${p}a`;
        await store.append(one(s, 'no_stream'));
        const err = (await store.append(one(s, 5)).catch((e: unknown) => e)) as WrongExpectedRevisionError;
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err.expected).toBe(5);
      });

      it('rejects malformed appends before writing anything', async () => {
        const s = `${p}a`;
        await expect(
          store.append([
            { stream: s, expectedRevision: 'any', events: [ev('A')] },
            { stream: s, expectedRevision: 'any', events: [ev('B')] },
          ]),
        ).rejects.toThrow(/more than once/);
        await expect(store.append(one(s, -2))).rejects.toThrow();
        expect(await store.readStream(s)).toEqual([]);
      });
    });

    describe('multi-stream append', () => {
      it('writes several streams atomically and reports each new revision', async () => {
        const head = await store.headPosition();
        await store.append(one(`${p}b`, 'no_stream', ev('B0')));
        const r = await store.append([
          { stream: `${p}a`, expectedRevision: 'no_stream', events: [ev('A0'), ev('A1')] },
          { stream: `${p}b`, expectedRevision: 0, events: [ev('B1')] },
          { stream: `${p}c`, expectedRevision: 'any', events: [ev('C0')] },
        ]);
        expect(r.revisions).toEqual({ [`${p}a`]: 1, [`${p}b`]: 1, [`${p}c`]: 0 });
        const all = await mine(head);
        expect(all.map((e) => e.type)).toEqual(['B0', 'A0', 'A1', 'B1', 'C0']);
        expect(all[all.length - 1].position).toBe(r.position);
      });

      it('one stale expected revision writes nothing in any stream', async () => {
        await store.append(one(`${p}b`, 'no_stream', ev('B0'), ev('B1')));
        const head = await store.headPosition();
        await expectWrongRevision(
          store.append([
            { stream: `${p}a`, expectedRevision: 'no_stream', events: [ev('A0')] },
            { stream: `${p}c`, expectedRevision: 'any', events: [ev('C0')] },
            { stream: `${p}b`, expectedRevision: 0, events: [ev('B2')] }, // stale: b is at 1
          ]),
          `${p}b`,
          1,
        );
        expect(await store.readStream(`${p}a`)).toEqual([]);
        expect(await store.readStream(`${p}c`)).toEqual([]);
        expect((await store.readStream(`${p}b`)).map((e) => e.type)).toEqual(['B0', 'B1']);
        expect(await store.streamRevision(`${p}a`)).toBe(-1);
        expect(await mine(head)).toEqual([]);
      });

      it("one failing 'exists' check writes nothing", async () => {
        await expectWrongRevision(
          store.append([
            { stream: `${p}a`, expectedRevision: 'any', events: [ev('A0')] },
            { stream: `${p}b`, expectedRevision: 'exists', events: [ev('B0')] },
          ]),
          `${p}b`,
          -1,
        );
        expect(await store.readStream(`${p}a`)).toEqual([]);
      });
    });

    describe('readAll', () => {
      it('pages with after and limit', async () => {
        const head = await store.headPosition();
        for (let i = 0; i < 7; i++) await store.append(one(`${p}${i % 3}`, 'any', ev(`E${i}`)));
        const first = await store.readAll({ after: head, limit: 3, streamPrefixes: [p] });
        expect(first.map((e) => e.type)).toEqual(['E0', 'E1', 'E2']);
        const second = await store.readAll({ after: first[2].position, limit: 3, streamPrefixes: [p] });
        expect(second.map((e) => e.type)).toEqual(['E3', 'E4', 'E5']);
        const third = await store.readAll({ after: second[2].position, limit: 3, streamPrefixes: [p] });
        expect(third.map((e) => e.type)).toEqual(['E6']);
        expect(await store.readAll({ after: third[0].position, limit: 3, streamPrefixes: [p] })).toEqual([]);
        expect(await store.readAll({ after: head, limit: 0, streamPrefixes: [p] })).toEqual([]);
      });

      it('without prefixes reads every stream, in position order', async () => {
        const head = await store.headPosition();
        await store.append(one(`${p}x`, 'any', ev('X')));
        await store.append(one(`${p}y`, 'any', ev('Y')));
        const all = await store.readAll({ after: head, limit: 1000 });
        const ours = all.filter((e) => e.stream.startsWith(p));
        expect(ours.map((e) => e.type)).toEqual(['X', 'Y']);
        for (let i = 1; i < all.length; i++) expect(all[i].position).toBeGreaterThan(all[i - 1].position);
        expect(all.every((e) => e.position > head)).toBe(true);
      });

      it('filters by stream prefixes (any of several); an empty list matches nothing', async () => {
        const head = await store.headPosition();
        await store.append([
          { stream: `${p}node-o1:a`, expectedRevision: 'any', events: [ev('N1')] },
          { stream: `${p}edge-o1:b`, expectedRevision: 'any', events: [ev('E1')] },
          { stream: `${p}node-o2:c`, expectedRevision: 'any', events: [ev('N2')] },
          { stream: `${p}org-o1`, expectedRevision: 'any', events: [ev('O1')] },
        ]);
        const nodes = await store.readAll({ after: head, limit: 100, streamPrefixes: [`${p}node-`] });
        expect(nodes.map((e) => e.type)).toEqual(['N1', 'N2']);
        const o1 = await store.readAll({ after: head, limit: 100, streamPrefixes: [`${p}node-o1:`, `${p}edge-o1:`, `${p}org-o1`] });
        expect(o1.map((e) => e.type)).toEqual(['N1', 'E1', 'O1']);
        expect(await store.readAll({ after: head, limit: 100, streamPrefixes: [] })).toEqual([]);
        const limited = await store.readAll({ after: head, limit: 1, streamPrefixes: [`${p}node-`] });
        expect(limited.map((e) => e.type)).toEqual(['N1']);
      });

      it('prefix matching is literal and case-sensitive', async () => {
        const head = await store.headPosition();
        await store.append([
          { stream: `${p}a_b`, expectedRevision: 'any', events: [ev('U')] },
          { stream: `${p}axb`, expectedRevision: 'any', events: [ev('X')] },
          { stream: `${p}A_b`, expectedRevision: 'any', events: [ev('C')] },
        ]);
        const r = await store.readAll({ after: head, limit: 100, streamPrefixes: [`${p}a_`] });
        expect(r.map((e) => e.type)).toEqual(['U']);
      });
    });

    describe('deleteStreams', () => {
      it('removes the streams; others stay; a deleted stream can start again', async () => {
        await store.append([
          { stream: `${p}a`, expectedRevision: 'any', events: [ev('A0'), ev('A1')] },
          { stream: `${p}b`, expectedRevision: 'any', events: [ev('B0')] },
          { stream: `${p}c`, expectedRevision: 'any', events: [ev('C0')] },
        ]);
        await store.deleteStreams([`${p}a`, `${p}b`]);
        expect(await store.readStream(`${p}a`)).toEqual([]);
        expect(await store.readStream(`${p}b`)).toEqual([]);
        expect(await store.streamRevision(`${p}a`)).toBe(-1);
        expect((await store.readStream(`${p}c`)).map((e) => e.type)).toEqual(['C0']);
        const before = await store.headPosition();
        const r = await store.append(one(`${p}a`, 'no_stream', ev('A-again')));
        expect(r.position).toBeGreaterThan(before);
        const again = await store.readStream(`${p}a`);
        expect(again.map((e) => e.type)).toEqual(['A-again']);
        expect(await store.streamRevision(`${p}a`)).toBe(again[0].revision);
      });

      it('ignores streams that do not exist', async () => {
        await expect(store.deleteStreams([`${p}never`])).resolves.toBeUndefined();
        await expect(store.deleteStreams([])).resolves.toBeUndefined();
      });
    });

    describe('subscribe', () => {
      const collect = (sink: RecordedEvent[], filter = (e: RecordedEvent) => e.stream.startsWith(p)) => async (e: RecordedEvent) => {
        if (filter(e)) sink.push(e);
      };
      /**
       * Appends a marker and waits until every given sink has it, then takes it off again:
       * delivery is in log order, so whatever was going to be delivered before it has been.
       * (This proves "nothing more came" without waiting for time to pass.)
       */
      const drained = async (...sinks: RecordedEvent[][]) => {
        await store.append(one(`${p}marker`, 'any', ev('Marker')));
        await waitFor(() => sinks.every((s) => s.some((e) => (e.type as string) === 'Marker')), 60_000);
        for (const s of sinks) expect(s.pop()?.type).toBe('Marker');
      };

      it('catches up from a position, then delivers live events', async () => {
        const head = await store.headPosition();
        await store.append(one(`${p}a`, 'any', ev('A0'), ev('A1')));
        const got: RecordedEvent[] = [];
        const sub = store.subscribe(head, collect(got));
        await waitFor(() => got.length === 2);
        await store.append(one(`${p}b`, 'any', ev('B0')));
        await waitFor(() => got.length === 3);
        await sub.close();
        expect(got.map((e) => e.type)).toEqual(['A0', 'A1', 'B0']);
      });

      it('starts strictly after the given position', async () => {
        const r = await store.append(one(`${p}a`, 'any', ev('A0'), ev('A1')));
        const got: RecordedEvent[] = [];
        const sub = store.subscribe(r.position, collect(got));
        await store.append(one(`${p}a`, 'any', ev('A2')));
        await waitFor(() => got.length >= 1);
        await drained(got);
        await sub.close();
        expect(got.map((e) => e.type)).toEqual(['A2']);
      });

      it('awaits the handler before delivering the next event', async () => {
        const head = await store.headPosition();
        await store.append(one(`${p}a`, 'any', ev('A0'), ev('A1'), ev('A2')));
        let active = 0;
        let maxActive = 0;
        const got: string[] = [];
        const sub = store.subscribe(head, async (e) => {
          if (!e.stream.startsWith(p)) return;
          active++;
          maxActive = Math.max(maxActive, active);
          await new Promise((res) => setImmediate(res)); // the handler awaits: the next event must wait for it
          got.push(e.type);
          active--;
        });
        await waitFor(() => got.length === 3);
        await sub.close();
        expect(maxActive).toBe(1);
        expect(got).toEqual(['A0', 'A1', 'A2']);
      });

      it(
        'never skips or duplicates while 20 concurrent appenders write during catch-up',
        async () => {
          const head = await store.headPosition();
          // a backlog so the subscriber is still catching up when the concurrent writes land
          for (let i = 0; i < 10; i++) {
            await store.append([{ stream: `${p}backlog-${i}`, expectedRevision: 'no_stream', events: Array.from({ length: 20 }, (_, j) => ev(`Backlog`, { i, j })) }]);
          }
          const got: RecordedEvent[] = [];
          const sub = store.subscribe(head, async (e) => {
            if (!e.stream.startsWith(p)) return;
            got.push(e);
            if (got.length % 7 === 0) await new Promise((res) => setImmediate(res)); // a slow-ish consumer
          });
          const appenders = Array.from({ length: 20 }, async (_, w) => {
            for (let i = 0; i < 50; i++) {
              const expected: ExpectedRevision = i === 0 ? 'no_stream' : i - 1;
              await store.append([{ stream: `${p}w-${w}`, expectedRevision: expected, events: [ev('Work', { w, i })] }]);
            }
          });
          await Promise.all(appenders);
          const total = 200 + 20 * 50;
          await waitFor(() => got.length >= total, 60_000);
          await drained(got);
          await sub.close();

          expect(got.length).toBe(total);
          const positions = got.map((e) => e.position);
          for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]);
          expect(new Set(got.map((e) => e.id)).size).toBe(total);
          const log = (await mine(head, total + 10)).filter((e) => (e.type as string) !== 'Marker');
          expect(positions).toEqual(log.map((e) => e.position));
          // per writer, events arrive in revision order
          for (let w = 0; w < 20; w++) {
            const revs = got.filter((e) => e.stream === `${p}w-${w}`).map((e) => e.revision);
            expect(revs).toEqual(Array.from({ length: 50 }, (_, i) => i));
          }
        },
        120_000,
      );

      it(
        'delivers concurrent multi-stream appends exactly once to several subscribers',
        async () => {
          const head = await store.headPosition();
          const a: RecordedEvent[] = [];
          const b: RecordedEvent[] = [];
          const subA = store.subscribe(head, collect(a));
          const writes = Array.from({ length: 10 }, async (_, w) => {
            for (let i = 0; i < 10; i++) {
              await store.append([
                { stream: `${p}m-${w}`, expectedRevision: 'any', events: [ev('M', { w, i })] },
                { stream: `${p}shared-${i}`, expectedRevision: 'any', events: [ev('S', { w, i })] },
              ]);
            }
          });
          const subB = store.subscribe(head, collect(b));
          await Promise.all(writes);
          await waitFor(() => a.length >= 200 && b.length >= 200, 60_000);
          await drained(a, b);
          await subA.close();
          await subB.close();
          expect(a.length).toBe(200);
          expect(b.map((e) => e.position)).toEqual(a.map((e) => e.position));
          expect(new Set(a.map((e) => e.position)).size).toBe(200);
        },
        120_000,
      );

      it('close stops delivery', async () => {
        const head = await store.headPosition();
        const got: RecordedEvent[] = [];
        const sub = store.subscribe(head, collect(got));
        await store.append(one(`${p}a`, 'any', ev('A0')));
        await waitFor(() => got.length === 1);
        await sub.close();
        await sub.close(); // idempotent
        await store.append(one(`${p}a`, 'any', ev('A1')));
        // a subscriber still open gets A1 and a marker after it: the closed one had its chance
        const witness: RecordedEvent[] = [];
        const open = store.subscribe(head, collect(witness));
        await drained(witness);
        await open.close();
        expect(witness.map((e) => e.type)).toEqual(['A0', 'A1']);
        expect(got.map((e) => e.type)).toEqual(['A0']);
      });

      it('close from inside the handler stops at that event', async () => {
        const head = await store.headPosition();
        await store.append(one(`${p}a`, 'any', ev('A0'), ev('A1'), ev('A2')));
        const got: string[] = [];
        const sub = store.subscribe(head, async (e) => {
          if (!e.stream.startsWith(p)) return;
          got.push(e.type);
          if ((e.type as string) === 'A1') await sub.close();
        });
        await waitFor(() => got.length >= 2);
        // a subscriber still open gets A2 and a marker after it: the closed one had its chance
        const witness: RecordedEvent[] = [];
        const open = store.subscribe(head, collect(witness));
        await drained(witness);
        await open.close();
        expect(witness.map((e) => e.type)).toEqual(['A0', 'A1', 'A2']);
        expect(got).toEqual(['A0', 'A1']);
      });
    });
  });
}
