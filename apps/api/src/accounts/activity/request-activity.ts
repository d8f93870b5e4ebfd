import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Logger } from '@nestjs/common';
import { monthPeriod } from '@strata/auth/plans/plan-limits';

/** One authenticated request, as recorded for key activity and usage. */
export interface RequestRecord {
  org_id: string;
  key_id: string | null;
  method: string;
  route: string;
  status: number;
  /** Unix seconds */
  at: number;
}

export const OPS_FILE = 'ops.db';
const FLUSH_MS = 1000;
const FLUSH_AT = 2000;
const MAX_PENDING = 50_000;
export const ACTIVITY_LIMIT = 50;

/**
 * Request activity of API keys and request counts per organization: operational data, not
 * events. Recording is an array push on the response path; a timer writes the buffer in one
 * transaction per second into a small SQLite file beside the data (`ops.db`), keeping only
 * the 50 newest requests per key. The buffer is bounded (oldest dropped if writes fail).
 */
export class RequestActivity {
  private readonly log = new Logger('RequestActivity');
  private readonly db: Database.Database;
  private pending: RequestRecord[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushScheduled = false;
  private closed = false;
  private readonly insertReq: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly bumpCount: Database.Statement;
  private readonly setLastUsed: Database.Statement;

  constructor(dataDir: string) {
    this.db = new Database(path.join(dataDir, OPS_FILE));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 2000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS acct_key_requests (key_id TEXT NOT NULL, at REAL NOT NULL, method TEXT NOT NULL, route TEXT NOT NULL, status INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS acct_key_requests_key ON acct_key_requests(key_id, at);
      CREATE TABLE IF NOT EXISTS acct_key_last_used (key_id TEXT PRIMARY KEY, at REAL NOT NULL);
      CREATE TABLE IF NOT EXISTS acct_request_counts (org_id TEXT NOT NULL, period TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (org_id, period));
    `);
    this.insertReq = this.db.prepare('INSERT INTO acct_key_requests(key_id, at, method, route, status) VALUES (?,?,?,?,?)');
    this.prune = this.db.prepare(
      `DELETE FROM acct_key_requests WHERE key_id = ? AND rowid NOT IN
         (SELECT rowid FROM acct_key_requests WHERE key_id = ? ORDER BY at DESC, rowid DESC LIMIT ${ACTIVITY_LIMIT})`,
    );
    this.bumpCount = this.db.prepare(
      'INSERT INTO acct_request_counts(org_id, period, n) VALUES (?,?,?) ON CONFLICT(org_id, period) DO UPDATE SET n = n + excluded.n',
    );
    this.setLastUsed = this.db.prepare(
      'INSERT INTO acct_key_last_used(key_id, at) VALUES (?,?) ON CONFLICT(key_id) DO UPDATE SET at = max(at, excluded.at)',
    );
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
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
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.flushScheduled = false;
    if (!this.pending.length || !this.db.open) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.db.transaction(() => {
        const counts = new Map<string, { org: string; period: string; n: number }>();
        const byKey = new Map<string, RequestRecord[]>();
        for (const r of batch) {
          const period = this.period(r.at);
          const k = `${r.org_id}\n${period}`;
          const c = counts.get(k);
          if (c) c.n++;
          else counts.set(k, { org: r.org_id, period, n: 1 });
          if (r.key_id) {
            const list = byKey.get(r.key_id);
            if (list) list.push(r);
            else byKey.set(r.key_id, [r]);
          }
        }
        for (const c of counts.values()) this.bumpCount.run(c.org, c.period, c.n);
        for (const [key, list] of byKey) {
          // only the newest 50 of a key can ever be shown: a busy key costs 50 inserts per flush at most
          for (const r of list.slice(-ACTIVITY_LIMIT)) this.insertReq.run(key, r.at, r.method, r.route, r.status);
          this.setLastUsed.run(key, list[list.length - 1].at);
          this.prune.run(key, key);
        }
      })();
    } catch (err) {
      this.log.warn(`could not write request activity (${batch.length} records kept for the next try): ${(err as Error).message}`);
      this.pending = batch.concat(this.pending).slice(-MAX_PENDING);
    }
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

  /** newest first, at most 50: written rows plus the not yet written buffer */
  recentRequests(keyId: string): RequestRecord[] {
    const stored = this.db
      .prepare(`SELECT key_id, at, method, route, status FROM acct_key_requests WHERE key_id = ? ORDER BY at DESC, rowid DESC LIMIT ${ACTIVITY_LIMIT}`)
      .all(keyId) as Omit<RequestRecord, 'org_id'>[];
    const buffered = this.pending.filter((r) => r.key_id === keyId);
    return [...buffered.reverse(), ...stored.map((r) => ({ ...r, org_id: '' }))].sort((a, b) => b.at - a.at).slice(0, ACTIVITY_LIMIT);
  }

  lastUsedAt(keyId: string): number | null {
    let at: number | null = null;
    for (const r of this.pending) if (r.key_id === keyId && (at === null || r.at > at)) at = r.at;
    const row = this.db.prepare('SELECT at FROM acct_key_last_used WHERE key_id = ?').get(keyId) as { at: number } | undefined;
    if (row && (at === null || row.at > at)) at = row.at;
    return at;
  }

  requestsInPeriod(orgId: string, period: string): number {
    const row = this.db.prepare('SELECT n FROM acct_request_counts WHERE org_id = ? AND period = ?').get(orgId, period) as { n: number } | undefined;
    let n = row?.n ?? 0;
    for (const r of this.pending) if (r.org_id === orgId && this.period(r.at) === period) n++;
    return n;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.flush();
    this.db.close();
  }
}
