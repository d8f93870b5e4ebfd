import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClockIds, FixedClock } from '@strata/domain/time';
import { SqliteJobQueue } from '../queue/sqlite-job-queue';
import { Schedule } from './schedule';
import { MissedSlotPolicy, Scheduler, SlotReport, enqueueSlotJob } from './scheduler';
import { SqliteScheduleStore } from './sqlite-schedule-store';
import { at } from '@strata/domain/testing/fixed-time';

const iso = (s: number) => new Date(s * 1000).toISOString();

describe('Scheduler', () => {
  let dir: string;
  let store: SqliteScheduleStore;
  let clock: FixedClock;
  let fired: { id: string; slot: number; at: number }[];

  const scheduler = (missed?: MissedSlotPolicy) =>
    new Scheduler(store, clock, new ClockIds(clock), async (s: Schedule, slot) => void fired.push({ id: s.id, slot, at: clock.now() }), { missed });

  /** ticks every `step` seconds from now until `untilIso`, as a running service would */
  async function run(s: Scheduler, untilIso: string, step = 60): Promise<SlotReport[]> {
    const reports: SlotReport[] = [];
    while (clock.now() < at(untilIso)) {
      clock.advance(step);
      reports.push(...(await s.tick()));
    }
    return reports;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-scheduler-'));
    store = new SqliteScheduleStore(path.join(dir, 'ops.db'));
    fired = [];
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fires a slot when it comes, not before, and moves to the next one', async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    const s = scheduler();
    const sched = await s.put({ org: 'org-1', cron: '0 9 * * *', timezone: 'Europe/Paris', job_kind: 'digest' });
    expect(iso(sched.next_run_at!)).toBe('2026-05-05T07:00:00.000Z');
    clock.set(at('2026-05-05T06:59:59Z'));
    expect(await s.tick()).toEqual([]);
    clock.advance(1);
    expect(await s.tick()).toEqual([{ schedule_id: sched.id, org: 'org-1', fired: at('2026-05-05T07:00:00Z'), missed: [], missed_count: 0 }]);
    expect(await s.tick()).toEqual([]);
    expect(await store.get('org-1', sched.id)).toMatchObject({ last_slot: at('2026-05-05T07:00:00Z'), next_run_at: at('2026-05-06T07:00:00Z') });
  });

  it('fires a daily Paris time at the same local time across the spring-forward change, a time in the gap shifted by it', async () => {
    clock = new FixedClock(at('2026-03-27T12:00:00Z'));
    const s = scheduler();
    const nine = await s.put({ org: 'org-1', cron: '0 9 * * *', timezone: 'Europe/Paris', job_kind: 'digest' });
    const twoThirty = await s.put({ org: 'org-1', cron: '30 2 * * *', timezone: 'Europe/Paris', job_kind: 'digest' });
    await run(s, '2026-03-31T12:00:00Z');
    const of = (id: string) => fired.filter((f) => f.id === id).map((f) => iso(f.slot));
    expect(of(nine.id)).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z', '2026-03-31T07:00:00.000Z']);
    // 02:30 CET, then 03:30 CEST (02:30 did not exist), then 02:30 CEST
    expect(of(twoThirty.id)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
    // each fired on time (the service ticks every minute)
    for (const f of fired) expect(f.at - f.slot).toBeLessThan(60);
  });

  it('fires a fixed Paris time once in the repeated hour of the fall-back change, and an hourly pattern every hour', async () => {
    clock = new FixedClock(at('2026-10-24T12:00:00Z'));
    const s = scheduler();
    const twoThirty = await s.put({ org: 'org-1', cron: '30 2 * * *', timezone: 'Europe/Paris', job_kind: 'digest' });
    const hourly = await s.put({ org: 'org-1', cron: '0 * * * *', timezone: 'Europe/Paris', job_kind: 'digest' });
    await run(s, '2026-10-26T12:00:00Z', 300);
    expect(fired.filter((f) => f.id === twoThirty.id).map((f) => iso(f.slot))).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    // Sunday 25 October in Paris, 00:00 CEST to 00:00 CET the next day, lasts 25 hours
    const sunday = fired.filter((f) => f.id === hourly.id && f.slot >= at('2026-10-24T22:00:00Z') && f.slot < at('2026-10-25T23:00:00Z'));
    expect(sunday).toHaveLength(25);
    expect(new Set(sunday.map((f) => f.slot)).size).toBe(25);
  });

  it('after downtime fires only the latest missed slot if it is within the grace window, reporting the older ones missed', async () => {
    clock = new FixedClock(at('2026-05-04T08:30:00Z'));
    const s = scheduler();
    const sched = await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    clock.set(at('2026-05-04T13:04:00Z')); // down from 08:30 to 13:04
    const [report] = await s.tick();
    expect(report).toEqual({
      schedule_id: sched.id, org: 'org-1', fired: at('2026-05-04T13:00:00Z'),
      missed: ['09', '10', '11', '12'].map((h) => at(`2026-05-04T${h}:00:00Z`)), missed_count: 4,
    });
    expect(fired.map((f) => iso(f.slot))).toEqual(['2026-05-04T13:00:00.000Z']);
    expect((await store.get('org-1', sched.id))!.next_run_at).toBe(at('2026-05-04T14:00:00Z'));
  });

  it('after downtime fires nothing when even the latest slot is later than the grace window', async () => {
    clock = new FixedClock(at('2026-05-04T08:30:00Z'));
    const s = scheduler();
    await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    clock.set(at('2026-05-04T11:05:01Z'));
    const [report] = await s.tick();
    expect(report).toMatchObject({ fired: null, missed_count: 3, missed: ['09', '10', '11'].map((h) => at(`2026-05-04T${h}:00:00Z`)) });
    expect(fired).toEqual([]);
  });

  it("with the 'none' policy reports every slot of a downtime missed, yet fires slots that come on time", async () => {
    clock = new FixedClock(at('2026-05-04T08:30:00Z'));
    const s = scheduler('none');
    await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    clock.set(at('2026-05-04T10:01:00Z'));
    expect(await s.tick()).toMatchObject([{ fired: null, missed_count: 2 }]);
    clock.set(at('2026-05-04T11:00:30Z'));
    expect(await s.tick()).toMatchObject([{ fired: at('2026-05-04T11:00:00Z'), missed_count: 0 }]);
  });

  it('counts the missed slots of a very long downtime without walking every one', async () => {
    clock = new FixedClock(at('2026-01-01T00:00:30Z'));
    const s = scheduler();
    await s.put({ org: 'org-1', cron: '* * * * *', job_kind: 'digest' });
    clock.set(at('2026-03-01T00:00:30Z')); // two months of per-minute slots
    const [report] = await s.tick();
    expect(report!.fired).toBe(at('2026-03-01T00:00:00Z'));
    expect(report!.missed).toHaveLength(100);
    expect(report!.missed_count).toBeGreaterThanOrEqual(1000);
  });

  it('fires interval schedules on multiples of the interval', async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    const s = scheduler();
    await s.put({ org: 'org-1', interval_s: 1800, job_kind: 'sync' });
    await run(s, '2026-05-04T10:00:00Z');
    expect(fired.map((f) => iso(f.slot))).toEqual(['2026-05-04T08:30:00.000Z', '2026-05-04T09:00:00.000Z', '2026-05-04T09:30:00.000Z', '2026-05-04T10:00:00.000Z']);
  });

  it('does not fire a disabled schedule, and counts from now when it is enabled again', async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    const s = scheduler();
    const sched = await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    expect(await s.put({ id: sched.id, org: 'org-1', enabled: false, job_kind: 'digest' })).toMatchObject({ enabled: false, next_run_at: null });
    await run(s, '2026-05-04T12:30:00Z');
    expect(fired).toEqual([]);
    const again = await s.put({ id: sched.id, org: 'org-1', enabled: true, job_kind: 'digest' });
    expect(again).toMatchObject({ cron: '0 * * * *', next_run_at: at('2026-05-04T13:00:00Z'), created_at: at('2026-05-04T08:10:00Z') });
    await run(s, '2026-05-04T13:30:00Z');
    expect(fired.map((f) => iso(f.slot))).toEqual(['2026-05-04T13:00:00.000Z']);
  });

  it('recomputes the next run when the timing changes, and refuses a bad one with a 400 naming the field', async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    const s = scheduler();
    const sched = await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    expect((await s.put({ id: sched.id, org: 'org-1', cron: '0 9 * * *', timezone: 'America/New_York', job_kind: 'digest' })).next_run_at).toBe(at('2026-05-04T13:00:00Z'));
    await expect(s.put({ org: 'org-1', cron: '0 9 * * *', timezone: 'Nowhere/City', job_kind: 'digest' })).rejects.toMatchObject({ status: 400, code: 'invalid_field', context: { field: 'timezone' } });
    await expect(s.put({ id: 'nope', org: 'org-1', job_kind: 'digest' })).rejects.toMatchObject({ status: 404 });
    await expect(s.put({ id: sched.id, org: 'org-2', job_kind: 'digest' })).rejects.toMatchObject({ status: 404 });
  });

  it('reports a firer error and does not fire that slot again', async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    let calls = 0;
    const s = new Scheduler(store, clock, new ClockIds(clock), async () => {
      calls++;
      throw new Error('queue unavailable');
    });
    await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    clock.set(at('2026-05-04T09:00:10Z'));
    expect(await s.tick()).toMatchObject([{ fired: null, error: 'queue unavailable' }]);
    expect(await s.tick()).toEqual([]);
    expect(calls).toBe(1);
  });

  it("enqueues the schedule's job for each slot it fires", async () => {
    clock = new FixedClock(at('2026-05-04T08:10:00Z'));
    const queue = new SqliteJobQueue(path.join(dir, 'ops.db'), clock, new ClockIds(clock));
    try {
      const s = new Scheduler(store, clock, new ClockIds(clock), enqueueSlotJob(queue));
      const sched = await s.put({ org: 'org-1', cron: '0 * * * *', job_kind: 'digest', job_input: { topic: 'ai' } });
      await run(s, '2026-05-04T10:30:00Z');
      const jobs = await queue.list('org-1');
      expect(jobs.map((j) => [j.kind, j.dedupe_key, j.input])).toEqual([
        ['digest', `schedule:${sched.id}:${at('2026-05-04T09:00:00Z')}`, { schedule_id: sched.id, slot: at('2026-05-04T09:00:00Z'), input: { topic: 'ai' } }],
        ['digest', `schedule:${sched.id}:${at('2026-05-04T10:00:00Z')}`, { schedule_id: sched.id, slot: at('2026-05-04T10:00:00Z'), input: { topic: 'ai' } }],
      ]);
    } finally {
      await queue.close();
    }
  });

  it('tells the listener of its job kind the slots missed, before the latest fires, once; creates under an id of the caller’s with upsert', async () => {
    clock = new FixedClock(at('2026-05-04T08:30:00Z'));
    const s = scheduler();
    const told: string[] = [];
    s.onMissed('digest', async (sched, r) => void told.push(`${sched.id} ${r.missed.map((m) => iso(m).slice(11, 16)).join(',')} fired-so-far:${fired.length}`));
    expect(() => s.onMissed('digest', async () => undefined)).toThrow();
    const mine = await s.put({ id: 'my-id', upsert: true, org: 'org-1', cron: '0 * * * *', job_kind: 'digest' });
    expect(mine.id).toBe('my-id');
    await s.put({ org: 'org-1', cron: '30 * * * *', job_kind: 'other' });
    clock.set(at('2026-05-04T11:02:00Z'));
    await s.tick();
    expect(told).toEqual(['my-id 09:00,10:00 fired-so-far:0']);
    expect(fired.map((f) => `${f.id} ${iso(f.slot).slice(11, 16)}`)).toContain('my-id 11:00');
    // past the grace window the latest slot is missed too
    clock.set(at('2026-05-04T13:30:00Z'));
    await s.tick();
    expect(told[1]).toMatch(/^my-id 12:00,13:00 /);
    await s.tick();
    expect(told).toHaveLength(2);
  });
});
