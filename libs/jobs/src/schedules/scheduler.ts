import { Logger } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { Clock, IdGenerator } from '@strata/domain/time';
import { JobQueue } from '../queue/job-queue.port';
import { Schedule } from './schedule';
import { assertValidTiming, nextSlot } from './schedule-slots';
import { ScheduleStore } from './schedule-store.port';
import { PollingLoop } from '../polling-loop';

/**
 * What happens to slots that passed while no scheduler ran (downtime): `latest` fires the
 * latest one if it is at most `graceSeconds` late and reports the others missed (REFERENCE
 * §16.11); `none` reports all of them missed (only a slot no older than the grace window
 * with nothing missed before it fires).
 */
export type MissedSlotPolicy = 'latest' | 'none';

export interface SchedulerOptions {
  /** how late a slot may be and still fire (default 300) */
  graceSeconds?: number;
  missed?: MissedSlotPolicy;
  /** due schedules dealt with per tick (default 100) */
  batch?: number;
}

/** Fires one slot of a schedule: enqueue a job, or anything else. */
export type SlotFirer = (schedule: Schedule, slot: number) => Promise<void>;

/**
 * Told of the slots of a schedule that passed unfired (downtime), after the slot compare-and-set
 * and before the latest slot fires, so the report is never given twice.
 */
export type MissedListener = (schedule: Schedule, report: SlotReport) => Promise<void>;

/** A firer that enqueues the schedule's job, once per slot (the dedupe key names the slot). */
export function enqueueSlotJob(queue: JobQueue): SlotFirer {
  return async (s, slot) => {
    await queue.enqueue({ kind: s.job_kind, org: s.org, input: { schedule_id: s.id, slot, input: s.job_input }, dedupeKey: `schedule:${s.id}:${slot}` });
  };
}

/** What a tick did with one due schedule. */
export interface SlotReport {
  schedule_id: string;
  org: string;
  /** the slot fired, if any */
  fired: number | null;
  /** slots reported missed (the first MISSED_LISTED of them) */
  missed: number[];
  /** how many slots were missed (a lower bound after very long downtime) */
  missed_count: number;
  /** the firer's error: the slot counts as dealt with and is not fired again */
  error?: string;
}

export interface ScheduleInput {
  /** absent: a new schedule */
  id?: string;
  /** with `id`: create the schedule under that id when there is none (an area keeps its own ids) */
  upsert?: boolean;
  org: string;
  cron?: string | null;
  interval_s?: number | null;
  timezone?: string;
  enabled?: boolean;
  job_kind: string;
  job_input?: unknown;
}

const MISSED_LISTED = 100;
/** slots walked one by one after downtime before skipping ahead (croner takes a fraction of a millisecond per slot) */
const ENUMERATED = 1000;

/**
 * Fires schedules' slots. Every replica runs one on the same store; for each due schedule
 * it works out the slot to fire, then moves the schedule past it with a compare-and-set:
 * only the replica whose set succeeded fires, so a slot fires at most once however many
 * replicas tick (a firer that fails loses that slot rather than risking it twice).
 */
export class Scheduler {
  private readonly log = new Logger('Scheduler');
  private readonly graceSeconds: number;
  private readonly missed: MissedSlotPolicy;
  private readonly batch: number;
  private readonly loop = new PollingLoop(
    async () => (await this.tick()).forEach((r) => this.logReport(r)),
    (err) => this.log.error(`scheduler round failed: ${err.message}`),
  );
  private readonly missedListeners = new Map<string, MissedListener>();

  constructor(
    private readonly store: ScheduleStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly fire: SlotFirer,
    opts: SchedulerOptions = {},
  ) {
    this.graceSeconds = opts.graceSeconds ?? 300;
    this.missed = opts.missed ?? 'latest';
    this.batch = opts.batch ?? 100;
  }

  /**
   * Creates or updates a schedule (400 `invalid_field` on a bad timing). `next_run_at` is
   * recomputed from now when the timing or `enabled` changes, and is null while disabled.
   */
  async put(input: ScheduleInput): Promise<Schedule> {
    const now = this.clock.now();
    const existing = input.id ? await this.store.get(input.org, input.id) : null;
    if (input.id && !existing && !input.upsert) throw Errors.notFound(`schedule ${input.id} not found`, { id: input.id });
    const timing = {
      cron: input.cron !== undefined || input.interval_s !== undefined ? (input.cron ?? null) : (existing?.cron ?? null),
      interval_s: input.cron !== undefined || input.interval_s !== undefined ? (input.interval_s ?? null) : (existing?.interval_s ?? null),
      timezone: input.timezone ?? existing?.timezone ?? 'UTC',
    };
    assertValidTiming(timing);
    const enabled = input.enabled ?? existing?.enabled ?? true;
    const retimed = !existing || existing.cron !== timing.cron || existing.interval_s !== timing.interval_s || existing.timezone !== timing.timezone || existing.enabled !== enabled;
    const schedule: Schedule = {
      id: existing?.id ?? input.id ?? this.ids.uuid(),
      org: input.org,
      ...timing,
      enabled,
      next_run_at: !enabled ? null : retimed ? nextSlot(timing, now) : existing!.next_run_at,
      last_slot: existing?.last_slot ?? null,
      job_kind: input.job_kind,
      job_input: input.job_input !== undefined ? input.job_input : (existing?.job_input ?? null),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.store.save(schedule);
    return schedule;
  }

  async get(org: string, id: string): Promise<Schedule | null> {
    return this.store.get(org, id);
  }

  /** false when there was no such schedule */
  async remove(org: string, id: string): Promise<boolean> {
    return this.store.remove(org, id);
  }

  /** the listener told of the missed slots of schedules whose job is of this kind */
  onMissed(jobKind: string, listener: MissedListener): void {
    if (this.missedListeners.has(jobKind)) throw new Error(`a missed-slot listener for ${jobKind} is already registered`);
    this.missedListeners.set(jobKind, listener);
  }

  /** One round: deals with every due schedule's slots. */
  async tick(): Promise<SlotReport[]> {
    const now = this.clock.now();
    const reports: SlotReport[] = [];
    for (const s of await this.store.due(now, this.batch)) {
      const report = await this.dealWith(s, now);
      if (report) reports.push(report);
    }
    return reports;
  }

  /** Ticks every `pollSeconds` on a timer that does not keep the process alive. */
  start(pollSeconds = 5): void {
    this.loop.start(pollSeconds);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async dealWith(s: Schedule, now: number): Promise<SlotReport | null> {
    const passed = this.slotsUpTo(s, now);
    if (passed.count === 0) return null;
    const latest = passed.latest;
    const onTime = now - latest <= this.graceSeconds && (this.missed === 'latest' || passed.count === 1);
    const won = await this.store.advance(
      s.id,
      { expected: { last_slot: s.last_slot, next_run_at: s.next_run_at }, next: { last_slot: latest, next_run_at: nextSlot(s, now) } },
      now,
    );
    if (!won) return null; // another replica dealt with this slot, or the schedule changed meanwhile
    const missedCount = onTime ? passed.count - 1 : passed.count;
    const report: SlotReport = { schedule_id: s.id, org: s.org, fired: null, missed: passed.listed.slice(0, Math.min(missedCount, MISSED_LISTED)), missed_count: missedCount };
    const listener = missedCount > 0 ? this.missedListeners.get(s.job_kind) : undefined;
    if (listener) {
      // the slots passed over are the older ones: the latest is the last one listed unless it fires
      const missed = onTime ? passed.listed.filter((x) => x !== latest).slice(0, MISSED_LISTED) : passed.listed.slice(0, MISSED_LISTED);
      if (!onTime && !missed.includes(latest)) missed.push(latest);
      await listener(s, { ...report, missed }).catch((err: Error) => (report.error = `missed-slot listener: ${err.message}`));
    }
    if (!onTime) return report;
    try {
      await this.fire(s, latest);
      report.fired = latest;
    } catch (err) {
      report.error = (err as Error).message;
    }
    return report;
  }

  /** the slots from next_run_at up to now: how many, the first few, and the latest */
  private slotsUpTo(s: Schedule, now: number): { count: number; listed: number[]; latest: number } {
    const listed: number[] = [];
    let count = 0;
    let latest = NaN;
    let slot: number | null = s.next_run_at;
    while (slot !== null && slot <= now) {
      count++;
      latest = slot;
      if (listed.length < MISSED_LISTED) listed.push(slot);
      // after a long downtime, skip to the last hour rather than walk every slot
      slot = count === ENUMERATED && now - slot > 3600 ? nextSlot(s, now - 3600) : nextSlot(s, slot);
    }
    return { count, listed, latest };
  }

  private logReport(r: SlotReport): void {
    if (r.error) this.log.error(`schedule ${r.schedule_id}: firing failed: ${r.error}`);
    if (r.missed_count > 0) this.log.warn(`schedule ${r.schedule_id}: ${r.missed_count} slot(s) missed`);
  }
}
