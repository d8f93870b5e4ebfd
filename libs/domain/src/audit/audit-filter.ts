import { RecordedEvent } from '../events';
import { parseIsoDateTime } from '../validation';
import { Errors } from '../errors';
import { streamCategory } from './audit-record';

/**
 * Which events of the log a caller asked for (an organization, a window of positions or times,
 * principals, agents, kinds): read by `strata audit replay` from its flags, and by any route that
 * serves the audit trail from its query.
 *
 * A bound of `--from`/`--to`: a log position, or a time (Unix seconds). A time bound is
 * inclusive, unless `before` is set: then it is the first instant past the window (a date-only
 * `--to` ends before the next day's midnight).
 */
export type Bound = { position: number } | { time: number; before?: boolean };

export interface AuditQuery {
  org?: string;
  /** inclusive */
  from?: Bound;
  /** inclusive */
  to?: Bound;
  /** `kind:id`, an id, or a principal kind, of the principal or the credential; any match keeps the event */
  principals?: string[];
  /** agent ids the events are attributed to (metadata `agent_id`); any match keeps the event */
  agents?: string[];
  /** event types or stream categories (case-insensitive); any match keeps the event */
  kinds?: string[];
}

/** Something shaped like a date (and maybe a time), so a refusal can say the date is the problem. */
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}(?:$|[T ])/i;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * `1200` is a log position; `2025-01-31` or `2025-01-31T12:00:00Z` a time (UTC when no zone is
 * given), read by the strict reader: an impossible date (`2026-02-30`) or time is refused, never
 * rolled over into the next month as Date.parse does.
 *
 * A date alone names the whole day (UTC): as `--from` it starts at its midnight, as `--to` it
 * takes every event of that day, up to (not including) the next midnight. A date with a clock
 * time is that instant, to the millisecond, inclusive either way.
 *
 * `flag` names the bound in the refusal (`--from` on the command line, `from` in a query);
 * a refusal is a 400 `invalid_field`.
 */
export function parseBound(raw: string, flag: '--from' | '--to' | 'from' | 'to'): Bound {
  const s = raw.trim();
  if (/^\d+$/.test(s)) {
    const position = Number(s);
    if (Number.isSafeInteger(position)) return { position };
  }
  const ms = parseIsoDateTime(s);
  if (ms !== null) return flag.endsWith('to') && DATE_ONLY.test(s) ? { time: (ms + DAY_MS) / 1000, before: true } : { time: ms / 1000 };
  const why = DATE_LIKE.test(s) ? ': there is no such date or time' : '';
  throw Errors.invalidField(flag, `${flag} must be a log position (e.g. 1200) or an ISO 8601 time (e.g. 2025-01-31T12:00:00Z), got '${raw}'${why}`);
}

/** Values of a repeatable, comma-separable option. */
export function listOption(values: string[] | string | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const out = (Array.isArray(values) ? values : [values])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  return out.length ? out : undefined;
}

/** The log position to read after: the replay starts at `--from` when it is a position. */
export function readAfter(q: AuditQuery): number {
  return q.from && 'position' in q.from ? Math.max(0, q.from.position - 1) : 0;
}

/** True once the log has passed a `--to` position: nothing later can match. */
export function pastEnd(e: Pick<RecordedEvent, 'position'>, q: AuditQuery): boolean {
  return !!q.to && 'position' in q.to && e.position > q.to.position;
}

/**
 * Whether the event was made by `wanted`: the acting principal (`kind:id`, its id or its kind)
 * or the credential used (`api_key:<id>` or the id). Never the `agent_id`: that is attribution,
 * which a request may state for itself (interface.md, Authentication), not an identity.
 */
function principalMatches(m: RecordedEvent['metadata'], wanted: string): boolean {
  const w = wanted.toLowerCase();
  const p = m.principal;
  if (p && (`${p.kind}:${p.id}`.toLowerCase() === w || p.id.toLowerCase() === w || p.kind === w)) return true;
  if (m.credential_id && (`api_key:${m.credential_id}`.toLowerCase() === w || m.credential_id.toLowerCase() === w)) return true;
  return false;
}

/** Whether the event is attributed to the agent `wanted` (`agent:<id>` or the id). */
function agentMatches(m: RecordedEvent['metadata'], wanted: string): boolean {
  if (!m.agent_id) return false;
  const w = wanted.toLowerCase();
  const a = m.agent_id.toLowerCase();
  return a === w || `agent:${a}` === w;
}

/** Whether an event belongs in the replay (the org, the time/position window, principal and kind). */
export function auditMatches(e: RecordedEvent, q: AuditQuery): boolean {
  const m = e.metadata;
  if (!m) return false;
  if (q.org !== undefined && m.org_id !== q.org) return false;
  if (q.from) {
    if ('position' in q.from ? e.position < q.from.position : m.occurred_at < q.from.time) return false;
  }
  if (q.to) {
    if ('position' in q.to ? e.position > q.to.position : q.to.before ? m.occurred_at >= q.to.time : m.occurred_at > q.to.time) return false;
  }
  if (q.principals && !q.principals.some((w) => principalMatches(m, w))) return false;
  if (q.agents && !q.agents.some((w) => agentMatches(m, w))) return false;
  if (q.kinds) {
    const type = e.type.toLowerCase();
    const category = streamCategory(e.stream).toLowerCase();
    if (!q.kinds.some((k) => k.toLowerCase() === type || k.toLowerCase() === category)) return false;
  }
  return true;
}
