type NumberArray = Uint32Array | Int32Array | Float32Array;

/** A copy of `a` with room for `size` values (the first `size` of `a` when it is shorter). */
export function grownArray<T extends NumberArray>(a: T, size: number): T {
  const b = new (a.constructor as new (length: number) => T)(size);
  b.set(a.subarray(0, Math.min(a.length, size)) as ArrayLike<number>);
  return b;
}
