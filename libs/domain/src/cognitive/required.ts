import { Errors } from '../errors';
import { Body, present } from '../validation';

/** §4.0 step 3: each named field is present (null and blank strings count as absent). */
export function requirePresent(body: Body, fields: readonly string[]): void {
  for (const f of fields) {
    const v = body[f];
    if (!present(body, f) || (typeof v === 'string' && v.trim() === '')) throw Errors.missingField(f);
  }
}
