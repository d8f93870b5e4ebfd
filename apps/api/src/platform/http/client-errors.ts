import { randomUUID } from 'node:crypto';
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers or request line too
 * long, bad Content-Length, malformed framing) have no request object, so no hook runs: the
 * answer is written to the socket here, in the Strata shape `{error, code}` (REFERENCE §1.10)
 * and with a new X-Request-Id (§1.1; the client's header was never parsed). The table of §1.10
 * has no entry for these; each gets the nearest code:
 * - 431 (request line plus headers over Node's limit) → `payload_too_large`, the code of
 *   "over the size limits"; the status stays 431 as HTTP defines it;
 * - 413 (chunk extensions too large) → `payload_too_large`;
 * - 408 (request not received in time) → `unavailable`: it reached no handler, nothing was
 *   written and it may be retried, which is what `unavailable` promises;
 * - 400 (anything else malformed) → `invalid_field`: a header field or the request line has
 *   a value that is not valid HTTP, and it is the code of every other framework-level 400.
 */
export function clientErrorResponse(err: { code?: string; reason?: string; message?: string }): { status: number; body: { error: string; code: string } } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, body: { error: `the request line and headers are larger than the server accepts (${maxHeaderSize / 1024} KiB)`, code: 'payload_too_large' } };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, body: { error: 'the chunk extensions of the body are too large', code: 'payload_too_large' } };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, body: { error: 'the request was not received in time', code: 'unavailable' } };
    default: {
      // llhttp's reason ("Invalid character in Content-Length") is plain ASCII and says which part
      const reason = typeof err.reason === 'string' && err.reason !== '' ? err.reason : 'the request is not valid HTTP/1.1';
      return { status: 400, body: { error: `malformed HTTP request: ${reason}`, code: 'invalid_field' } };
    }
  }
}

/** The raw HTTP/1.1 response for `clientErrorResponse`; the connection is closed after it. */
export function clientErrorBytes(status: number, body: object, requestId: string): string {
  const json = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(json)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    json
  );
}

/**
 * Fastify's `clientErrorHandler` (its default answers `{error, message, statusCode}`). As
 * Node's own handler: nothing to answer on a reset or destroyed socket, and nothing is written
 * into a response already under way on the connection (that would corrupt it); the socket is
 * destroyed either way.
 */
export function strataClientErrorHandler(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { status, body } = clientErrorResponse(err);
    socket.write(clientErrorBytes(status, body, randomUUID()));
  }
  socket.destroy();
}
