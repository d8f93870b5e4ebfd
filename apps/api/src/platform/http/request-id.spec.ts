import { MAX_REQUEST_ID_LENGTH, readRequestId } from './request-id';

describe('readRequestId', () => {
  it('echoes any value the parser accepted, as sent', () => {
    for (const v of ['abc', 'has space', 'semi;colon', 'a,b "q"', 'tab\there', 'x'.repeat(MAX_REQUEST_ID_LENGTH)]) {
      expect(readRequestId(v)).toEqual({ kind: 'echo', id: v, header: v, nonAscii: false });
    }
  });

  it('keeps bytes beyond ASCII for the echo and records the text they spell when UTF-8', () => {
    const utf8 = Buffer.from('ünï 😀', 'utf8').toString('latin1'); // as Node parses it
    expect(readRequestId(utf8)).toEqual({ kind: 'echo', id: 'ünï 😀', header: utf8, nonAscii: true });
    // latin1 bytes that are not UTF-8 are recorded as they came
    expect(readRequestId('\xfcn\xef')).toEqual({ kind: 'echo', id: '\xfcn\xef', header: '\xfcn\xef', nonAscii: true });
  });

  it('none sent or blank: generate; over the cap (in bytes): refuse', () => {
    expect(readRequestId(undefined)).toEqual({ kind: 'none' });
    expect(readRequestId('')).toEqual({ kind: 'none' });
    expect(readRequestId('x'.repeat(MAX_REQUEST_ID_LENGTH + 1))).toEqual({ kind: 'too_long' });
    expect(readRequestId(Buffer.from('é'.repeat(513), 'utf8').toString('latin1'))).toEqual({ kind: 'too_long' });
  });

  it('never echoes what a header cannot carry (a lenient parser could pass it)', () => {
    expect(readRequestId('a\r\nb')).toEqual({ kind: 'none' });
    expect(readRequestId('a\u0100')).toEqual({ kind: 'none' });
  });

  it('joins repeated headers as Node does', () => {
    expect(readRequestId(['a', 'b'])).toMatchObject({ kind: 'echo', id: 'a, b' });
  });
});
