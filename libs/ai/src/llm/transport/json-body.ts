/** A request body already serialised as JSON: the transport sends its text as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The JSON of `body` with `list` added under `key`, each item's JSON taken from `cache` (made by
 * `shape` the first time the item is seen). An agent offers the same tool specs (made once per
 * process) at every step, and their schemas are most of the request's bytes: serialised once,
 * not at every call. An item must not change once it was sent.
 */
export function withCachedList<T extends object>(body: Record<string, unknown>, key: string, list: readonly T[], cache: WeakMap<T, string>, shape: (item: T) => unknown): JsonText {
  const text = JSON.stringify(body);
  if (!list.length) return new JsonText(text);
  const items = list.map((item) => {
    let json = cache.get(item);
    if (json === undefined) cache.set(item, (json = JSON.stringify(shape(item))));
    return json;
  });
  const field = `${JSON.stringify(key)}:[${items.join(',')}]`;
  return new JsonText(text === '{}' ? `{${field}}` : `${text.slice(0, -1)},${field}}`);
}
