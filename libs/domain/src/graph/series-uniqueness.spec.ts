import { DomainError, Errors } from '../errors';
import { NodeRecord } from '../records';
import { decideCreateNode, decideRestoreNode, decideTombstoneNode, decideUpdateNode } from './node-decider';
import { assertSeriesKeysFree, claimedSeriesKey, concealHiddenHolder, duplicateSeries, SeriesChange, SeriesKey, seriesKeyOf } from './series-uniqueness';

const ctx = { now: 1000, agent_id: null, principal_id: 'user-1' };
let seq = 0;
const series = (metric: string, entity?: string, label = metric): NodeRecord =>
  decideCreateNode({ label, node_type: 'Series', props: { metric, ...(entity ? { entity_uid: entity } : {}) } }, `s${++seq}`, ctx);

/** A read model holding `stored`; answers the live holders of a key as they are stored. */
function holders(stored: NodeRecord[]) {
  return async (key: SeriesKey) => stored.filter((n) => { const k = seriesKeyOf(n); return k !== null && k.entity_uid === key.entity_uid && k.metric === key.metric; });
}

async function refusal(changes: SeriesChange[], stored: NodeRecord[]): Promise<DomainError | null> {
  try {
    await assertSeriesKeysFree(changes, holders(stored));
    return null;
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
}

describe('one live Series per (entity_uid, metric)', () => {
  it('only a live Series with an entity_uid holds a key', () => {
    expect(seriesKeyOf(series('m', 'E'))).toEqual({ entity_uid: 'E', metric: 'm' });
    expect(seriesKeyOf(series('m'))).toBeNull();
    expect(seriesKeyOf(decideTombstoneNode(series('m', 'E'), null, ctx))).toBeNull();
    expect(seriesKeyOf(decideCreateNode({ label: 'm', node_type: 'Concept', props: {} }, 'c', ctx))).toBeNull();
  });

  it('a change claims a key when it creates, restores or re-keys a Series; keeping the key claims nothing', () => {
    const s = series('m', 'E');
    expect(claimedSeriesKey(null, s)).toEqual({ entity_uid: 'E', metric: 'm' });
    const dead = decideTombstoneNode(s, null, ctx)!;
    expect(claimedSeriesKey(dead, decideRestoreNode(dead, ctx)!)).toEqual({ entity_uid: 'E', metric: 'm' });
    expect(claimedSeriesKey(s, decideUpdateNode(s, { props: { metric: 'n' } }, ctx))).toEqual({ entity_uid: 'E', metric: 'n' });
    expect(claimedSeriesKey(s, decideUpdateNode(s, { props: { entity_uid: 'F' } }, ctx))).toEqual({ entity_uid: 'F', metric: 'm' });
    expect(claimedSeriesKey(s, decideUpdateNode(s, { label: 'renamed' }, ctx))).toBeNull();
    expect(claimedSeriesKey(s, dead)).toBeNull();
  });

  it('refuses a new Series whose key a stored live Series holds: 409 duplicate naming it', async () => {
    const s1 = series('m', 'E');
    const e = await refusal([{ before: null, after: series('m', 'E', 'm dup') }], [s1]);
    expect(e).toMatchObject({ status: 409, code: 'duplicate', context: { existing_uid: s1.uid } });
    expect(await refusal([{ before: null, after: series('m', 'F') }], [s1])).toBeNull();
    expect(await refusal([{ before: null, after: series('n', 'E') }], [s1])).toBeNull();
    expect(await refusal([{ before: null, after: series('m') }], [s1])).toBeNull(); // no entity: no rule
  });

  it('refuses restoring a Series whose key another live Series took meanwhile', async () => {
    const s1 = series('m', 'E');
    const dead = decideTombstoneNode(s1, null, ctx)!;
    const s2 = series('m', 'E');
    expect(await refusal([{ before: dead, after: decideRestoreNode(dead, ctx)! }], [s2])).toMatchObject({ code: 'duplicate', context: { existing_uid: s2.uid } });
  });

  it('refuses moving a Series onto a held key (metric or entity), not edits that keep it', async () => {
    const held = series('m', 'E');
    const other = series('x', 'E');
    expect(await refusal([{ before: other, after: decideUpdateNode(other, { props: { metric: 'm' } }, ctx) }], [held, other])).toMatchObject({ context: { existing_uid: held.uid } });
    const elsewhere = series('m', 'F');
    expect(await refusal([{ before: elsewhere, after: decideUpdateNode(elsewhere, { props: { entity_uid: 'E' } }, ctx) }], [held, elsewhere])).toMatchObject({ context: { existing_uid: held.uid } });
    // older data already holding two: editing one of them (key unchanged) is not refused
    const twin = series('m', 'E');
    expect(await refusal([{ before: twin, after: decideUpdateNode(twin, { label: 'renamed' }, ctx) }], [held, twin])).toBeNull();
  });

  it('counts the holder as this request leaves it: freeing the key in the same request lets the claim through', async () => {
    const held = series('m', 'E');
    const claim = series('m', 'E');
    const freed = decideTombstoneNode(held, null, ctx)!;
    expect(await refusal([{ before: held, after: freed }, { before: null, after: claim }], [held])).toBeNull();
    const moved = decideUpdateNode(held, { props: { metric: 'old m' } }, ctx);
    expect(await refusal([{ before: held, after: moved }, { before: null, after: claim }], [held])).toBeNull();
  });

  it('refuses two Series of one request claiming the same key, naming the first', async () => {
    const a = series('m', 'E');
    const b = series('m', 'E');
    const e = await refusal([{ before: null, after: a }, { before: null, after: b }], []);
    expect(e).toMatchObject({ code: 'duplicate', context: { existing_uid: a.uid } });
    expect(e!.message).toMatch(/this request/);
    expect(await refusal([{ before: null, after: a }, { before: null, after: series('n', 'E') }], [])).toBeNull();
  });
});

describe('concealHiddenHolder', () => {
  it('drops the uid of a holder the caller may not see, keeps the rest of the 409, and leaves other errors alone', () => {
    const refusal = duplicateSeries({ entity_uid: 'E', metric: 'm' }, 'hidden-series');
    const concealed = concealHiddenHolder(refusal, () => false) as DomainError;
    expect(concealed).toMatchObject({ status: 409, code: 'duplicate', context: {} });
    expect(concealed.message).not.toContain('hidden-series');
    expect(concealHiddenHolder(refusal, (uid) => uid === 'hidden-series')).toBe(refusal);
    const other = Errors.notFound('x');
    expect(concealHiddenHolder(other, () => false)).toBe(other);
  });
});
