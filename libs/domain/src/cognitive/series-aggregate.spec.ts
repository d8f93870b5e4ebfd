import { MAX_BUCKETS, bucketize } from './series-aggregate';

/** The bucket-count rule of /reality/series aggregate (REFERENCE §4.3: `end` exclusive, at most 10,000 buckets). */
describe('bucketize: buckets spanned by the window', () => {
  const refused = (size: number, origin: number, window: { start?: number; end?: number }, points: { ts: number; value: number }[] = []) =>
    expect(() => bucketize('count', points, size, origin, window)).toThrow(expect.objectContaining({ code: 'invalid_field', context: { field: 'bucket_secs' } }));
  const allowed = (size: number, origin: number, window: { start?: number; end?: number }, points: { ts: number; value: number }[] = []) =>
    expect(() => bucketize('count', points, size, origin, window)).not.toThrow();

  it('[start, end) of exactly 10,000 buckets is allowed; one more is refused', () => {
    allowed(1, 0, { start: 0, end: MAX_BUCKETS });
    refused(1, 0, { start: 0, end: MAX_BUCKETS + 1 });
    allowed(2, 0, { start: 0, end: 2 * MAX_BUCKETS });
    refused(2, 0, { start: 0, end: 2 * MAX_BUCKETS + 1 }); // a partial last bucket counts
    allowed(1, 5, { start: 5, end: MAX_BUCKETS + 5 });
    refused(1, 5, { start: 5, end: MAX_BUCKETS + 6 });
    allowed(0.5, 0, { start: 0, end: MAX_BUCKETS / 2 });
  });

  it('the message counts the buckets of the half-open window', () => {
    expect(() => bucketize('count', [], 1, 0, { start: 0, end: MAX_BUCKETS + 1 })).toThrow(`bucket_secs 1 gives ${MAX_BUCKETS + 1} buckets over the window`);
  });

  it('a start not aligned to the epoch: buckets align to the start itself', () => {
    allowed(10, 3.5, { start: 3.5, end: 3.5 + 10 * MAX_BUCKETS });
    refused(10, 3.5, { start: 3.5, end: 3.5 + 10 * MAX_BUCKETS + 0.1 });
  });

  it('no start: epoch-aligned buckets from the first point, which may sit inside its bucket', () => {
    const from = (ts: number) => [{ ts, value: 1 }];
    allowed(1, 0, { end: MAX_BUCKETS }, from(0.5)); // buckets [0,1) … [9999,10000)
    refused(1, 0, { end: MAX_BUCKETS + 0.5 }, from(0.5)); // reaches into [10000,10001)
    allowed(10, 0, { end: 10 * MAX_BUCKETS + 5 }, from(15)); // [10,20) … [100000,100010): 10,000 buckets
    refused(10, 0, { end: 10 * MAX_BUCKETS + 5 }, from(5));
  });

  it('no end: the last point is inside the window', () => {
    allowed(1, 0, { start: 0 }, [{ ts: 0, value: 1 }, { ts: MAX_BUCKETS - 1, value: 1 }]);
    refused(1, 0, { start: 0 }, [{ ts: 0, value: 1 }, { ts: MAX_BUCKETS, value: 1 }]);
  });

  it('an empty or inverted window spans nothing', () => {
    allowed(1, 0, { start: 10, end: 10 });
    allowed(1, 0, { start: 10, end: 0 });
    allowed(1, 0, {});
  });
});
