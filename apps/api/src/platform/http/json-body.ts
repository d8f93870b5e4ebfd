/**
 * Guards of the JSON body parser (configure-http.ts), applied to every request body before
 * any route sees it. Both are loops over an explicit stack or the text, never recursion, so a
 * hostile body cannot exhaust the call stack.
 */

/** Deepest nesting of objects and arrays a body may have (the root object is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text nests objects/arrays deeper than `max`, read from the text before it
 * is parsed: a deeply nested body is refused at once instead of being built first (parsing
 * 10 MiB of `[` takes seconds). Brackets inside strings do not count; the text need not be
 * valid JSON (JSON.parse reports that afterwards).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: jump to its closing quote, one not escaped by an odd run of backslashes
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return false;
        let k = j - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        if (((j - 1 - k) & 1) === 0) break;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Why a parsed body is refused, or null: a `__proto__` key, or a `constructor` key holding an
 * object with a `prototype` key (the two shapes of prototype pollution; Fastify's own parser
 * refuses the same), or nesting deeper than `max`. JSON.parse keeps such keys as plain own
 * properties, but any later copy by assignment would change the copy's prototype (and the key
 * would vanish), so they are refused outright rather than dropped.
 */
export function jsonBodyProblem(root: unknown, max = MAX_JSON_DEPTH): string | null {
  if (root === null || typeof root !== 'object') return null;
  const stack: object[] = [root];
  const depths: number[] = [1];
  while (stack.length) {
    const v = stack.pop()!;
    const d = depths.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x === null || typeof x !== 'object') continue;
        if (d >= max) return `the body nests objects and arrays deeper than ${max} levels`;
        stack.push(x);
        depths.push(d + 1);
      }
      continue;
    }
    for (const k of Object.keys(v)) {
      if (k === '__proto__') return 'the key "__proto__" is not allowed';
      const x: unknown = (v as Record<string, unknown>)[k];
      if (x === null || typeof x !== 'object') continue;
      if (k === 'constructor' && !Array.isArray(x) && Object.prototype.hasOwnProperty.call(x, 'prototype'))
        return 'a "constructor" key holding a "prototype" key is not allowed';
      if (d >= max) return `the body nests objects and arrays deeper than ${max} levels`;
      stack.push(x);
      depths.push(d + 1);
    }
  }
  return null;
}
