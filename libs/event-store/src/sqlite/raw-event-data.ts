/**
 * The JSON text an event's data is stored as in the embedded log, carried on the event object
 * under a non-enumerable symbol so a projection can reuse it instead of serialising the same
 * record again (the graph read model keeps each record's JSON). Being hidden, it changes
 * neither the RecordedEvent shape, nor JSON renderings, copies or deep equality of events.
 */
export const RAW_DATA: unique symbol = Symbol('strata.rawEventData');

export function rawDataOf(event: object): string | undefined {
  return (event as { [RAW_DATA]?: string })[RAW_DATA];
}

export function setRawData(event: object, json: string): void {
  try {
    Object.defineProperty(event, RAW_DATA, { value: json, writable: true, configurable: true, enumerable: false });
  } catch {
    // a frozen event: projections serialise the record themselves
  }
}

const REASON_KEY = ',"reason":';

/**
 * The JSON of `data[key]` inside `raw`, the stored text of a versioned event's data, which the
 * log writes as `JSON.stringify({ node|edge, reason })`: inside that text the record's value is
 * exactly `JSON.stringify(record)`, so a slice gives it without serialising again. `data` is
 * the parsed form of `raw`; unless it has exactly that shape (the record key first, then a
 * null or string reason, nothing else) this returns undefined and the caller serialises.
 *
 * The top-level `,"reason":` is then the last one in the text: nothing follows it but a
 * string or null, and a quote inside a JSON string is always escaped.
 */
export function versionedRecordJson(raw: string, data: unknown, key: 'node' | 'edge'): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const d = data as Record<string, unknown>;
  const keys = Object.keys(d);
  if (keys.length !== 2 || keys[0] !== key || keys[1] !== 'reason') return undefined;
  if (d.reason !== null && typeof d.reason !== 'string') return undefined;
  const record = d[key];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const head = key === 'node' ? '{"node":{' : '{"edge":{';
  if (!raw.startsWith(head) || raw.charCodeAt(raw.length - 1) !== 125 /* } */) return undefined;
  const at = raw.lastIndexOf(REASON_KEY);
  if (at <= head.length || raw.charCodeAt(at - 1) !== 125) return undefined;
  return raw.slice(head.length - 1, at);
}
