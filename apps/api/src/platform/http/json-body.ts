/**
 * Guards of the JSON body parser (configure-http.ts), applied to every request body before
 * any route sees it. A loop over an explicit stack, never recursion, so a hostile body cannot
 * exhaust the call stack.
 */

/**
 * Why a parsed body is refused, or null: a `__proto__` key, or a `constructor` key holding an
 * object with a `prototype` key (the two shapes of prototype pollution; Fastify's own parser
 * refuses the same). JSON.parse keeps such keys as plain own properties, but any later copy by
 * assignment would change the copy's prototype (and the key would vanish), so they are refused
 * outright rather than dropped.
 */
export function jsonBodyProblem(root: unknown): string | null {
  if (root === null || typeof root !== 'object') return null;
  const stack: object[] = [root];
  while (stack.length) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') stack.push(x);
      }
      continue;
    }
    for (const k of Object.keys(v)) {
      if (k === '__proto__') return 'the key "__proto__" is not allowed';
      const x: unknown = (v as Record<string, unknown>)[k];
      if (x === null || typeof x !== 'object') continue;
      if (k === 'constructor' && !Array.isArray(x) && Object.prototype.hasOwnProperty.call(x, 'prototype'))
        return 'a "constructor" key holding a "prototype" key is not allowed';
      stack.push(x);
    }
  }
  return null;
}
