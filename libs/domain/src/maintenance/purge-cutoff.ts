import { Errors } from '../errors';
import { Body, present, readNumber } from '../validation';

/**
 * The cut-off of `POST /purge` (REFERENCE §7.3): `before` (alias `older_than`, absolute Unix
 * seconds) or `older_than_secs` (relative to now), at most one. null = no cut-off: every
 * tombstoned object qualifies.
 */
export function readPurgeCutoff(body: Body, now: number): number | null {
  const given = ['before', 'older_than', 'older_than_secs'].filter((f) => present(body, f));
  if (given.length > 1) throw Errors.invalidField(given[1], `give at most one of before (alias older_than) and older_than_secs; got ${given.join(' and ')}`);
  if (given.length === 0) return null;
  const field = given[0];
  if (field === 'older_than_secs') return now - readNumber(body, field, { min: 0 })!;
  return readNumber(body, field, { min: 0 })!;
}
