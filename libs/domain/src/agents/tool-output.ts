/**
 * What a tool call's result may weigh once recorded (REFERENCE §16.9 `tool.result.result`,
 * §16.10 `output_snapshot`): 16 KiB of UTF-8 JSON. A larger one is kept as the start of its JSON
 * text, marked, cut so that its own JSON (quotes escaped, characters of several bytes counted
 * as bytes) still fits.
 */
export const TOOL_RESULT_BYTES = 16 * 1024;
const MARK = '…[truncated]';

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

export function capToolResult(value: unknown, maxBytes: number = TOOL_RESULT_BYTES): unknown {
  const v = value ?? null;
  if (bytesOf(v) <= maxBytes) return v;
  const text = JSON.stringify(v);
  const cut = (n: number) => {
    // never half a surrogate pair
    const end = n > 0 && /[\uD800-\uDBFF]/.test(text[n - 1]) ? n - 1 : n;
    return `${text.slice(0, end)}${MARK}`;
  };
  // the longest prefix whose marked JSON string fits: its size grows with the prefix
  let lo = 0;
  let hi = Math.min(text.length, maxBytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytesOf(cut(mid)) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}
