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

  it('none sent or blank: generate; over the cap: echoed whole, recorded cut to the cap', () => {
    expect(readRequestId(undefined)).toEqual({ kind: 'none' });
    expect(readRequestId('')).toEqual({ kind: 'none' });
    const long = 'x'.repeat(MAX_REQUEST_ID_LENGTH + 1);
    expect(readRequestId(long)).toEqual({ kind: 'echo', id: long.slice(0, MAX_REQUEST_ID_LENGTH), header: long, nonAscii: false });
    const wide = Buffer.from('é'.repeat(1500), 'utf8').toString('latin1');
    expect(readRequestId(wide)).toMatchObject({ kind: 'echo', id: 'é'.repeat(MAX_REQUEST_ID_LENGTH), header: wide, nonAscii: true });
  });

  it('never echoes what a header cannot carry (a lenient parser could pass it)', () => {
    expect(readRequestId('a\r\nb')).toEqual({ kind: 'none' });
    expect(readRequestId('a\u0100')).toEqual({ kind: 'none' });
  });

  it('joins repeated headers as Node does', () => {
    expect(readRequestId(['a', 'b'])).toMatchObject({ kind: 'echo', id: 'a, b' });
  });
});
