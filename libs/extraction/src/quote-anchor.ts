/** A W3C-style text quote selector, offsets in UTF-8 bytes of the chunk (REFERENCE §9.5). */
export interface QuoteAnchor {
  exact: string;
  prefix: string;
  suffix: string;
  start: number;
  end: number;
}

const CONTEXT_CHARS = 32;

function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Anchors a quote in the chunk: its first exact occurrence at or after `from` (UTF-16 index,
 * so repeated quotes can be anchored in order), with up to 32 characters of context on
 * either side. Null when the quote is not in the chunk (a model may paraphrase).
 */
export function anchorQuote(chunk: string, quote: string, from = 0): QuoteAnchor | null {
  if (!quote) return null;
  let i = chunk.indexOf(quote, from);
  if (i < 0 && from > 0) i = chunk.indexOf(quote);
  if (i < 0) return null;
  const j = i + quote.length;
  let p = Math.max(0, i - CONTEXT_CHARS);
  let s = Math.min(chunk.length, j + CONTEXT_CHARS);
  // context never starts or ends inside a surrogate pair
  if (p > 0 && /[\uDC00-\uDFFF]/.test(chunk[p])) p--;
  if (s < chunk.length && /[\uDC00-\uDFFF]/.test(chunk[s])) s++;
  const start = utf8Bytes(chunk.slice(0, i));
  return { exact: quote, prefix: chunk.slice(p, i), suffix: chunk.slice(j, s), start, end: start + utf8Bytes(quote) };
}
