import { randomUUID } from 'node:crypto';
import { TimeOrderedUuids } from './time-ordered-uuid';

export const CLOCK = Symbol('CLOCK');
export const ID_GENERATOR = Symbol('ID_GENERATOR');

/** Injected so tests can fix time (DESIGN rule 8). Unix seconds, fractional. */
export interface Clock {
  now(): number;
}
export interface IdGenerator {
  uuid(): string;
  /** uids of new nodes and edges (and other graph objects); uuid() when absent */
  graphUid?(): string;
}

export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** Random UUIDv4 ids; graph uids time-ordered on the given clock (see time-ordered-uuid.ts). */
export class ClockIds implements IdGenerator {
  private readonly ordered: TimeOrderedUuids;
  constructor(clock: Clock) {
    this.ordered = new TimeOrderedUuids(clock);
  }
  uuid(): string {
    return randomUUID();
  }
  graphUid(): string {
    return this.ordered.next();
  }
}

/** Ids for code that runs on the system clock and has no injected generator. */
export const randomIds: IdGenerator = new ClockIds(systemClock);

/** A clock that only moves when told to; for tests. */
export class FixedClock implements Clock {
  constructor(private t = 1_700_000_000) {}
  now(): number {
    return this.t;
  }
  advance(secs: number): void {
    this.t += secs;
  }
  set(secs: number): void {
    this.t = secs;
  }
}
