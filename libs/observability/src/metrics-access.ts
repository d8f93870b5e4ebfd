import { timingSafeEqual } from 'node:crypto';

export type MetricsMode = 'off' | 'token' | 'public';

/**
 * Who may read /metrics, the same rule for the API and the worker: nobody when `off`, anyone
 * who reaches the port when `public`, and under `token` only `Authorization: Bearer <token>`,
 * compared in constant time.
 */
export function metricsReadAllowed(mode: MetricsMode, token: string | null, authorization: string | undefined): boolean {
  if (mode === 'off') return false;
  if (mode === 'public') return true;
  if (!token || !authorization) return false;
  const given = Buffer.from(authorization);
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const METRICS_UNAUTHORIZED = { error: 'GET /metrics needs Authorization: Bearer <STRATA_METRICS_TOKEN>', code: 'unauthorized' } as const;
