import { charIndexOfByte, parseSelector, segments } from './quote';

describe('quotes highlighted in a chunk', () => {
  it('reads the selector from the JSON text of ExtractedFrom.location', () => {
    expect(parseSelector('{"exact":"Ada","start":0,"end":3}')).toEqual({ exact: 'Ada', start: 0, end: 3 });
    expect(parseSelector('not json')).toBeNull();
    expect(parseSelector({ exact: '' })).toBeNull();
    expect(parseSelector(null)).toBeNull();
  });

  it('turns UTF-8 byte offsets into string indexes', () => {
    expect(charIndexOfByte('héllo', 3)).toBe(2);
    expect(charIndexOfByte('héllo', 2)).toBeNull();
    expect(charIndexOfByte('a😀b', 5)).toBe(3);
    expect(charIndexOfByte('ab', 9)).toBeNull();
  });

  it('marks each quote, overlapping ones included, using the byte offsets', () => {
    const text = 'Café Ada met Babbage. Ada wrote notes.';
    const byteOfSecondAda = new TextEncoder().encode(text.slice(0, text.lastIndexOf('Ada'))).length;
    const out = segments(text, [
      { label: 'Ada', selector: { exact: 'Ada', start: byteOfSecondAda } },
      { label: 'Babbage', selector: { exact: 'Babbage' } },
      { label: 'Missing', selector: { exact: 'nowhere' } },
    ]);
    expect(out.map((s) => [s.text, s.marks])).toEqual([
      ['Café Ada met ', []],
      ['Babbage', ['Babbage']],
      ['. ', []],
      ['Ada', ['Ada']],
      [' wrote notes.', []],
    ]);
    expect(out.map((s) => s.text).join('')).toBe(text);
  });
});
