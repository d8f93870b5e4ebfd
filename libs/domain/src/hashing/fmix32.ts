/**
 * The murmur3 32-bit finaliser: spreads every input bit over the output, so FNV hashes (weak
 * in their low bits) can pick slots, signs and key ranges. Unsigned result.
 */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
