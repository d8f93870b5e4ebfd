import { PassThrough } from 'node:stream';
import { clientErrorBytes, clientErrorResponse, strataClientErrorHandler } from './client-errors';

describe('clientErrorResponse', () => {
  it('maps the parser errors to a status and a code of REFERENCE §1.10', () => {
    expect(clientErrorResponse({ code: 'HPE_HEADER_OVERFLOW' })).toMatchObject({ status: 431, body: { code: 'payload_too_large' } });
    expect(clientErrorResponse({ code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' })).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    expect(clientErrorResponse({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toMatchObject({ status: 408, body: { code: 'unavailable' } });
    expect(clientErrorResponse({ code: 'HPE_INVALID_CONTENT_LENGTH', reason: 'Invalid character in Content-Length' })).toEqual({
      status: 400,
      body: { error: 'malformed HTTP request: Invalid character in Content-Length', code: 'invalid_field' },
    });
    expect(clientErrorResponse({ code: 'HPE_SOMETHING_NEW' }).body).toEqual({ error: 'malformed HTTP request: the request is not valid HTTP/1.1', code: 'invalid_field' });
  });
});

describe('clientErrorBytes', () => {
  it('is a complete HTTP/1.1 response whose Content-Length counts bytes', () => {
    const text = clientErrorBytes(400, { error: 'é', code: 'invalid_field' }, 'rid-1');
    const [head, body] = text.split('\r\n\r\n');
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 400 Bad Request',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Request-Id: rid-1',
      'Connection: close',
    ]);
    expect(JSON.parse(body)).toEqual({ error: 'é', code: 'invalid_field' });
  });
});

describe('strataClientErrorHandler', () => {
  const socket = () => {
    const s = new PassThrough();
    const written: string[] = [];
    s.on('data', (d) => written.push(String(d)));
    return { s, written };
  };
  const err = (code: string) => Object.assign(new Error(code), { code });

  it('answers and destroys the socket', async () => {
    const { s, written } = socket();
    strataClientErrorHandler(err('HPE_HEADER_OVERFLOW'), s);
    await new Promise((r) => setImmediate(r));
    expect(written.join('')).toMatch(/^HTTP\/1\.1 431 /);
    expect(s.destroyed).toBe(true);
  });

  it('writes nothing on a reset, or into a response already under way', async () => {
    const reset = socket();
    strataClientErrorHandler(err('ECONNRESET'), reset.s);
    const busy = socket();
    (busy.s as unknown as { _httpMessage: { headersSent: boolean } })._httpMessage = { headersSent: true };
    strataClientErrorHandler(err('HPE_INVALID_METHOD'), busy.s);
    await new Promise((r) => setImmediate(r));
    expect(reset.written).toEqual([]);
    expect(busy.written).toEqual([]);
    expect(busy.s.destroyed).toBe(true);
  });
});
