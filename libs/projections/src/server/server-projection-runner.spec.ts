import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecordedEvent, eventFromLog } from '@strata/domain/events';
import { eventually as waitFor } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { AcquireDecision, Lease, LeaseTerms, RenewDecision, decideAcquire, decideRelease, decideRenew } from '../lease/lease';
import { CheckpointStorePort, LeaseStorePort, ServerProjectionRunner } from './server-projection-runner';
import { ServerProjection } from './server-projection';

/** The workers' clock: no lease expires in these tests unless one is given away or moved on. */
const clock = new FixedClock(1_700_000_000);
const nowMs = () => clock.now() * 1000;

/** Leases kept in a Map shared by the workers of a test, decided by the real lease rules. */
class MapLeases implements LeaseStorePort {
  readonly leases = new Map<string, Lease>();
  /** who asked for a lease, in order */
  readonly acquisitions: string[] = [];
  constructor(readonly terms: LeaseTerms) {}
  async acquire(name: string, me: string): Promise<AcquireDecision> {
    this.acquisitions.push(me);
    const d = decideAcquire(this.leases.get(name) ?? null, name, me, nowMs(), this.terms);
    if (d.outcome !== 'held') this.leases.set(name, d.lease);
    return d;
  }
  async renew(name: string, me: string, epoch: number): Promise<RenewDecision> {
    const d = decideRenew(this.leases.get(name) ?? null, me, epoch, nowMs(), this.terms);
    if (d.outcome === 'renewed') this.leases.set(name, d.lease);
    return d;
  }
  async release(name: string, me: string, epoch: number): Promise<void> {
    const next = decideRelease(this.leases.get(name) ?? null, me, epoch);
    if (next) this.leases.set(name, next);
  }
}

class MapCheckpoints implements CheckpointStorePort {
  readonly rows = new Map<string, { version: number; position: number; last_error: string | null }>();
  async get(name: string) {
    const r = this.rows.get(name);
    return r ? { ...r } : null;
  }
  async reset(name: string, version: number) {
    this.rows.set(name, { version, position: 0, last_error: null });
  }
  async advance(name: string, version: number, position: number) {
    const r = this.rows.get(name);
    if (!r || r.version !== version) return false;
    r.position = Math.max(r.position, position);
    r.last_error = null;
    return true;
  }
  async setError(name: string, error: string) {
    const r = this.rows.get(name);
    if (r) r.last_error = error;
  }
}

/** Records what it is given; can be told to fail. */
class RecordingProjection implements ServerProjection {
  readonly seen: number[] = [];
  resets = 0;
  failing = false;
  /** who applied each position (two workers must never interleave) */
  readonly by: string[] = [];
  constructor(
    readonly name: string,
    readonly version = 1,
    private readonly worker = 'w',
  ) {}
  withWorker(worker: string): RecordingProjection {
    const p = new RecordingProjection(this.name, this.version, worker);
    (p as { seen: number[] }).seen = this.seen;
    (p as { by: string[] }).by = this.by;
    return p;
  }
  async apply(events: RecordedEvent[]): Promise<void> {
    if (this.failing) throw new Error('index unreachable');
    for (const e of events) {
      this.seen.push(e.position);
      this.by.push(this.worker);
    }
  }
  async reset(): Promise<void> {
    this.resets++;
    this.seen.length = 0;
  }
}

describe('ServerProjectionRunner', () => {
  let dir: string;
  let log: SqliteEventStore;
  const terms = { ttlMs: 600 };
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-runner-'));
    log = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 20 });
  });
  afterEach(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const append = (n: number) => {
    let last = 0;
    for (let i = 0; i < n; i++)
      last = log.appendSync([
        {
          stream: `thing-${i}-${Math.random()}`,
          expectedRevision: 'no_stream',
          events: [{ ...eventFromLog('Thing', {}), metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: 1 } }],
        },
      ]).position;
    return last;
  };
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
  const runner = (projections: ServerProjection[], checkpoints: MapCheckpoints, leases: MapLeases, owner = 'w1', extra = {}) =>
    new ServerProjectionRunner({ log, checkpoints, leases, projections, owner, batchSize: 7, retryDelayMs: 20, logger: quiet, clock, ...extra });
  const eventually = (cond: () => boolean, ms = 5000) => waitFor(cond, { timeoutMs: ms });

  it('applies every event once, in order, to every projection and checkpoints the last position', async () => {
    const head = append(25);
    const graph = new RecordingProjection('graph');
    const text = new RecordingProjection('text');
    const cps = new MapCheckpoints();
    const r = runner([graph, text], cps, new MapLeases(terms));
    r.start();
    await r.waitFor(head);
    const live = append(3);
    await r.waitFor(live);
    await r.stop();
    expect(graph.seen).toEqual(range(1, 28));
    expect(text.seen).toEqual(range(1, 28));
    expect(cps.rows.get('graph')).toEqual({ version: 1, position: 28, last_error: null });
    expect(await r.status()).toEqual([
      { name: 'graph', version: 1, stored_version: 1, checkpoint: 28, head: 28, lag: 0, last_error: null },
      { name: 'text', version: 1, stored_version: 1, checkpoint: 28, head: 28, lag: 0, last_error: null },
    ]);
  });

  it('a batch that fails because the runner is stopping is reported as a stop, not an error, and not checkpointed', async () => {
    const lines: string[] = [];
    const logger = { log: (m: string) => lines.push(`log: ${m}`), warn: (m: string) => lines.push(`warn: ${m}`), error: (m: string) => lines.push(`error: ${m}`) };
    let interrupt: () => void = () => undefined;
    let entered = false;
    const waiting: ServerProjection = {
      name: 'feed',
      version: 1,
      apply: () => {
        entered = true;
        return new Promise<void>((_, reject) => (interrupt = () => reject(new Error('interrupted'))));
      },
      reset: async () => undefined,
    };
    const cps = new MapCheckpoints();
    const r = runner([waiting], cps, new MapLeases(terms), 'w1', { logger });
    r.start();
    append(1);
    await eventually(() => entered);
    const stopping = r.stop();
    interrupt();
    await stopping;
    expect(lines.filter((l) => !l.startsWith('log: applying') && !l.startsWith('log: projection'))).toEqual([
      'log: stopped during a batch (projection feed failed at positions 1..1: interrupted); the next holder resumes from the checkpoints',
    ]);
    expect(cps.rows.get('feed')?.position).toBe(0);
  });

  it('resumes exactly after its checkpoint when restarted', async () => {
    const cps = new MapCheckpoints();
    const leases = new MapLeases(terms);
    const graph = new RecordingProjection('graph');
    const first = runner([graph], cps, leases);
    first.start();
    await first.waitFor(append(10));
    await first.stop();
    const head = append(5);
    const again = new RecordingProjection('graph');
    const second = runner([again], cps, leases);
    second.start();
    await second.waitFor(head);
    await second.stop();
    expect(graph.seen).toEqual(range(1, 10));
    expect(again.seen).toEqual(range(11, 15));
    expect(again.resets).toBe(0);
  });

  it('lets only the lease holder apply; a standby takes over when the holder stops and continues after it', async () => {
    const cps = new MapCheckpoints();
    const leases = new MapLeases(terms);
    const shared = new RecordingProjection('graph');
    const a = runner([shared.withWorker('a')], cps, leases, 'a');
    const b = runner([shared.withWorker('b')], cps, leases, 'b');
    a.start();
    await a.waitFor(append(10));
    b.start();
    await eventually(() => leases.acquisitions.includes('b'));
    expect(a.holding).toBe(true);
    expect(b.holding).toBe(false);
    const more = append(10);
    await a.waitFor(more);
    await a.stop();
    const last = append(4);
    await b.waitFor(last);
    await b.stop();
    expect(shared.seen).toEqual(range(1, 24));
    const firstByB = shared.by.indexOf('b');
    expect(shared.by.slice(0, firstByB).every((w) => w === 'a')).toBe(true);
    expect(shared.by.slice(firstByB).every((w) => w === 'b')).toBe(true);
  });

  it('rebuilds a projection whose version changed from the start, leaving the others at their checkpoints', async () => {
    const cps = new MapCheckpoints();
    const leases = new MapLeases(terms);
    const r1 = runner([new RecordingProjection('graph'), new RecordingProjection('text', 1)], cps, leases);
    r1.start();
    await r1.waitFor(append(8));
    await r1.stop();
    const graph = new RecordingProjection('graph');
    const text2 = new RecordingProjection('text', 2);
    const r2 = runner([graph, text2], cps, leases);
    r2.start();
    await r2.waitFor(append(2));
    await r2.stop();
    expect(text2.resets).toBe(1);
    expect(text2.seen).toEqual(range(1, 10));
    expect(graph.seen).toEqual([9, 10]);
    expect(cps.rows.get('text')).toEqual({ version: 2, position: 10, last_error: null });
  });

  it('records a failing projection’s error and, once it recovers, catches up without skipping an event', async () => {
    const cps = new MapCheckpoints();
    const graph = new RecordingProjection('graph');
    const text = new RecordingProjection('text');
    text.failing = true;
    const r = runner([graph, text], cps, new MapLeases(terms));
    r.start();
    const head = append(12);
    await eventually(() => cps.rows.get('text')?.last_error !== null && cps.rows.get('text')?.last_error !== undefined);
    expect(cps.rows.get('text')!.last_error).toContain('index unreachable');
    expect(cps.rows.get('text')!.position).toBe(0);
    text.failing = false;
    await r.waitFor(head);
    await r.stop();
    expect(text.seen).toEqual(range(1, 12));
    // the graph may see a batch again after the failure (it is idempotent) but misses none
    expect([...new Set(graph.seen)]).toEqual(range(1, 12));
    expect(cps.rows.get('text')).toEqual({ version: 1, position: 12, last_error: null });
  });

  it('stops applying once another worker has taken the lease', async () => {
    const cps = new MapCheckpoints();
    const leases = new MapLeases(terms);
    const graph = new RecordingProjection('graph');
    const r = runner([graph], cps, leases, 'a');
    r.start();
    await r.waitFor(append(3));
    // an operator (or a worker that saw the hold expire) takes the lease over
    const held = leases.leases.get('projections')!;
    leases.leases.set('projections', { ...held, owner: 'intruder', epoch: held.epoch + 1, expires_at: nowMs() + 60_000 });
    await eventually(() => !r.holding, 3000);
    append(5);
    // it asks for the lease again after the new events, and is refused: it has had its chance to apply them
    const asked = leases.acquisitions.length;
    await eventually(() => leases.acquisitions.length > asked + 1, 3000);
    await r.stop();
    expect(graph.seen).toEqual(range(1, 3));
  });
});
