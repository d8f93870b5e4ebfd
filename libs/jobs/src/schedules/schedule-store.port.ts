import { Schedule } from './schedule';

/** The slot a scheduler saw, and what it moves the schedule to if no one dealt with it first. */
export interface SlotAdvance {
  expected: { last_slot: number | null; next_run_at: number | null };
  next: { last_slot: number; next_run_at: number | null };
}

/**
 * Where schedules are kept. Embedded: `ops.db`; servers: MongoDB, shared by every replica.
 * Every replica's scheduler reads the due schedules; `advance` is the compare-and-set that
 * lets exactly one of them deal with a slot.
 */
export interface ScheduleStore {
  /** inserts or replaces */
  save(schedule: Schedule): Promise<void>;
  get(org: string, id: string): Promise<Schedule | null>;
  /** the organization's schedules, oldest first */
  list(org: string): Promise<Schedule[]>;
  /** false when there was no such schedule */
  remove(org: string, id: string): Promise<boolean>;
  /** enabled schedules whose next_run_at is at or before `now`, soonest first */
  due(now: number, limit: number): Promise<Schedule[]>;
  /**
   * Atomically moves the schedule to `next` if it is enabled and still at `expected`; true for
   * the one caller that did, false for every other (the slot was taken, or the schedule changed).
   */
  advance(id: string, change: SlotAdvance, now: number): Promise<boolean>;
  close(): Promise<void>;
}

export const SCHEDULE_STORE = Symbol('SCHEDULE_STORE');
