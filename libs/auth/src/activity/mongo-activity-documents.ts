import { ACTIVITY_LIMIT, ActivityBatch, KeyRequest } from './activity-store.port';

export const KEY_ACTIVITY_COLLECTION = 'acct_key_activity';
export const REQUEST_COUNTS_COLLECTION = 'acct_request_counts';

/** One document per key: its newest requests (bounded by `$slice`) and its last use. */
export interface KeyActivityDocument {
  _id: string;
  org_id: string;
  last_used_at: number;
  requests: KeyRequest[];
}

/** One document per organization and month. */
export interface RequestCountDocument {
  _id: string;
  org_id: string;
  period: string;
  n: number;
}

export function requestCountId(orgId: string, period: string): string {
  return `${orgId}|${period}`;
}

/**
 * The bulk writes of one flush. Every update is atomic on its own document and commutes with
 * the other replicas' (`$inc`, `$max`, `$push` kept sorted by time and cut to the newest
 * ACTIVITY_LIMIT), so replicas flush independently and nothing is counted twice or lost.
 */
export function activityWrites(batch: ActivityBatch): {
  counts: { updateOne: { filter: { _id: string }; update: object; upsert: true } }[];
  keys: { updateOne: { filter: { _id: string }; update: object; upsert: true } }[];
} {
  return {
    counts: batch.counts.map((c) => ({
      updateOne: {
        filter: { _id: requestCountId(c.org_id, c.period) },
        update: { $setOnInsert: { org_id: c.org_id, period: c.period }, $inc: { n: c.n } },
        upsert: true,
      },
    })),
    keys: batch.keys.map((k) => ({
      updateOne: {
        filter: { _id: k.key_id },
        update: {
          $setOnInsert: { org_id: k.org_id },
          $max: { last_used_at: k.last_used_at },
          $push: { requests: { $each: k.requests.map(keyRequest), $sort: { at: 1 }, $slice: -ACTIVITY_LIMIT } },
        },
        upsert: true,
      },
    })),
  };
}

/** only the shown fields, in a fixed order */
function keyRequest(r: KeyRequest): KeyRequest {
  return { at: r.at, method: r.method, route: r.route, status: r.status };
}

/** A key document's requests, newest first (stored oldest first), at most `limit`. */
export function newestFirst(doc: Pick<KeyActivityDocument, 'requests'> | null, limit: number): KeyRequest[] {
  if (!doc) return [];
  return doc.requests
    .map(keyRequest)
    .reverse()
    .slice(0, Math.min(limit, ACTIVITY_LIMIT));
}
