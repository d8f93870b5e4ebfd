/** The first index of a sorted list whose entry does not sort before `x` (binary search). */
export function lowerBound<T>(list: readonly T[], x: T, cmp: (a: T, b: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(list[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
