/**
 * Vector values as Strata stores them: 32-bit floats (the vector index and the recorded
 * vectors both hold float32). A finite JSON number beyond float32's range would be stored as
 * ±Infinity — read back as null and never found by a search — so it is refused like a
 * non-finite one (REFERENCE §8.7).
 */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** A finite number whose magnitude fits a float32. */
export function isFloat32Value(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= FLOAT32_MAX;
}

/**
 * What is wrong with a vector's values, as the end of an `invalid_field` message
 * ("<field> must contain …"), or null when every value can be stored.
 */
export function vectorValuesProblem(values: readonly unknown[]): string | null {
  if (values.some((x) => typeof x !== 'number' || !Number.isFinite(x))) return 'finite numbers only';
  if (values.some((x) => !isFloat32Value(x))) return 'numbers within the float32 range only (magnitude at most 3.4028234663852886e38)';
  return null;
}
