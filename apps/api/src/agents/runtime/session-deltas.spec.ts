import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { InMemoryLiveRelay } from '@strata/platform/live-relay/in-memory-live-relay';
import { MongoLiveRelay } from '@strata/platform/live-relay/mongo-live-relay';
import type { LiveRelay } from '@strata/platform/live-relay/live-relay.port';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { eventually } from '@strata/domain/testing/eventually';
import { SessionDelta, SessionDeltas } from './session-deltas';

const ids = { uuid: () => randomUUID() } as never;

/** a relay that counts what goes through it */
class CountingRelay implements LiveRelay {
  readonly published: string[] = [];
  constructor(private readonly inner: LiveRelay) {}
  publish(channel: string, payload: unknown): void {
    this.published.push(channel);
    this.inner.publish(channel, payload);
  }
  subscribe(listener: (channel: string, payload: unknown) => void): () => void {
    return this.inner.subscribe(listener);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const replica = (relay: LiveRelay) => new SessionDeltas({ liveRelay: relay } as unknown as ServerStores, ids);
const delta = (i: number): SessionDelta => ({ run_id: 'r', message_id: 'm', step: 1, delta: `w${i} `, at: 0 });

/** each replica's relay: one shared object in memory (the servers-mode harness), one client each on MongoDB */
interface Relays {
  next(): LiveRelay;
  close(): Promise<void>;
}

const inMemory = async (): Promise<Relays> => {
  const shared = new InMemoryLiveRelay();
  return { next: () => shared, close: () => shared.close() };
};

// the MongoDB conformance runs when STRATA_MONGO_URL is set (docker compose up, then npm run test:servers)
const mongoUrl = process.env.STRATA_MONGO_URL;
const onMongo = async (): Promise<Relays> => {
  const client = await new MongoClient(mongoUrl!).connect();
  const db = client.db(`strata_test_${randomUUID().slice(0, 8)}`);
  const made: MongoLiveRelay[] = [];
  return {
    next: () => {
      const r = new MongoLiveRelay(db);
      made.push(r);
      return r;
    },
    close: async () => {
      for (const r of made) await r.close();
      await db.dropDatabase();
      await client.close();
    },
  };
};

const cases: [string, () => Promise<Relays>][] = [['in memory', inMemory], ...(mongoUrl ? [['on MongoDB', onMongo] as [string, () => Promise<Relays>]] : [])];

describe.each(cases)('SessionDeltas across replicas, relay %s', (_name, open) => {
  const wait = (check: () => boolean) => eventually(check, { timeoutMs: 20_000 });
  let relays: Relays;
  beforeEach(async () => (relays = await open()));
  afterEach(async () => relays.close());

  it('writes a delta to the relay only while another replica has a stream of the session open, and that replica gets the whole text in order', async () => {
    const relayA = new CountingRelay(relays.next());
    const a = replica(relayA);
    const b = replica(relays.next());
    const deltasWritten = () => relayA.published.filter((c) => c === 'agent-session-delta').length;

    // nobody listens elsewhere: A's own stream gets the text, the relay gets nothing
    const onA: string[] = [];
    const stopA = a.listen('s1', (d) => onA.push(d.delta));
    for (let i = 0; i < 5; i++) a.publish('s1', delta(i));
    expect(onA.join('')).toBe('w0 w1 w2 w3 w4 ');
    expect(deltasWritten()).toBe(0);

    // B opens a stream of the session: once A heard of it, every delta goes through, in order
    const onB: string[] = [];
    const stopB = b.listen('s1', (d) => onB.push(d.delta));
    await wait(() => a.relays('s1'));
    for (let i = 0; i < 50; i++) a.publish('s1', delta(i));
    await wait(() => onB.length === 50);
    expect(onB.join('')).toBe(Array.from({ length: 50 }, (_, i) => `w${i} `).join(''));
    expect(deltasWritten()).toBe(50);
    // another session nobody else watches is not relayed
    a.publish('s2', delta(0));
    expect(deltasWritten()).toBe(50);

    // B's last stream closes: A stops writing
    stopB();
    await wait(() => !a.relays('s1'));
    a.publish('s1', delta(99));
    expect(deltasWritten()).toBe(50);
    stopA();
  });

  it('a replica starting after another opened its streams hears of them (hello)', async () => {
    const b = replica(relays.next());
    const got: string[] = [];
    b.listen('s1', (d) => got.push(d.delta));
    const a = replica(relays.next());
    await wait(() => a.relays('s1'));
    a.publish('s1', delta(1));
    await wait(() => got.length === 1);
    expect(got).toEqual(['w1 ']);
  });
});
