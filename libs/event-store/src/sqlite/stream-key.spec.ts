import { timeOrderedUuid } from '@strata/domain/time/time-ordered-uuid';
import { familyKeyRange, hashedStreamKey, streamFamily, streamKey } from './stream-key';

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

  it('streams named by time-ordered uids created close in time get keys close together, in time order', () => {
    const t0 = 1_764_300_000_000;
    const burst = Array.from({ length: 2000 }, (_, i) => streamKey(`node-org1:${timeOrderedUuid(t0 + (i % 10))}`));
    const later = Array.from({ length: 2000 }, (_, i) => streamKey(`node-org1:${timeOrderedUuid(t0 + 40 + (i % 10))}`));
    // one 16 ms slot holds 2^16 keys: the burst spans at most two slots
    expect(Math.max(...burst) - Math.min(...burst)).toBeLessThan(2 * 2 ** 16);
    expect(Math.min(...later)).toBeGreaterThan(Math.max(...burst));
    expect(new Set(burst).size).toBeGreaterThan(1950); // 16 hash bits within a slot
    const range = familyKeyRange('node-org1:');
    for (const k of [...burst, ...later]) expect(k >= range.from && k < range.to).toBe(true);
  });

  it('the slots wrap every 131 s, so keys stay inside the family range at any time', () => {
    const range = familyKeyRange('edge-o:');
    for (const ms of [0, 2 ** 17 - 1, 2 ** 17, 2 ** 47, 2 ** 48 - 1]) {
      const k = streamKey(`edge-o:${timeOrderedUuid(ms)}`);
      expect(Number.isSafeInteger(k) && k >= range.from && k < range.to).toBe(true);
    }
    expect(Math.floor((streamKey(`edge-o:${timeOrderedUuid(5 * 16)}`) - range.from) / 2 ** 16)).toBe(5);
    expect(Math.floor((streamKey(`edge-o:${timeOrderedUuid(2 ** 17 + 5 * 16)}`) - range.from) / 2 ** 16)).toBe(5);
  });

  it('names without a uid at the start of their rest keep the hashed key of older logs', () => {
    for (const s of ['graph-org1', 'org-1', 'node-org1:abc', 'ontidentity-o:ABCDEF01-2345-', 'node-o:0123456g-0000-4000-8000-000000000000', 'node-o:01234567_0000'])
      expect(streamKey(s)).toBe(hashedStreamKey(s));
    const uidNamed = `node-o:${timeOrderedUuid(1_764_300_000_000)}`;
    expect(streamKey(uidNamed)).not.toBe(hashedStreamKey(uidNamed));
  });
});
