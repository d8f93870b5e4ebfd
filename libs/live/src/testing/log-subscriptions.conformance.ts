/// <reference types="jest" />
// jest types referenced explicitly: the build compiles *.servers.ts, which imports this suite
import { randomUUID } from 'node:crypto';
import { NewEvent, RecordedEvent, eventFromLog, eventFields } from '@strata/domain/events';
import type { EventStore } from '@strata/event-store';
import { DropReason, LogConsumer, LogSubscriptions } from '../log-subscription.port';

export interface LiveFixture {
  store: EventStore;
  subs: LogSubscriptions;
  /** what the storage mode does after a commit (the embedded unit of work signals it) */
  committed: () => void;
  cleanup: () => Promise<void>;
}

/**
 * The behaviour every LogSubscriptions adapter must have. Only streams with a fresh prefix per
 * test are looked at, so it also runs against a long-lived server.
 */
export function describeLogSubscriptionsConformance(name: string, factory: () => Promise<LiveFixture>): void {
  describe(`LogSubscriptions conformance: ${name}`, () => {
    let f: LiveFixture;
    let p: string;
    beforeEach(async () => {
      f = await factory();
      p = `live${randomUUID().replace(/-/g, '').slice(0, 12)}-`;
    });
    afterEach(async () => {
      await f.subs.close();
      await f.cleanup();
    });

    const ev = (type: string, i = 0): NewEvent => ({
      ...eventFromLog(type, { i }),
      metadata: { org_id: 'o1', principal: { kind: 'user', id: 'u1' }, request_id: `r${i}`, correlation_id: null, occurred_at: 1_700_000_000 + i },
    });
    const append = async (stream: string, types: string[]) => {
      const r = await f.store.append([{ stream, expectedRevision: 'any', events: types.map((t, i) => ev(t, i)) }]);
      f.committed();
      return r.position;
    };

    /** a consumer that records events and resolves `until(n)` once it holds n of them */
    function collector() {
      const got: RecordedEvent[] = [];
      let waiters: { n: number; resolve: () => void }[] = [];
      let dropped: DropReason | undefined;
      const dropWaiters: ((r: DropReason) => void)[] = [];
      const consumer: LogConsumer = {
        event: (e) => {
          got.push(e);
          waiters = waiters.filter((w) => (got.length >= w.n ? (w.resolve(), false) : true));
        },
        dropped: (r) => {
          dropped = r;
          for (const w of dropWaiters) w(r);
        },
      };
      return {
        got,
        consumer,
        get dropped() {
          return dropped;
        },
        until: (n: number) => (got.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
        whenDropped: () => (dropped ? Promise.resolve(dropped) : new Promise<DropReason>((r) => dropWaiters.push(r))),
      };
    }

    it('replays the events after a position, then delivers new ones as they commit, in log order', async () => {
      const first = await append(`${p}a`, ['A1', 'A2']);
      await append(`${p}b`, ['B1']);
      const c = collector();
      const sub = f.subs.subscribe({ from: first - 0, filter: { streamPrefixes: [p] } }, c.consumer);
      expect(await sub.started).toBe(first);
      await c.until(1);
      await append(`${p}a`, ['A3']);
      await c.until(2);
      expect(c.got.map((e) => e.type)).toEqual(['B1', 'A3']);
      expect(c.got[1].position).toBeGreaterThan(c.got[0].position);
      expect(sub.position).toBe(c.got[1].position);
      await sub.close();
    });

    it("from 'now' delivers only events committed after subscribing", async () => {
      await append(`${p}a`, ['OLD']);
      const c = collector();
      const sub = f.subs.subscribe({ from: 'now', filter: { streamPrefixes: [p] } }, c.consumer);
      await sub.started;
      await append(`${p}a`, ['NEW']);
      await c.until(1);
      expect(c.got.map((e) => e.type)).toEqual(['NEW']);
      await sub.close();
    });

    it('applies stream prefixes, types and a predicate together', async () => {
      const c = collector();
      const sub = f.subs.subscribe(
        { from: 'now', filter: { streamPrefixes: [`${p}keep`], types: ['X', 'Y'], where: (e) => eventFields(e).i !== 1 } },
        c.consumer,
      );
      await sub.started;
      await append(`${p}other`, ['X']);
      await append(`${p}keep`, ['X', 'X', 'Z', 'Y']); // i = 0, 1, 2, 3
      await c.until(2);
      expect(c.got.map((e) => `${e.type}${eventFields(e).i}`)).toEqual(['X0', 'Y3']);
      await sub.close();
    });

    it('paces a replay longer than the buffer by the consumer instead of dropping it', async () => {
      const start = await f.store.headPosition();
      for (let i = 0; i < 5; i++) await append(`${p}a`, ['E', 'E', 'E', 'E']);
      const c = collector();
      const sub = f.subs.subscribe({ from: start, filter: { streamPrefixes: [p] }, bufferSize: 3 }, c.consumer);
      await c.until(20);
      expect(c.dropped).toBeUndefined();
      expect(new Set(c.got.map((e) => e.position)).size).toBe(20);
      await sub.close();
    });

    it('drops a live consumer that falls further behind than its buffer', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const seen: RecordedEvent[] = [];
      let reason: DropReason | undefined;
      const dropped = new Promise<DropReason>((resolve) => {
        const sub = f.subs.subscribe(
          { from: 'now', filter: { streamPrefixes: [p] }, bufferSize: 2 },
          {
            event: async (e) => {
              seen.push(e);
              await gate; // a consumer stuck on its first event
            },
            dropped: (r) => {
              reason = r;
              resolve(r);
            },
          },
        );
        void sub.started.then(async () => {
          for (let i = 0; i < 5; i++) await append(`${p}a`, ['E']);
        });
      });
      expect(await dropped).toBe('slow_consumer');
      release();
      expect(reason).toBe('slow_consumer');
      expect(seen.length).toBeLessThanOrEqual(1);
    });

    it('reports a consumer that throws as consumer_failed and delivers nothing more', async () => {
      const c = collector();
      let calls = 0;
      const sub = f.subs.subscribe(
        { from: 'now', filter: { streamPrefixes: [p] } },
        {
          event: () => {
            calls++;
            throw new Error('boom');
          },
          dropped: c.consumer.dropped,
        },
      );
      await sub.started;
      await append(`${p}a`, ['E', 'E']);
      expect(await c.whenDropped()).toBe('consumer_failed');
      expect(calls).toBe(1);
    });

    it('close() stops delivery without reporting a drop', async () => {
      const c = collector();
      const sub = f.subs.subscribe({ from: 'now', filter: { streamPrefixes: [p] } }, c.consumer);
      await sub.started;
      await append(`${p}a`, ['E']);
      await c.until(1);
      await sub.close();
      await append(`${p}a`, ['E']);
      // a later subscription sees the second event: the log moved on, the closed one did not
      const later = collector();
      const sub2 = f.subs.subscribe({ from: c.got[0].position, filter: { streamPrefixes: [p] } }, later.consumer);
      await later.until(1);
      await sub2.close();
      expect(c.got).toHaveLength(1);
      expect(c.dropped).toBeUndefined();
    });
  });
}
