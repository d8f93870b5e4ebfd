import type { TextDocument, TextIndex, TextQuery } from '../text-index.port';

/**
 * A brute-force check of the port's order (score descending, then salience descending, then
 * uid) on data with heavy ties, for any adapter: whatever scale its scores live on.
 *
 * `docs` are the organization's documents as indexed; `matches(doc)` says whether the query
 * matches one (worked out by the test from the text it wrote). The full answer must hold
 * exactly the matching documents, documents with identical text must score exactly alike, and
 * its order must be the reference order: the same documents sorted by (their score, their
 * salience, their uid). Then every page — the hits offset…offset+n−1 of a search with
 * limit offset+n — must be that slice of the reference.
 */
export async function expectExactTieOrder(
  index: TextIndex,
  q: Omit<TextQuery, 'limit'>,
  docs: TextDocument[],
  matches: (d: TextDocument) => boolean,
  pages: Array<[offset: number, size: number]>,
): Promise<void> {
  const byUid = new Map(docs.map((d) => [d.uid, d]));
  const wanted = docs.filter(matches);
  const all = await index.search({ ...q, limit: wanted.length + 10 });
  expect(all.map((h) => h.uid).sort()).toEqual(wanted.map((d) => d.uid).sort());

  const textKey = (d: TextDocument) => `${d.label}\u0000${d.summary}\u0000${d.body}`;
  const classScore = new Map<string, number>();
  for (const h of all) {
    const key = textKey(byUid.get(h.uid)!);
    if (!classScore.has(key)) classScore.set(key, h.score);
    expect(h.score).toBe(classScore.get(key));
  }

  const salience = (uid: string) => byUid.get(uid)!.salience ?? 0.5;
  const reference = [...all].sort((a, b) => b.score - a.score || salience(b.uid) - salience(a.uid) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  expect(all.map((h) => h.uid)).toEqual(reference.map((h) => h.uid));
  // each hit carries the salience the order used: the document's latest
  expect(all.map((h) => h.salience)).toEqual(all.map((h) => salience(h.uid)));

  for (const [offset, size] of pages) {
    const got = await index.search({ ...q, limit: offset + size });
    expect(got.slice(offset).map((h) => h.uid)).toEqual(reference.slice(offset, offset + size).map((h) => h.uid));
  }
}

/** A seeded PRNG (the data of a failing run can be made again). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
