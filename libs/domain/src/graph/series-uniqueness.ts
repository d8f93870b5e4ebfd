import { DomainError, Errors } from '../errors';
import { NodeRecord } from '../records';

/**
 * REFERENCE §4.3: when `entity_uid` is set, at most one live Series per (`entity_uid`,
 * `metric`). Every write that can make a Series live or change its metric or entity — series
 * create, `POST /node`, `PATCH /node`, `/batch`, `/evolve update|restore`, `/import`, any
 * cognitive change — is checked by this one rule before it is appended.
 */
export interface SeriesKey {
  entity_uid: string;
  metric: unknown;
}

/** The (entity, metric) a node holds: only a live Series with a string `entity_uid` holds one. */
export function seriesKeyOf(n: NodeRecord | null | undefined): SeriesKey | null {
  if (!n || n.node_type !== 'Series' || n.tombstone_at !== null) return null;
  const entity = n.props.entity_uid;
  if (typeof entity !== 'string') return null;
  return { entity_uid: entity, metric: n.props.metric ?? null };
}

export function sameSeriesKey(a: SeriesKey | null, b: SeriesKey | null): boolean {
  return a !== null && b !== null && a.entity_uid === b.entity_uid && a.metric === b.metric;
}

/**
 * The key a change newly claims: `after` holds a key that `before` (the node as stored before
 * the request; null for a new node) did not. A change that keeps its key claims nothing, so a
 * Series that already shares its key (older data) can still be edited.
 */
export function claimedSeriesKey(before: NodeRecord | null, after: NodeRecord): SeriesKey | null {
  const key = seriesKeyOf(after);
  return key && !sameSeriesKey(seriesKeyOf(before), key) ? key : null;
}

/** `sameRequest`: the other holder is one this request creates or re-keys (it is not stored yet). */
export function duplicateSeries(key: SeriesKey, existingUid: string, sameRequest = false): DomainError {
  const metric = String(key.metric);
  return Errors.duplicate(
    sameRequest
      ? `this request would give entity ${key.entity_uid} two live Series for metric '${metric}' (one is ${existingUid})`
      : `entity ${key.entity_uid} already has a live Series for metric '${metric}'`,
    { existing_uid: existingUid },
  );
}

/**
 * The refusal as a Space- or Project-scoped caller gets it when the Series already holding the
 * key is one it may not see: the same 409, without that Series' uid (REFERENCE §1.8). Keeping
 * one live Series per key organization-wide leaves no answer that hides it entirely; this one
 * reveals only that the (entity, metric) the caller named is taken.
 */
export function concealHiddenHolder(err: unknown, allows: (uid: string) => boolean): unknown {
  if (!(err instanceof DomainError) || err.code !== 'duplicate') return err;
  const holder = err.context.existing_uid;
  if (typeof holder !== 'string' || allows(holder)) return err;
  const { existing_uid: _hidden, ...context } = err.context;
  return new DomainError(err.status, err.code, err.message.includes(holder) ? 'the Series key is already taken' : err.message, context);
}

/** One Series a request creates or changes: as stored before it (null if new) and as it leaves it. */
export interface SeriesChange {
  before: NodeRecord | null;
  after: NodeRecord;
}

/**
 * 409 `duplicate` (with `existing_uid`) when a change claims a key another Series holds live:
 * one stored (`liveHolders` returns the stored live Series with that key; the request's own
 * changes to them are taken into account) or one this same request creates or changes.
 * `changes` must list every Series the request touches, each once, in the order it first touched them.
 */
export async function assertSeriesKeysFree(
  changes: readonly SeriesChange[],
  liveHolders: (key: SeriesKey) => Promise<readonly NodeRecord[]>,
): Promise<void> {
  const final = new Map(changes.map((c) => [c.after.uid, c.after]));
  for (const [i, c] of changes.entries()) {
    const key = claimedSeriesKey(c.before, c.after);
    if (!key) continue;
    for (const stored of await liveHolders(key)) {
      if (stored.uid === c.after.uid) continue;
      // a holder this request also changes counts as it will be after the request
      if (sameSeriesKey(seriesKeyOf(final.get(stored.uid) ?? stored), key)) throw duplicateSeries(key, stored.uid);
    }
    // an earlier change of this request that leaves another Series holding the key
    for (const other of changes.slice(0, i)) {
      if (other.after.uid !== c.after.uid && sameSeriesKey(seriesKeyOf(final.get(other.after.uid)), key))
        throw duplicateSeries(key, other.after.uid, claimedSeriesKey(other.before, other.after) !== null);
    }
  }
}
