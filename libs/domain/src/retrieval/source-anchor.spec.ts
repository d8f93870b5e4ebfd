import { anchorInChunk, pageAt, pagesOfSpan, parseSelector, readPageMap } from './source-anchor';

const sel = (o: object) => JSON.stringify(o);

describe('source anchors', () => {
  // "Zoë" takes 4 bytes: offsets after it are bytes, not UTF-16 units
  const content = 'Zoë says bees pollinate almonds.';
  const beesAt = Buffer.from('Zoë says ', 'utf8').length;

  it.each([
    ['a selector that matches byte-exactly', sel({ exact: 'bees', prefix: 'says ', suffix: ' pollinate', start: beesAt, end: beesAt + 4 }), 'x', { char_start: beesAt, char_end: beesAt + 4, quote: 'bees', anchor: { exact: 'bees', prefix: 'says ', suffix: ' pollinate', start: beesAt, end: beesAt + 4 } }],
    ['a selector whose offsets are UTF-16 units falls back to the label', sel({ exact: 'bees', start: 9, end: 13 }), 'almonds', { char_start: Buffer.from('Zoë says bees pollinate ', 'utf8').length, char_end: Buffer.from('Zoë says bees pollinate almonds', 'utf8').length, quote: 'almonds', anchor: null }],
    ['no selector: the first occurrence of the label', undefined, 'bees', { char_start: beesAt, char_end: beesAt + 4, quote: 'bees', anchor: null }],
    ['a plain-text location: the label', 'page 3', 'bees', { char_start: beesAt, char_end: beesAt + 4, quote: 'bees', anchor: null }],
    ['neither anchors', sel({ exact: 'wasps', start: 0, end: 5 }), 'wasps', { char_start: null, char_end: null, quote: null, anchor: null }],
    ['out of range offsets', sel({ exact: 'bees', start: 30, end: 400 }), 'nothing', { char_start: null, char_end: null, quote: null, anchor: null }],
  ])('%s', (_what, location, label, expected) => {
    expect(anchorInChunk(content, location, label)).toEqual(expected);
  });

  it('no chunk content: unanchored', () => {
    expect(anchorInChunk(null, sel({ exact: 'a', start: 0, end: 1 }), 'a').quote).toBeNull();
  });

  it.each([
    ['{"exact":"a","start":0,"end":1}', { exact: 'a', prefix: null, suffix: null, start: 0, end: 1 }],
    ['{"exact":"a","start":0.5,"end":1}', null],
    ['{not json', null],
    [42, null],
    ['{"start":0,"end":1}', null],
  ])('parseSelector(%p)', (loc, expected) => {
    expect(parseSelector(loc)).toEqual(expected);
  });

  const map = readPageMap([{ page: 2, char_start: 100 }, { page: 1, char_start: 0 }, { page: 3, char_start: 250 }, { page: 0, char_start: 5 }, 'junk']);

  it('reads a page map: well-formed entries by offset', () => {
    expect(map).toEqual([{ page: 1, char_start: 0 }, { page: 2, char_start: 100 }, { page: 3, char_start: 250 }]);
    expect(readPageMap(undefined)).toEqual([]);
    expect(readPageMap('[{"page":1,"char_start":0}]')).toEqual([{ page: 1, char_start: 0 }]);
    expect(readPageMap('[oops')).toEqual([]);
  });

  it.each([
    [0, 1],
    [99, 1],
    [100, 2],
    [249, 2],
    [250, 3],
    [100000, 3],
  ])('byte %d is on page %d', (offset, page) => {
    expect(pageAt(map, offset)).toBe(page);
  });

  it.each([
    ['within one page', 50, 10, 20, { page_start: 1, page_end: 1 }],
    ['across a page break (end exclusive)', 90, 5, 10, { page_start: 1, page_end: 1 }],
    ['across a page break', 90, 5, 11, { page_start: 1, page_end: 2 }],
    ['spanning three pages', 0, 10, 300, { page_start: 1, page_end: 3 }],
    ['unanchored', 0, null, null, { page_start: null, page_end: null }],
    ['no chunk offset', null, 0, 3, { page_start: null, page_end: null }],
  ])('pages %s', (_what, chunkOffset, start, end, expected) => {
    expect(pagesOfSpan(map, chunkOffset as number | null, start as number | null, end as number | null)).toEqual(expected);
  });

  it('no page map: null pages', () => {
    expect(pagesOfSpan([], 0, 0, 4)).toEqual({ page_start: null, page_end: null });
  });
});
