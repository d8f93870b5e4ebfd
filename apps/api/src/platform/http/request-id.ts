import { isUtf8 } from 'node:buffer';
import type { ServerResponse } from 'node:http';

/**
 * Longest X-Request-Id recorded. The id goes into the metadata of every event a request
 * appends (a /batch appends thousands) and into log lines, so what is recorded is bounded;
 * 1 KiB is far above any tracing scheme's ids (UUIDs, W3C traceparent, cloud trace headers).
 * The header itself is always echoed whole (REFERENCE §1.1).
 */
export const MAX_REQUEST_ID_LENGTH = 1024;

/** Bytes a header value may hold on output (Node's check); the strict parser admits no others. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
const NON_ASCII = /[\x80-\xff]/;

export type SentRequestId =
  /** none sent, or blank: the server generates one */
  | { kind: 'none' }
  /**
   * echoed: `header` is the value as Node parsed it (one character per byte, latin1), so
   * setting it back sends the same bytes; `id` is what events and logs record, the text the
   * bytes spell when they are UTF-8, its first MAX_REQUEST_ID_LENGTH characters; `nonAscii`
   * when some byte is ≥ 0x80 (see sendHeadAsBytes)
   */
  | { kind: 'echo'; id: string; header: string; nonAscii: boolean };

/**
 * The client's X-Request-Id as the HTTP parser gave it (REFERENCE §1.1 echoes it): any value
 * the parser accepted, spaces, `;`, commas and bytes beyond ASCII included.
 */
export function readRequestId(sent: unknown): SentRequestId {
  const header = Array.isArray(sent) ? sent.join(', ') : sent;
  if (typeof header !== 'string' || header === '' || UNSENDABLE.test(header)) return { kind: 'none' };
  const recorded = (id: string) => (id.length > MAX_REQUEST_ID_LENGTH ? id.slice(0, MAX_REQUEST_ID_LENGTH) : id);
  if (!NON_ASCII.test(header)) return { kind: 'echo', id: recorded(header), header, nonAscii: false };
  const bytes = Buffer.from(header, 'latin1');
  return { kind: 'echo', id: recorded(isUtf8(bytes) ? bytes.toString('utf8') : header), header, nonAscii: true };
}

/**
 * Node writes a response's head in the encoding of its first body chunk: with a string body
 * (every JSON answer) as UTF-8, which would turn each echoed byte ≥ 0x80 into two; with a
 * Buffer body as latin1, byte for byte. For the rare reply that echoes such bytes, its string
 * chunks are sent as Buffers, so the client gets back the bytes it sent; other replies are
 * left alone and pay nothing.
 */
export function sendHeadAsBytes(res: ServerResponse): void {
  const asBytes = (chunk: unknown, encoding: unknown) => (typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : chunk);
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => write.call(res, asBytes(chunk, encoding), encoding, cb)) as typeof res.write;
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown) => end.call(res, asBytes(chunk, encoding), encoding, cb)) as typeof res.end;
}
