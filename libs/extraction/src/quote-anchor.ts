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
  return new ChunkAnchors(chunk).anchor(quote, from);
}

/**
 * Quotes anchored in one chunk (the same answers as `anchorQuote`): a chunk of ASCII text,
 * the usual case, has its UTF-8 byte offsets equal to its character offsets, so a chunk's
 * hundreds of quotes do not each count the bytes of everything before them.
 */
export class ChunkAnchors {
  private readonly ascii: boolean;

  constructor(private readonly chunk: string) {
    this.ascii = !/[^\x00-\x7f]/.test(chunk);
  }

  anchor(quote: string, from = 0): QuoteAnchor | null {
    const chunk = this.chunk;
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
    const start = this.ascii ? i : utf8Bytes(chunk.slice(0, i));
    return { exact: quote, prefix: chunk.slice(p, i), suffix: chunk.slice(j, s), start, end: start + (this.ascii ? quote.length : utf8Bytes(quote)) };
  }
}
