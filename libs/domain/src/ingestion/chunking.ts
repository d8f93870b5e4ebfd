import { Errors } from '../errors';
import { Body, readNumber } from '../validation';

export const CHUNK_SIZE_DEFAULT = 2000;
export const CHUNK_SIZE_MIN = 100;
export const CHUNK_SIZE_MAX = 8000;
export const CHUNK_OVERLAP_DEFAULT = 200;

export interface ChunkingOptions {
  /** tokens per chunk */
  size: number;
  /** tokens shared with the previous chunk */
  overlap: number;
}

/** One piece of a document: its text and where it lies, in UTF-8 bytes of the document. */
export interface TextChunk {
  index: number;
  content: string;
  /** UTF-8 byte offsets into the document (end exclusive) */
  start: number;
  end: number;
  token_estimate: number;
}

/** Tokens are estimated as ⌈characters / 4⌉ (REFERENCE §9.2), characters being code points. */
export function estimateTokens(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    n++;
  }
  return Math.ceil(n / 4);
}

/**
 * `chunk_size` (100–8000 tokens) and `chunk_overlap` (tokens, or below 1 a fraction of the
 * size; smaller than the size) of a request.
 */
export function readChunking(body: Body): ChunkingOptions {
  const size = readNumber(body, 'chunk_size', { integer: true, min: CHUNK_SIZE_MIN, max: CHUNK_SIZE_MAX }) ?? CHUNK_SIZE_DEFAULT;
  const raw = readNumber(body, 'chunk_overlap', { min: 0 });
  const overlap = raw === undefined ? Math.min(CHUNK_OVERLAP_DEFAULT, size - 1) : raw < 1 ? Math.floor(raw * size) : Math.floor(raw);
  if (overlap >= size) throw Errors.invalidField('chunk_overlap', `chunk_overlap must be smaller than chunk_size (${size})`);
  return { size, overlap };
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0xa0 || c === 0x3000;

/** UTF-8 length of each UTF-16 unit, summed as a prefix: byte offset of unit i is at [i]. */
export function utf8Prefix(text: string): Uint32Array {
  const out = new Uint32Array(text.length + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    out[i] = b;
    const c = text.charCodeAt(i);
    if (c < 0x80) b += 1;
    else if (c < 0x800) b += 2;
    else if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      out[i + 1] = b; // the low half shares its pair's offset: it is never a split point
      b += 4;
      i++;
    } else b += 3;
  }
  out[text.length] = b;
  return out;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The UTF-8 byte offset of each UTF-16 index of `text`: for ASCII text (most documents) the
 * index itself, without a prefix array of the document's length.
 */
function byteOffsets(text: string): (i: number) => number {
  if (!NON_ASCII.test(text)) return (i) => i;
  const prefix = utf8Prefix(text);
  return (i) => prefix[i];
}

/** A split point inside [lo, hi] (UTF-16 indices), preferring paragraph, sentence, whitespace. */
function splitPoint(text: string, lo: number, hi: number): number {
  const window = text.slice(lo, hi);
  const para = window.lastIndexOf('\n\n');
  if (para > 0) return lo + para + 2;
  let sentence = -1;
  const re = /[.!?。！？]["')\]]*\s/g;
  for (let m = re.exec(window); m; m = re.exec(window)) sentence = m.index + m[0].length;
  if (sentence > 0) return lo + sentence;
  for (let i = hi - 1; i > lo; i--) if (isSpace(text.charCodeAt(i))) return i + 1;
  // no break at all: cut, but never between the halves of a surrogate pair
  return isLow(text.charCodeAt(hi)) && isHigh(text.charCodeAt(hi - 1)) ? hi - 1 : hi;
}

/**
 * Splits a document into chunks of at most `size` tokens (4 characters each), preferring
 * paragraph breaks, then sentence ends, then whitespace, in the second half of each window;
 * each chunk after the first starts `overlap` tokens before the previous one ended, moved
 * forward to a word start. Chunks that are only whitespace are dropped. Offsets: UTF-8 bytes.
 */
export function chunkText(text: string, opts: ChunkingOptions): TextChunk[] {
  const byteAt = byteOffsets(text);
  const maxLen = opts.size * 4;
  const overlapLen = opts.overlap * 4;
  const out: TextChunk[] = [];
  let start = 0;
  while (start < text.length) {
    let end: number;
    if (text.length - start <= maxLen) end = text.length;
    else end = splitPoint(text, start + Math.floor(maxLen / 2), start + maxLen);
    let s = start;
    let e = end;
    while (s < e && isSpace(text.charCodeAt(s))) s++;
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    if (e > s) {
      const content = text.slice(s, e);
      out.push({ index: out.length, content, start: byteAt(s), end: byteAt(e), token_estimate: estimateTokens(content) });
    }
    if (end >= text.length) break;
    let next = Math.max(end - overlapLen, start + 1);
    if (next < end) {
      // start the overlap at a word: after the first whitespace at or past `next`
      let i = next;
      while (i < end && !isSpace(text.charCodeAt(i))) i++;
      next = i < end ? i + 1 : end;
    }
    if (isLow(text.charCodeAt(next)) && isHigh(text.charCodeAt(next - 1))) next--;
    start = next;
  }
  return out;
}

/** The UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return NON_ASCII.test(text) ? utf8Prefix(text)[text.length] : text.length;
}
