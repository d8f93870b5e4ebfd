/**
 * Unix seconds of an ISO 8601 instant: how tests name the moments they set a `FixedClock`
 * to, or compare its readings with. A written instant, never the wall clock.
 */
export function at(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not an ISO 8601 instant: ${iso}`);
  return ms / 1000;
}
