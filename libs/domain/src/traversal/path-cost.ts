/** Weights and confidences are clamped here before logs and products (REFERENCE §6.1). */
export const MIN_EDGE_FACTOR = 1e-9;

function clampUnit(v: number): number {
  if (!(v >= MIN_EDGE_FACTOR)) return MIN_EDGE_FACTOR; // also catches NaN
  return v > 1 ? 1 : v;
}

/** Cost of following one edge: −ln(weight), weight clamped to [1e-9, 1]. Never negative. */
export function edgeCost(weight: number): number {
  return -Math.log(clampUnit(weight));
}

/** Confidence factor of one edge, clamped to [1e-9, 1]. */
export function edgeConfidence(confidence: number): number {
  return clampUnit(confidence);
}

/**
 * Path costs are sums of logs; the same path summed in another order can differ in the last
 * bits, so costs this close are treated as a tie (and the tie rules decide).
 */
export function compareCost(a: number, b: number): number {
  const d = a - b;
  if (Math.abs(d) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b))) return 0;
  return d < 0 ? -1 : 1;
}
