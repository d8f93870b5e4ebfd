import { ACTIVITY_LIMIT } from './activity-store.port';
import { activityWrites, newestFirst, requestCountId } from './mongo-activity-documents';

describe('MongoDB request-activity documents', () => {
  it('a count is an upserted $inc on the organization-and-month document', () => {
    const w = activityWrites({ counts: [{ org_id: 'o1', period: '2026-11', n: 4 }], keys: [] });
    expect(w.counts).toEqual([
      { updateOne: { filter: { _id: 'o1|2026-11' }, update: { $setOnInsert: { org_id: 'o1', period: '2026-11' }, $inc: { n: 4 } }, upsert: true } },
    ]);
    expect(w.keys).toEqual([]);
    expect(requestCountId('o1', '2026-11')).toBe('o1|2026-11');
  });

  it("a key's requests are pushed sorted by time and cut to the newest ACTIVITY_LIMIT; last use only moves forward", () => {
    const w = activityWrites({
      counts: [],
      keys: [{ key_id: 'k1', org_id: 'o1', last_used_at: 20, requests: [{ status: 200, route: '/a', method: 'GET', at: 10, extra: 1 } as never, { at: 20, method: 'POST', route: '/b', status: 201 }] }],
    });
    expect(w.keys).toEqual([
      {
        updateOne: {
          filter: { _id: 'k1' },
          update: {
            $setOnInsert: { org_id: 'o1' },
            $max: { last_used_at: 20 },
            $push: { requests: { $each: [{ at: 10, method: 'GET', route: '/a', status: 200 }, { at: 20, method: 'POST', route: '/b', status: 201 }], $sort: { at: 1 }, $slice: -ACTIVITY_LIMIT } },
          },
          upsert: true,
        },
      },
    ]);
  });

  it('reads a key document newest first, bounded', () => {
    const requests = [1, 2, 3].map((at) => ({ at, method: 'GET', route: '/r', status: 200 }));
    expect(newestFirst({ requests }, 2).map((r) => r.at)).toEqual([3, 2]);
    expect(newestFirst(null, 50)).toEqual([]);
  });
});
