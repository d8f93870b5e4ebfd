import type Database from 'better-sqlite3';
import { openOperationalDb } from '@strata/event-store/sqlite/operational-db';
import { ACTIVITY_LIMIT, ActivityBatch, ActivityStore, KeyRequest } from './activity-store.port';

/**
 * Embedded default: request activity in a small SQLite file beside the data (`ops.db`), one
 * transaction per write, keeping only the newest ACTIVITY_LIMIT requests per key.
 */
export class SqliteActivityStore implements ActivityStore {
  private readonly db: Database.Database;
  private readonly insertReq: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly bumpCount: Database.Statement;
  private readonly setLastUsed: Database.Statement;

  /** `file`: a path, or ':memory:' */
  constructor(file: string) {
    this.db = openOperationalDb(file);
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
  }

  async write(batch: ActivityBatch): Promise<void> {
    this.db.transaction(() => {
      for (const c of batch.counts) this.bumpCount.run(c.org_id, c.period, c.n);
      for (const k of batch.keys) {
        for (const r of k.requests) this.insertReq.run(k.key_id, r.at, r.method, r.route, r.status);
        this.setLastUsed.run(k.key_id, k.last_used_at);
        this.prune.run(k.key_id, k.key_id);
      }
    })();
  }

  async recentRequests(keyId: string, limit: number): Promise<KeyRequest[]> {
    return this.db
      .prepare('SELECT at, method, route, status FROM acct_key_requests WHERE key_id = ? ORDER BY at DESC, rowid DESC LIMIT ?')
      .all(keyId, Math.min(limit, ACTIVITY_LIMIT)) as KeyRequest[];
  }

  async lastUsedAt(keyIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const stmt = this.db.prepare('SELECT at FROM acct_key_last_used WHERE key_id = ?');
    for (const id of keyIds) {
      const row = stmt.get(id) as { at: number } | undefined;
      if (row) out.set(id, row.at);
    }
    return out;
  }

  async requestsInPeriod(orgId: string, period: string): Promise<number> {
    const row = this.db.prepare('SELECT n FROM acct_request_counts WHERE org_id = ? AND period = ?').get(orgId, period) as { n: number } | undefined;
    return row?.n ?? 0;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
