import { Errors } from '../errors';
import { readUid } from '../validation/fields';
import { EXCEPTION_KINDS, EXCEPTION_STATUSES, ExceptionKind, ExceptionStatus, SEVERITIES, Severity } from './exception-kinds';

type Query = Record<string, unknown>;

const text = (q: Query, f: string): string | undefined => {
  const v = q[f];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw Errors.invalidField(f, `${f} must be a string`);
  return v;
};

function intIn(q: Query, f: string, min: number, max: number, dflt: number, clamp: boolean): number {
  const raw = text(q, f);
  if (raw === undefined) return dflt;
  if (!/^-?\d+$/.test(raw.trim())) throw Errors.invalidField(f, `${f} must be an integer from ${min} to ${max}`);
  const n = Number(raw.trim());
  if (n < min || (!clamp && n > max)) throw Errors.invalidField(f, `${f} must be an integer from ${min} to ${max}`);
  return Math.min(n, max);
}

/** `days` of `GET /v1/knowledge-health/summary` (REFERENCE §14.1): 1–365, default 30. */
export function readSummaryDays(q: Query): number {
  return intIn(q, 'days', 1, 365, 30, false);
}

function list<T extends string>(q: Query, f: string, allowed: readonly T[], dflt: readonly T[]): T[] {
  const raw = text(q, f);
  if (raw === undefined) return [...dflt];
  const out: T[] = [];
  for (const v of raw.split(',').map((s) => s.trim())) {
    if (!(allowed as readonly string[]).includes(v)) throw Errors.invalidField(f, `unknown ${f} '${v}'; allowed: ${allowed.join(', ')}`, { allowed: [...allowed] });
    if (!out.includes(v as T)) out.push(v as T);
  }
  return out;
}

export interface ExceptionQuery {
  status: ExceptionStatus[];
  kind: ExceptionKind[];
  severity: Severity[];
  project?: string;
  space?: string;
  limit: number;
  cursor?: string;
}

/**
 * The filters of `GET /v1/knowledge-health/exceptions` (REFERENCE §14.3), in a canonical form
 * (the cursor is bound to it). Unknown list values → 400 invalid_field; `limit` clamps at 500.
 */
export function readExceptionQuery(q: Query): ExceptionQuery {
  const out: ExceptionQuery = {
    status: list(q, 'status', EXCEPTION_STATUSES, ['open', 'acknowledged']),
    kind: list(q, 'kind', EXCEPTION_KINDS, EXCEPTION_KINDS),
    severity: list(q, 'severity', SEVERITIES, SEVERITIES),
    limit: intIn(q, 'limit', 1, 500, 50, true),
  };
  for (const l of [out.status, out.kind, out.severity]) l.sort();
  const project = readUid(q, 'project');
  const space = readUid(q, 'space');
  if (project !== undefined) out.project = project;
  if (space !== undefined) out.space = space;
  const cursor = text(q, 'cursor');
  if (cursor !== undefined) out.cursor = cursor;
  return out;
}
