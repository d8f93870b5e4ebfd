import { BRIEF_ITEM_ACTIONS, BriefItemAction } from '@strata/domain/briefs';
import { DomainError, Errors } from '@strata/domain/errors';
import { Body, assertObjectBody } from '@strata/domain/validation';

export interface CitationRequest {
  chunk_uid: string;
  quote: string;
  char_start?: number;
  char_end?: number;
}

export interface ItemPatchRequest {
  action: BriefItemAction;
  text?: string;
  citations?: CitationRequest[];
  reason: string | null;
  expected_version?: number;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function reason(b: Body): string | null {
  const r = b.reason;
  if (r === undefined || r === null) return null;
  if (typeof r !== 'string' || r.length > 500) throw Errors.invalidField('reason', 'reason must be a string of at most 500 characters');
  return r;
}

/** The body of `PATCH …/brief/items/{item_id}` (REFERENCE §12.6), validated; nothing is read twice. */
export function readItemPatch(body: unknown): ItemPatchRequest {
  const b = assertObjectBody(body);
  const action = b.action;
  if (typeof action !== 'string' || !(BRIEF_ITEM_ACTIONS as readonly string[]).includes(action)) throw Errors.unknownAction(action, BRIEF_ITEM_ACTIONS);
  const ev = b.expected_version;
  if (ev !== undefined && ev !== null && (!isInt(ev) || ev < 1)) throw Errors.invalidField('expected_version', 'expected_version must be a positive integer');
  const out: ItemPatchRequest = { action: action as BriefItemAction, reason: reason(b), expected_version: ev === null ? undefined : (ev as number | undefined) };
  if (action !== 'correct') return out;
  if (b.text === undefined || b.text === null) throw Errors.missingField('text');
  if (typeof b.text !== 'string' || b.text.length < 1 || b.text.length > 4000) throw Errors.invalidField('text', 'text must be a string of 1-4000 characters');
  if (b.citations === undefined || b.citations === null) throw Errors.missingField('citations');
  if (!Array.isArray(b.citations) || b.citations.length < 1 || b.citations.length > 20) throw Errors.invalidField('citations', 'citations must be a list of 1-20 citations');
  const citations = b.citations.map((c: unknown, index: number): CitationRequest => {
    const field = `citations[${index}]`;
    if (!c || typeof c !== 'object' || Array.isArray(c)) throw Errors.invalidField(field, `${field} must be an object {chunk_uid, quote, char_start?, char_end?}`);
    const o = c as Record<string, unknown>;
    if (o.chunk_uid === undefined || o.chunk_uid === null) throw Errors.missingField(`${field}.chunk_uid`);
    if (typeof o.chunk_uid !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(o.chunk_uid)) throw Errors.invalidUid(`${field}.chunk_uid`);
    if (o.quote === undefined || o.quote === null) throw Errors.missingField(`${field}.quote`);
    if (typeof o.quote !== 'string' || o.quote.length === 0 || Buffer.byteLength(o.quote, 'utf8') > 2000)
      throw Errors.invalidField(`${field}.quote`, `${field}.quote must be a string of 1-2000 bytes`);
    for (const k of ['char_start', 'char_end'] as const)
      if (o[k] !== undefined && o[k] !== null && (!isInt(o[k]) || (o[k] as number) < 0)) throw Errors.invalidField(`${field}.${k}`, `${field}.${k} must be a non-negative integer`);
    const hasStart = o.char_start !== undefined && o.char_start !== null;
    const hasEnd = o.char_end !== undefined && o.char_end !== null;
    if (hasStart !== hasEnd) throw Errors.invalidField(`${field}.${hasStart ? 'char_end' : 'char_start'}`, `${field}: char_start and char_end come together`);
    return { chunk_uid: o.chunk_uid, quote: o.quote, ...(hasStart ? { char_start: o.char_start as number, char_end: o.char_end as number } : {}) };
  });
  return { ...out, text: b.text, citations };
}

/** 422 `invalid_citation` for a correction citation (REFERENCE §12.6). */
export function invalidCitation(index: number, reason: 'not_admitted' | 'quote_not_found' | 'offsets_mismatch'): DomainError {
  return new DomainError(422, 'invalid_citation', `citations[${index}]: ${reason.replace(/_/g, ' ')}`, { field: `citations[${index}]`, index, reason });
}
