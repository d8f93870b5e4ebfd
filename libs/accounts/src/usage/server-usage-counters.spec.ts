import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { FixedClock } from '@strata/domain/time';
import { NodeCountSource, ServerUsageCounters } from './server-usage-counters';
import { countAfter, countEffect } from './node-count-deltas';

/** A graph read model as the worker leaves it: counts as of its checkpoint. */
class ProjectedCounts implements NodeCountSource {
  position = 0;
  counts = new Map<string, number>();
  reads = 0;
  async checkpoint() {
    return this.position;
  }
  async countLive(org: string) {
    this.reads++;
    return this.counts.get(org) ?? 0;
  }
}

let pos = 0;
// a node version carries its record; only tombstone_at matters to the count
const LIVE = { node: { tombstone_at: null }, reason: null };
const ev = (type: string, org: string, data: unknown = LIVE): RecordedEvent =>
  recordedEvent({ id: `e${pos + 1}`, position: ++pos, stream: `node-${org}:x`, revision: 0, type, data, metadata: { org_id: org, principal: { kind: 'system', id: 't' }, request_id: 'r', occurred_at: 1 } });
const flush = () => new Promise((r) => setImmediate(r));

describe('live-node count deltas', () => {
  it('moves on created, tombstoned and restored nodes; a clear resets; a purge recounts', () => {
    expect(countEffect(ev('NodeCreated', 'o'))).toEqual({ kind: 'delta', delta: 1 });
    expect(countEffect(ev('NodeTombstoned', 'o'))).toEqual({ kind: 'delta', delta: -1 });
    expect(countEffect(ev('NodeRestored', 'o'))).toEqual({ kind: 'delta', delta: 1 });
    expect(countEffect(ev('NodeUpdated', 'o'))).toEqual({ kind: 'none' });
    expect(countEffect(ev('GraphCleared', 'o', { at: 1 }))).toEqual({ kind: 'reset_to_zero' });
    expect(countEffect(ev('GraphPurged', 'o', { node_uids: [], edge_uids: [], cutoff: null }))).toEqual({ kind: 'recount' });
  });
  it('brings a count forward by the changes after its checkpoint only', () => {
    expect(countAfter(10, 5, [{ position: 4, delta: 1 }, { position: 6, delta: 1 }, { position: 7, delta: -1 }, { position: 8, delta: 1 }])).toBe(11);
    expect(countAfter(0, 0, [{ position: 1, delta: -1 }])).toBe(0);
  });
});

describe('ServerUsageCounters', () => {
  const credits = { creditsUsed: (org: string, period: string) => (org === 'o1' && period === '2026-11' ? 7 : 0) };

  it('answers from memory, adding node events the worker has not projected yet', async () => {
    const src = new ProjectedCounts();
    src.counts.set('o1', 5);
    const c = new ServerUsageCounters(src, credits, new FixedClock());
    await c.warm(['o1']);
    expect(c.liveNodes('o1', false)).toBe(5);
    c.observe(ev('NodeCreated', 'o1'));
    c.observe(ev('NodeCreated', 'o1'));
    c.observe(ev('NodeTombstoned', 'o1'));
    c.observe(ev('NodeCreated', 'o2'));
    expect(c.liveNodes('o1', false)).toBe(6);
    expect(src.reads).toBe(1); // no database read on the answer path
    expect(c.creditsUsed('o1', '2026-11')).toBe(7);
  });

  it('a fresh count includes the changes seen after the checkpoint it was read at, and no earlier ones', async () => {
    const src = new ProjectedCounts();
    const c = new ServerUsageCounters(src, credits, new FixedClock());
    const a = ev('NodeCreated', 'o1');
    const b = ev('NodeCreated', 'o1');
    const d = ev('NodeCreated', 'o1');
    for (const e of [a, b, d]) c.observe(e);
    // the worker has projected a and b only
    src.position = b.position;
    src.counts.set('o1', 2);
    await c.refresh('o1');
    expect(c.liveNodes('o1', false)).toBe(3);
    // later the worker catches up; a recount gives the same answer
    src.position = d.position;
    src.counts.set('o1', 3);
    await c.refresh('o1');
    expect(c.liveNodes('o1', false)).toBe(3);
  });

  it('before the first count, answers what this replica has seen and starts counting', async () => {
    const src = new ProjectedCounts();
    src.counts.set('o1', 40);
    const c = new ServerUsageCounters(src, credits, new FixedClock());
    c.observe(ev('NodeCreated', 'o1'));
    expect(c.liveNodes('o1', true)).toBe(1);
    await flush();
    expect(c.liveNodes('o1', true)).toBe(41);
  });

  it('a new organization starts at zero; a cleared one goes back to zero', async () => {
    const src = new ProjectedCounts();
    const c = new ServerUsageCounters(src, credits, new FixedClock());
    c.observe(ev('OrganizationCreated', 'o9', { org_id: 'o9' }));
    c.observe(ev('NodeCreated', 'o9'));
    expect(c.liveNodes('o9', false)).toBe(1);
    c.observe(ev('GraphCleared', 'o9'));
    expect(c.liveNodes('o9', false)).toBe(0);
    c.observe(ev('NodeCreated', 'o9'));
    expect(c.liveNodes('o9', false)).toBe(1);
    expect(src.reads).toBe(0);
  });

  it('near a limit, an old count is read again in the background', async () => {
    const src = new ProjectedCounts();
    const clock = new FixedClock(1_000);
    const c = new ServerUsageCounters(src, credits, clock);
    src.counts.set('o1', 10);
    await c.warm(['o1']);
    src.counts.set('o1', 12); // written through another replica and projected
    clock.advance(0.5);
    expect(c.liveNodes('o1', true)).toBe(10);
    await flush();
    expect(src.reads).toBe(1);
    clock.advance(1);
    expect(c.liveNodes('o1', false)).toBe(10); // not near a limit: the cache holds
    expect(c.liveNodes('o1', true)).toBe(10);
    await flush();
    expect(c.liveNodes('o1', true)).toBe(12);
  });

  it('keeps answering the last count when the read model cannot be reached', async () => {
    const src = new ProjectedCounts();
    src.counts.set('o1', 3);
    const clock = new FixedClock(0);
    const c = new ServerUsageCounters(src, credits, clock);
    await c.warm(['o1']);
    src.countLive = async () => {
      throw new Error('connection refused');
    };
    clock.advance(60);
    expect(c.liveNodes('o1', false)).toBe(3);
    await flush();
    expect(c.liveNodes('o1', false)).toBe(3);
  });
});
