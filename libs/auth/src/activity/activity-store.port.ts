export const ACTIVITY_STORE = Symbol('ACTIVITY_STORE');

/** How many recent requests a key's activity keeps and shows. */
export const ACTIVITY_LIMIT = 50;

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

/** A request as a key's activity shows it. */
export type KeyRequest = Pick<RequestRecord, 'at' | 'method' | 'route' | 'status'>;

/** What one flush writes: counts per organization and month, and each key's newest requests. */
export interface ActivityBatch {
  counts: { org_id: string; period: string; n: number }[];
  /** `requests` oldest first, at most ACTIVITY_LIMIT; `last_used_at` the newest `at` */
  keys: { key_id: string; org_id: string; requests: KeyRequest[]; last_used_at: number }[];
}

/**
 * Where request activity is kept: operational data, not events (it is not part of the log and
 * is never replayed). Embedded: a SQLite file in the data dir. Servers: MongoDB, shared by
 * every API replica. Writes add to what is there: counts sum, a key keeps its newest
 * ACTIVITY_LIMIT requests, `last_used_at` only moves forward.
 */
export interface ActivityStore {
  write(batch: ActivityBatch): Promise<void>;
  /** newest first, at most `limit` */
  recentRequests(keyId: string, limit: number): Promise<KeyRequest[]>;
  /** last use of each key that has one */
  lastUsedAt(keyIds: string[]): Promise<Map<string, number>>;
  requestsInPeriod(orgId: string, period: string): Promise<number>;
  close(): Promise<void>;
}
