import { NodeDocCache } from './node-doc-cache';

describe('NodeDocCache bounds', () => {
  it('keeps at most its entry count, the oldest leaving first, and no oversized document', () => {
    const c = new NodeDocCache(2, 10);
    c.remember('o', 'a', '"a"');
    c.remember('o', 'b', '"b"');
    c.remember('o', 'c', '"c"');
    expect([c.get('o', 'a'), c.get('o', 'b'), c.get('o', 'c')]).toEqual([undefined, '"b"', '"c"']);
    c.remember('o', 'd', '"a document longer than ten"');
    expect(c.get('o', 'd')).toBeUndefined();
    expect(c.size).toBe(2);
  });
});
