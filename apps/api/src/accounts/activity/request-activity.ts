import { Logger } from '@nestjs/common';
import { ACTIVITY_LIMIT, ActivityStore, KeyRequest, RequestRecord } from '@strata/auth/activity/activity-store.port';
import { summarizeActivity } from '@strata/auth/activity/activity-batch';
import { monthPeriod } from '@strata/auth/plans/plan-limits';

export { ACTIVITY_LIMIT, RequestRecord };

const FLUSH_MS = 1000;
const FLUSH_AT = 2000;
const MAX_PENDING = 50_000;

/**
 * Request activity of API keys and request counts per organization: operational data, not
 * events. Recording is an array push on the response path; a timer writes the buffer once a
 * second to the ActivityStore (embedded: `ops.db` in the data dir; servers: MongoDB, shared
 * by the replicas). Reads add what is buffered or being written, so a request shows at once.
 * The buffer is bounded (oldest dropped if writes keep failing).
 */
export class RequestActivity {
  private readonly log = new Logger('RequestActivity');
  private pending: RequestRecord[] = [];
  /** the batch being written (still shown by reads until the store has it) */
  private writing: RequestRecord[] = [];
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private flushScheduled = false;
  private closed = false;

  constructor(private readonly store: ActivityStore) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** O(1); never throws, never waits. */
  record(r: RequestRecord): void {
    if (this.closed) return;
    this.pending.push(r);
    // amortised O(1): trim only once the buffer is 10% over its bound
    if (this.pending.length > MAX_PENDING * 1.1) this.pending.splice(0, this.pending.length - MAX_PENDING);
    if (this.pending.length >= FLUSH_AT && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Writes the buffer; one write at a time (a call during a write waits for it). */
  flush(): Promise<void> {
    this.flushScheduled = false;
    if (this.flushing) return this.flushing;
    if (!this.pending.length) return Promise.resolve();
    this.writing = this.pending;
    this.pending = [];
    this.flushing = this.store
      .write(summarizeActivity(this.writing, (at) => this.period(at)))
      .catch((err) => {
        this.log.warn(`could not write request activity (${this.writing.length} records kept for the next try): ${(err as Error).message}`);
        this.pending = this.writing.concat(this.pending).slice(-MAX_PENDING);
      })
      .finally(() => {
        this.writing = [];
        this.flushing = null;
      });
    return this.flushing;
  }

  private periodStart = 0;
  private periodEnd = 0;
  private periodName = '';
  /** calendar month of a time, without formatting a date per record */
  private period(at: number): string {
    if (at < this.periodStart || at >= this.periodEnd) {
      const d = new Date(at * 1000);
      this.periodStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
      this.periodEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
      this.periodName = monthPeriod(at);
    }
    return this.periodName;
  }

  /** not yet in the store */
  private unwritten(): RequestRecord[] {
    return this.writing.length ? this.writing.concat(this.pending) : this.pending;
  }

  /**
   * Newest first, at most ACTIVITY_LIMIT: stored requests plus those not written yet (read
   * after the store answers, so a write that finished meanwhile is not counted twice).
   */
  async recentRequests(keyId: string): Promise<KeyRequest[]> {
    const stored = await this.store.recentRequests(keyId, ACTIVITY_LIMIT);
    // only the batch being written may already be partly stored (MongoDB): each stored request
    // hides one identical request of that batch, so two identical requests still count twice
    const inStore = new Map<string, number>();
    for (const r of stored) inStore.set(signature(r), (inStore.get(signature(r)) ?? 0) + 1);
    const alreadyStored = (r: KeyRequest) => {
      const n = inStore.get(signature(r)) ?? 0;
      if (n > 0) inStore.set(signature(r), n - 1);
      return n > 0;
    };
    const writing = this.writing.filter((r) => r.key_id === keyId && !alreadyStored(r));
    const buffered = writing.concat(this.pending.filter((r) => r.key_id === keyId));
    return [...buffered.reverse().map(shown), ...stored].sort((a, b) => b.at - a.at).slice(0, ACTIVITY_LIMIT);
  }

  /** last use of each key that has one */
  async lastUsedAt(keyIds: string[]): Promise<Map<string, number>> {
    const out = await this.store.lastUsedAt(keyIds);
    const wanted = new Set(keyIds);
    for (const r of this.unwritten()) if (r.key_id && wanted.has(r.key_id) && r.at > (out.get(r.key_id) ?? -Infinity)) out.set(r.key_id, r.at);
    return out;
  }

  async requestsInPeriod(orgId: string, period: string): Promise<number> {
    let n = await this.store.requestsInPeriod(orgId, period);
    for (const r of this.unwritten()) if (r.org_id === orgId && this.period(r.at) === period) n++;
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
    await this.flush(); // what arrived during a write already in flight
    await this.store.close();
  }
}

function shown(r: RequestRecord): KeyRequest {
  return { at: r.at, method: r.method, route: r.route, status: r.status };
}

function signature(r: KeyRequest): string {
  return `${r.at}\n${r.method}\n${r.route}\n${r.status}`;
}
