import { familyKeyRange, streamFamily, streamKey } from './stream-key';

describe('stream keys', () => {
  it('the family of a stream is its name up to the first colon, or the whole name', () => {
    expect(streamFamily('node-org1:0b6c')).toBe('node-org1:');
    expect(streamFamily('node-org1:a:b')).toBe('node-org1:');
    expect(streamFamily('graph-org1')).toBe('graph-org1');
    expect(streamFamily('')).toBe('');
  });

  it('keys are safe integers, stable, and spread the streams of one family', () => {
    const keys = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const k = streamKey(`node-org1:${i.toString(16).padStart(8, '0')}-uuid`);
      expect(Number.isSafeInteger(k) && k >= 0).toBe(true);
      keys.add(k);
    }
    expect(keys.size).toBeGreaterThan(9_990); // 29 bits for the part after the family
    expect(streamKey('node-org1:abc')).toBe(streamKey('node-org1:abc'));
  });

  it('every stream of a family falls inside the family key range, others (almost always) outside', () => {
    const range = familyKeyRange('node-org1:');
    for (const s of ['node-org1:', 'node-org1:a', 'node-org1:zz:9', 'node-org1:' + 'x'.repeat(200)]) {
      const k = streamKey(s);
      expect(k >= range.from && k < range.to).toBe(true);
    }
    let outside = 0;
    for (const s of ['node-org2:a', 'edge-org1:a', 'node-org1', 'node-org10:a', 'graph-org1']) {
      const k = streamKey(s);
      if (k < range.from || k >= range.to) outside++;
    }
    expect(outside).toBe(5);
  });
});
