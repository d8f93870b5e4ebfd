import { ChunkAnchors, anchorQuote } from './quote-anchor';

describe('quote anchors', () => {
  it('gives UTF-8 byte offsets in an ASCII chunk', () => {
    const chunk = 'Ada Lovelace joined Acme in London. Ada wrote the first program.';
    const a = new ChunkAnchors(chunk);
    expect(a.anchor('Acme')).toEqual({ exact: 'Acme', prefix: 'Ada Lovelace joined ', suffix: ' in London. Ada wrote the first ', start: 20, end: 24 });
    expect(a.anchor('Ada', 5)?.start).toBe(36);
    expect(a.anchor('Zurich')).toBeNull();
  });

  it('counts bytes, not characters, once the chunk holds other than ASCII', () => {
    const chunk = 'Zürich — 😀 the café opened in Genève.';
    const a = new ChunkAnchors(chunk);
    const q = a.anchor('café')!;
    expect(q.start).toBe(Buffer.byteLength(chunk.slice(0, chunk.indexOf('café'))));
    expect(q.end - q.start).toBe(Buffer.byteLength('café'));
    expect(Buffer.from(chunk).subarray(q.start, q.end).toString()).toBe('café');
  });

  it('places every quote at its first occurrence from `from`, in bytes, in ASCII and other text alike', () => {
    for (const chunk of ['plain text, plain words, plain again', 'naïve text — naïve words 😀 naïve again']) {
      const a = new ChunkAnchors(chunk);
      for (const quote of ['plain', 'naïve', 'words', 'again', '😀', 'absent'])
        for (const from of [0, 3, 20]) {
          let i = chunk.indexOf(quote, from);
          if (i < 0) i = chunk.indexOf(quote);
          const got = a.anchor(quote, from);
          if (i < 0) expect(got).toBeNull();
          else {
            const start = Buffer.byteLength(chunk.slice(0, i));
            expect(got).toMatchObject({ exact: quote, start, end: start + Buffer.byteLength(quote) });
            expect(anchorQuote(chunk, quote, from)).toEqual(got);
          }
        }
    }
  });
});
