import { TOOL_RESULT_BYTES, capToolResult } from './tool-output';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe('a tool result as recorded (at most 16 KiB of JSON)', () => {
  it('keeps a result that fits as it is', () => {
    const r = { uid: 'n1', label: 'x'.repeat(1000) };
    expect(capToolResult(r)).toBe(r);
    expect(capToolResult(undefined)).toBeNull();
  });
  it('cuts a result of characters of several bytes by bytes, not characters', () => {
    const r = { summary: '€'.repeat(9000) };
    const kept = capToolResult(r) as string;
    expect(typeof kept).toBe('string');
    expect(kept.endsWith('…[truncated]')).toBe(true);
    expect(bytes(kept)).toBeLessThanOrEqual(TOOL_RESULT_BYTES);
    expect(bytes(kept)).toBeGreaterThan(TOOL_RESULT_BYTES - 8);
    expect(JSON.stringify(r).startsWith(kept.slice(0, -'…[truncated]'.length))).toBe(true);
  });
  it('counts the escaping its own JSON adds (quotes, backslashes)', () => {
    const r = { items: Array.from({ length: 3000 }, (_, i) => `"q${i}"\\`) };
    expect(bytes(capToolResult(r))).toBeLessThanOrEqual(TOOL_RESULT_BYTES);
  });
  it('never leaves half a surrogate pair', () => {
    const kept = capToolResult({ s: '😀'.repeat(10_000) }, 1000) as string;
    expect(bytes(kept)).toBeLessThanOrEqual(1000);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(kept)).toBe(false);
  });
});
