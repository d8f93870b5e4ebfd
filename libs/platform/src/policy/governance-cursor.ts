import { createHash } from 'node:crypto';
import { DomainError } from '@strata/domain/errors';
import { canonicalJson } from '@strata/domain/mcp/canonical-json';

/**
 * Opaque keyset cursors bound to the filters and order that made them (REFERENCE §13.8,
 * §14.3): a cursor used with other filters, or one that is not ours, is 400 invalid_cursor.
 */
export function encodeCursor(binding: unknown, key: unknown): string {
  return Buffer.from(JSON.stringify({ b: bindingHash(binding), k: key })).toString('base64url');
}

/** `isKey`: the position a cursor of this list carries; any other key is not a cursor this service gave. */
export function decodeCursor<K>(cursor: string, binding: unknown, isKey?: (k: unknown) => k is K): K {
  let parsed: { b?: unknown; k?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('the cursor is not one this service gave');
  }
  if (!parsed || typeof parsed !== 'object' || typeof parsed.b !== 'string' || parsed.k === undefined) throw invalidCursor('the cursor is not one this service gave');
  if (parsed.b !== bindingHash(binding)) throw invalidCursor('the cursor was made with other filters or another order');
  if (isKey && !isKey(parsed.k)) throw invalidCursor('the cursor is not one this service gave');
  return parsed.k as K;
}

function bindingHash(binding: unknown): string {
  return createHash('sha256').update(canonicalJson(binding ?? null)).digest('base64url').slice(0, 16);
}

function invalidCursor(message: string): DomainError {
  return new DomainError(400, 'invalid_cursor', message, { field: 'cursor' });
}
