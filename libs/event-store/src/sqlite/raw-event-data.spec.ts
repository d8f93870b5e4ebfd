import { rawDataOf, setRawData, versionedRecordJson } from './raw-event-data';

const slice = (data: unknown, key: 'node' | 'edge') => versionedRecordJson(JSON.stringify(data), data, key);

describe('versionedRecordJson', () => {
  it('gives exactly JSON.stringify(record) for the shape the log writes', () => {
    const node = { uid: 'n1', label: 'a "quoted", label', props: { reason: 'nested key named reason', list: [1, { reason: null }] }, tombstone_at: null };
    expect(slice({ node, reason: null }, 'node')).toBe(JSON.stringify(node));
    expect(slice({ node, reason: 'merged,"reason":x}' }, 'node')).toBe(JSON.stringify(node));
    const edge = { uid: 'e1', from_uid: 'a', to_uid: 'b', props: {} };
    expect(slice({ edge, reason: 'cascade:a' }, 'edge')).toBe(JSON.stringify(edge));
  });

  it('declines any other shape so the caller serialises instead', () => {
    const node = { uid: 'n1' };
    expect(slice({ reason: null, node }, 'node')).toBeUndefined(); // key order
    expect(slice({ node, reason: null, extra: { a: 1 } }, 'node')).toBeUndefined();
    expect(slice({ node }, 'node')).toBeUndefined();
    expect(slice({ node, reason: { why: 'object' } }, 'node')).toBeUndefined();
    expect(slice({ node: null, reason: null }, 'node')).toBeUndefined();
    expect(slice({ node, reason: null }, 'edge')).toBeUndefined();
    // text that is not the compact serialisation of the data
    expect(versionedRecordJson('{ "node": {"uid":"n1"}, "reason": null }', { node, reason: null }, 'node')).toBeUndefined();
  });
});

describe('raw data on an event', () => {
  it('is invisible to JSON, spreads and key listings', () => {
    const e = { type: 'NodeCreated', data: { node: { uid: 'n1' }, reason: null } };
    setRawData(e, '{"node":{"uid":"n1"},"reason":null}');
    expect(rawDataOf(e)).toBe('{"node":{"uid":"n1"},"reason":null}');
    expect(JSON.stringify(e)).toBe('{"type":"NodeCreated","data":{"node":{"uid":"n1"},"reason":null}}');
    expect(rawDataOf({ ...e })).toBeUndefined();
    expect(Reflect.ownKeys(e).filter((k) => Object.prototype.propertyIsEnumerable.call(e, k))).toEqual(['type', 'data']);
  });

  it('is skipped on a frozen event rather than failing the append', () => {
    const e = Object.freeze({ type: 'NodeCreated', data: null });
    expect(() => setRawData(e, 'null')).not.toThrow();
    expect(rawDataOf(e)).toBeUndefined();
  });
});
