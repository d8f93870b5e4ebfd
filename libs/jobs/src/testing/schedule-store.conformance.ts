/// <reference types="jest" />
import { ClockIds, FixedClock } from '@strata/domain/time';
import { Schedule } from '../schedules/schedule';
import { ScheduleStore } from '../schedules/schedule-store.port';
import { Scheduler } from '../schedules/scheduler';

export function scheduleRecord(id: string, over: Partial<Schedule> = {}): Schedule {
  return {
    id, org: 'org-1', cron: '0 * * * *', interval_s: null, timezone: 'UTC', enabled: true, next_run_at: 3600, last_slot: null,
    job_kind: 'digest', job_input: { topic: 'x' }, created_at: 100, updated_at: 100, ...over,
  };
}

export interface OpenedScheduleStore {
  /** two handles on the same storage (two replicas) */
  store: ScheduleStore;
  other: ScheduleStore;
  cleanup: () => Promise<void>;
}

/** Makes both replicas read the due schedules before either deals with them: the race, every time. */
function bothReadFirst(a: ScheduleStore, b: ScheduleStore): [ScheduleStore, ScheduleStore] {
  let waiting: (() => void) | null = null;
  const wrap = (s: ScheduleStore): ScheduleStore =>
    Object.assign(Object.create(s) as ScheduleStore, {
      due: async (now: number, limit: number) => {
        const found = await s.due(now, limit);
        if (waiting) {
          waiting();
          waiting = null;
        } else {
          await new Promise<void>((r) => (waiting = r));
        }
        return found;
      },
    });
  return [wrap(a), wrap(b)];
}

/** One conformance suite for every ScheduleStore adapter (SQLite in ops.db, MongoDB). */
export function describeScheduleStoreConformance(name: string, open: () => Promise<OpenedScheduleStore>): void {
  describe(`${name} (ScheduleStore conformance)`, () => {
    let store: ScheduleStore;
    let other: ScheduleStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, other, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await other.close();
      await cleanup();
    });

    it('saves a schedule and gives it back whole, per organization', async () => {
      const s = scheduleRecord('s1', { job_input: { nested: [1, 'a', null] } });
      await store.save(s);
      await store.save(scheduleRecord('s2', { org: 'org-2', created_at: 50 }));
      expect(await other.get('org-1', 's1')).toEqual(s);
      expect(await store.get('org-2', 's1')).toBeNull();
      const changed = { ...s, enabled: false, next_run_at: null, interval_s: 60, cron: null };
      await store.save(changed);
      expect(await store.list('org-1')).toEqual([changed]);
      expect(await store.remove('org-1', 's1')).toBe(true);
      expect(await store.remove('org-1', 's1')).toBe(false);
      expect(await store.list('org-1')).toEqual([]);
    });

    it('lists the enabled schedules due by a time, soonest first', async () => {
      await store.save(scheduleRecord('late', { next_run_at: 300 }));
      await store.save(scheduleRecord('soon', { next_run_at: 100 }));
      await store.save(scheduleRecord('future', { next_run_at: 900 }));
      await store.save(scheduleRecord('off', { enabled: false, next_run_at: 50 }));
      await store.save(scheduleRecord('never', { next_run_at: null }));
      expect((await store.due(300, 10)).map((s) => s.id)).toEqual(['soon', 'late']);
      expect((await store.due(300, 1)).map((s) => s.id)).toEqual(['soon']);
    });

    it('advances a slot for exactly one of two replicas that saw it', async () => {
      await store.save(scheduleRecord('s1', { next_run_at: 3600, last_slot: null }));
      const change = { expected: { last_slot: null, next_run_at: 3600 }, next: { last_slot: 3600, next_run_at: 7200 } };
      const results = await Promise.all([store.advance('s1', change, 3601), other.advance('s1', change, 3601)]);
      expect(results.sort()).toEqual([false, true]);
      expect(await store.get('org-1', 's1')).toMatchObject({ last_slot: 3600, next_run_at: 7200, updated_at: 3601 });
      const again = { expected: { last_slot: 3600, next_run_at: 7200 }, next: { last_slot: 7200, next_run_at: 10800 } };
      expect(await other.advance('s1', again, 7201)).toBe(true);
      expect(await store.advance('s1', again, 7201)).toBe(false);
    });

    it('advances no disabled schedule', async () => {
      await store.save(scheduleRecord('s1', { enabled: false }));
      expect(await store.advance('s1', { expected: { last_slot: null, next_run_at: 3600 }, next: { last_slot: 3600, next_run_at: 7200 } }, 3601)).toBe(false);
    });

    it('fires each slot once when two schedulers on this store race for it', async () => {
      const clock = new FixedClock(Date.parse('2026-03-01T00:00:00Z') / 1000);
      const fired: string[] = [];
      const [a, b] = bothReadFirst(store, other);
      const replica = (s: ScheduleStore, name: string) =>
        new Scheduler(s, clock, new ClockIds(clock), async (sched, slot) => void fired.push(`${sched.id}@${slot}:${name}`));
      const first = replica(a, 'a');
      const second = replica(b, 'b');
      const s = await new Scheduler(store, clock, new ClockIds(clock), async () => undefined).put({ org: 'org-1', cron: '*/15 * * * *', job_kind: 'digest' });
      for (let i = 1; i <= 8; i++) {
        clock.advance(15 * 60);
        await Promise.all([first.tick(), second.tick()]);
      }
      const slots = fired.map((f) => f.split(':')[0]);
      expect(slots).toEqual(Array.from({ length: 8 }, (_, i) => `${s.id}@${clock.now() - (7 - i) * 900}`));
    });
  });
}
