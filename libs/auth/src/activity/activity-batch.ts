import { ACTIVITY_LIMIT, ActivityBatch, RequestRecord } from './activity-store.port';

/**
 * Folds buffered requests (in arrival order) into one write: a count per organization and
 * month, and per key only the newest ACTIVITY_LIMIT requests (older ones could never be shown,
 * so a busy key costs a bounded write per flush).
 */
export function summarizeActivity(records: readonly RequestRecord[], periodOf: (at: number) => string): ActivityBatch {
  const counts = new Map<string, { org_id: string; period: string; n: number }>();
  const byKey = new Map<string, { org_id: string; list: RequestRecord[] }>();
  for (const r of records) {
    const period = periodOf(r.at);
    const k = `${r.org_id}\n${period}`;
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { org_id: r.org_id, period, n: 1 });
    if (r.key_id) {
      const e = byKey.get(r.key_id);
      if (e) e.list.push(r);
      else byKey.set(r.key_id, { org_id: r.org_id, list: [r] });
    }
  }
  const keys: ActivityBatch['keys'] = [];
  for (const [key_id, { org_id, list }] of byKey) {
    const newest = [...list].sort((a, b) => a.at - b.at).slice(-ACTIVITY_LIMIT);
    keys.push({
      key_id,
      org_id,
      requests: newest.map((r) => ({ at: r.at, method: r.method, route: r.route, status: r.status })),
      last_used_at: newest[newest.length - 1].at,
    });
  }
  return { counts: [...counts.values()], keys };
}
