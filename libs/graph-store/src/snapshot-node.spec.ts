import { snapshotNodeJson } from './snapshot-node';

describe('snapshotNodeJson (REFERENCE §8.6; audit J3)', () => {
  const record = { uid: 'n1', label: 'a "quoted" } label', salience: 0.2, props: { nested: { last_decayed_at: 'not this one' } } };
  const json = JSON.stringify(record);

  it('writes the stored record unchanged for a node never decayed', () => {
    expect(snapshotNodeJson(json, null)).toBe(json);
    expect(snapshotNodeJson(json, undefined)).toBe(json);
  });

  it('appends the decay clock as a top-level field when the node has one', () => {
    const out = snapshotNodeJson(json, 1_700_000_123.456);
    expect(JSON.parse(out)).toEqual({ ...record, last_decayed_at: 1_700_000_123.456 });
    expect(out.startsWith(json.slice(0, -1))).toBe(true);
    expect(JSON.parse(snapshotNodeJson('{}', 5))).toEqual({ last_decayed_at: 5 });
  });

  it('refuses text that is not a JSON object', () => {
    expect(() => snapshotNodeJson('[1]', 5)).toThrow(/not an object/);
  });
});
