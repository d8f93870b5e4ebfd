/**
 * Waits for a condition that work outside the test's control makes true (a child process, a
 * subscription, a worker thread, a background job): checks it, then again every `everyMs`,
 * and fails naming `what` once `timeoutMs` have gone by. It returns the first truthy value.
 *
 * It is never a way to let time pass: a test that needs time to pass moves a FixedClock. The
 * bound is measured on the monotonic clock, so it holds whatever the test's clock says. This
 * is the one place in the tests that waits on a timer (the guard test allows it by name).
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  opts: { what?: string; timeoutMs?: number; everyMs?: number } = {},
): Promise<NonNullable<T>> {
  const { what = 'condition', timeoutMs = 10_000, everyMs = 10 } = opts;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves after the pending I/O callbacks and immediates have run (no timer involved). */
export function settleIo(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
